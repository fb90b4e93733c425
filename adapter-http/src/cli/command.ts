// The shape of one CLI verb, the exit codes by cause, and the one error format: a single JSON line on stderr,
// `{ error, code, ...details }`, the same body the HTTP API sends.
import { InkprepError, type ErrorDetails } from '@inkprep/engine';
import { clearProgress } from './progress.js';

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full usage text; its first line is the synopsis (`usage: inkprep <verb> ...`). */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** Exit codes: 0 ok, 1 processing failed, 2 usage or option value, 3 input problem, 4 output path problem. */
export const EXIT = { ok: 0, failed: 1, usage: 2, input: 3, output: 4 } as const;

/**
 * Codes only the CLI reports, besides the engine registry's (README "CLI"): `usage` (a bad command line: unknown
 * command or option, missing argument), `output_unwritable` (the -o path's folder is missing or not writable) and
 * `port_in_use` (`serve` on a PORT another process holds; exit 1).
 */
export type CliErrorCode = 'usage' | 'output_unwritable' | 'port_in_use';

/** A bad command line; `usage` is the verb's synopsis, shown in the error line. */
export class UsageError extends Error {
  constructor(message: string, readonly usage?: string) {
    super(message);
  }
}

/** The output path cannot be written (missing folder, not writable, a directory, stdout closed). */
export class OutputError extends Error {
  constructor(message: string, readonly path: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Engine codes that mean the input file is at fault (exit 3). */
const INPUT_CODES: ReadonlySet<string> = new Set(['missing_image', 'image_unreadable', 'unsupported_format', 'image_too_large', 'body_too_large']);

/** The exit code for an error code. */
export function exitCodeFor(code: string): number {
  if (code === 'usage' || code === 'invalid_option') return EXIT.usage;
  if (INPUT_CODES.has(code)) return EXIT.input;
  if (code === 'output_unwritable') return EXIT.output;
  return EXIT.failed;
}

/** Print one error line on stderr and return its exit code. */
export function printError(code: CliErrorCode | InkprepError['code'], message: string, details: ErrorDetails = {}): number {
  clearProgress();
  process.stderr.write(JSON.stringify({ error: message, code, ...details }) + '\n');
  return exitCodeFor(code);
}

/** The first line of a usage text without its `usage: ` prefix. */
export function synopsis(usage: string): string {
  return usage.split('\n', 1)[0]!.replace(/^usage:\s*/, '');
}

/** Print any error the way every verb does and return its exit code. */
export function reportError(err: unknown): number {
  if (err instanceof UsageError) return printError('usage', err.message, err.usage ? { usage: err.usage } : {});
  if (err instanceof OutputError) return printError('output_unwritable', err.message, { path: err.path });
  if (err instanceof InkprepError) return printError(err.code, err.message, err.details);
  const message = err instanceof Error ? err.message : String(err);
  return printError('internal_error', message, process.env.INKPREP_DEBUG && err instanceof Error && err.stack ? { stack: err.stack } : {});
}
