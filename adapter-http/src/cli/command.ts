// The shape of one CLI verb and shared helpers for reporting and errors.
import { InkprepError } from '@inkprep/engine';

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full usage text. */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** Exit codes: 0 ok, 1 processing failure, 2 usage / bad input, 3 input file problem. */
export const EXIT = { ok: 0, failed: 1, usage: 2, input: 3 } as const;

export class UsageError extends Error {}

/** Print an error the way every verb does and return its exit code. */
export function reportError(err: unknown, json: boolean): number {
  if (err instanceof UsageError) {
    process.stderr.write(`inkprep: ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof InkprepError) {
    if (json) process.stderr.write(JSON.stringify({ error: err.message, code: err.code, ...err.details }) + '\n');
    else process.stderr.write(`inkprep: ${err.message} (${err.code})\n`);
    return err.status >= 500 ? EXIT.failed : err.code === 'image_unreadable' || err.code === 'unsupported_format' || err.code === 'image_too_large' ? EXIT.input : EXIT.usage;
  }
  const e = err as NodeJS.ErrnoException;
  if (e && (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'EISDIR')) {
    process.stderr.write(`inkprep: ${e.message}\n`);
    return EXIT.input;
  }
  process.stderr.write(`inkprep: ${e?.stack ?? String(err)}\n`);
  return EXIT.failed;
}

/** Progress line on stderr for long work (only when stderr is a terminal). */
export function progress(msg: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${msg}`);
}
export function progressDone(): void {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
}
