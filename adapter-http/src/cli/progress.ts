// The progress line of long CLI runs: stage and percent from the engine's progress events, redrawn in place
// on stderr when it is a terminal (never otherwise), cleared before anything else is printed and at the end.
import type { ProgressEvent } from '@inkprep/engine';

let shown = false;

/** Erase the progress line if one is on screen (before an error or summary line, and at the end). */
export function clearProgress(): void {
  if (!shown) return;
  shown = false;
  process.stderr.write('\r\x1b[2K');
}

/** A listener for `CallOptions.onProgress` drawing `inkprep <verb>: <stage> <n>% (<s> s)`; undefined when stderr is not a terminal or `quiet`. */
export function progressLine(verb: string, quiet: boolean): ((e: ProgressEvent) => void) | undefined {
  if (quiet || !process.stderr.isTTY) return undefined;
  const started = performance.now();
  let last = '';
  return (e) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    let text = `inkprep ${verb}: ${e.stage} ${Math.round(e.fraction * 100)}% (${seconds} s)`;
    const width = process.stderr.columns;
    if (width && text.length >= width) text = text.slice(0, Math.max(0, width - 1));
    if (text === last) return;
    last = text;
    shown = true;
    // The op runs on this thread; TTY writes are synchronous, so each event is on screen as it happens.
    process.stderr.write(`\r\x1b[2K${text}`);
  };
}
