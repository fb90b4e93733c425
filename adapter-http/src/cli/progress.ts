// The progress of long CLI runs, from the engine's progress events, on stderr:
//  - on a terminal, one line redrawn in place, cleared before anything else is printed and at the end;
//  - elsewhere (a log file, CI, a pipe) plain lines, each ending in a newline and free of escape codes: one
//    every `intervalMs` (INKPREP_PROGRESS_SECONDS, default 10 s; the first after one interval, so a short
//    run prints none), and with `--progress` also one as each stage begins. A 2-minute upscale run from a
//    script was silent for its whole run.
// `--quiet` prints neither.
import type { ProgressEvent } from '@inkprep/engine';

let shown = false;

/** Erase the progress line if one is on screen (before an error or summary line, and at the end). */
export function clearProgress(): void {
  if (!shown) return;
  shown = false;
  process.stderr.write('\r\x1b[2K');
}

export interface ProgressMode {
  /** --quiet: no progress at all. */
  quiet: boolean;
  /** --progress: off a terminal, also a line at each stage. */
  everyStage: boolean;
  /** Off a terminal, the least time between two lines, ms. */
  intervalMs: number;
}

/**
 * A listener for `CallOptions.onProgress` printing `inkprep <verb>: <stage> <n>% (<s> s)`, redrawn on a
 * terminal and as plain lines elsewhere (see the top of this file); undefined when `quiet`.
 */
export function progressLine(verb: string, mode: ProgressMode): ((e: ProgressEvent) => void) | undefined {
  if (mode.quiet) return undefined;
  const started = performance.now();
  const text = (e: ProgressEvent, now: number): string => `inkprep ${verb}: ${e.stage} ${Math.round(e.fraction * 100)}% (${((now - started) / 1000).toFixed(1)} s)`;
  if (!process.stderr.isTTY) {
    let lastAt = started;
    let lastStage = '';
    return (e) => {
      const now = performance.now();
      const newStage = e.stage !== lastStage;
      lastStage = e.stage;
      if (!(mode.everyStage && newStage) && now - lastAt < mode.intervalMs) return;
      lastAt = now;
      process.stderr.write(`${text(e, now)}\n`);
    };
  }
  let last = '';
  return (e) => {
    let line = text(e, performance.now());
    const width = process.stderr.columns;
    if (width && line.length >= width) line = line.slice(0, Math.max(0, width - 1));
    if (line === last) return;
    last = line;
    shown = true;
    // The op runs on this thread; TTY writes are synchronous, so each event is on screen as it happens.
    process.stderr.write(`\r\x1b[2K${line}`);
  };
}
