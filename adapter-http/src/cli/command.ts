// The shape of one CLI verb, how every verb starts (argv parsed, --help answered), the exit codes by cause,
// and the one error format: a single JSON line on stderr, `{ error, code, ...details }`, the same body the
// HTTP API sends.
import type { ErrorDetails, OpName } from '@inkprep/engine';
import { debugFromEnv } from '../config.js';
import { EXIT, exitCodeFor, isCodedError, type AnyErrorCode, type CliErrorCode } from '../errors/registry.js';
import { hostMessage } from '../errors/hints.js';
import { parseArgs, type ParsedArgs } from './args.js';
import { clearProgress } from './progress.js';
import { isStoreUnavailable } from '../store/unavailable.js';

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full usage text; its first line is the synopsis (`usage: inkprep <verb> ...`). */
  usage: string;
  /** The engine op whose option table gives this verb's flags (file verbs). */
  op?: OpName;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

// Exit codes and the CLI-only codes (`usage`, `output_unwritable`, `port_in_use`) live in the adapter's error
// registry with every other code, so the CLI has no code or exit mapping of its own.
export { EXIT, exitCodeFor };

/** A bad command line; `usage` is the verb's synopsis, shown in the error line. */
export class UsageError extends Error {
  readonly code: CliErrorCode = 'usage';
  /** Extra fields of the error line (e.g. the unknown `option` and a `suggestion`). */
  constructor(message: string, readonly usage?: string, readonly details: ErrorDetails = {}) {
    super(message);
  }
}

/** The output path cannot be written (missing folder, not writable, a directory, stdout closed). */
export class OutputError extends Error {
  readonly code: CliErrorCode = 'output_unwritable';
  constructor(message: string, readonly path: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Print one error line on stderr and return its exit code. */
export function printError(code: AnyErrorCode, message: string, details: ErrorDetails = {}): number {
  clearProgress();
  process.stderr.write(JSON.stringify({ error: message, code, ...details }) + '\n');
  return exitCodeFor(code);
}

/**
 * Parse a verb's argv (`booleans`: flags that never take a value); with --help print its full `usage` on
 * stdout and return null, and the verb exits 0 (every verb answers --help before it checks anything else).
 */
export function parseOrHelp(argv: readonly string[], usage: string, booleans?: readonly string[]): ParsedArgs | null {
  const parsed = parseArgs(argv, booleans);
  if (!parsed.flags.help) return parsed;
  process.stdout.write(usage + '\n');
  return null;
}

/** The first line of a usage text without its `usage: ` prefix. */
export function synopsis(usage: string): string {
  return usage.split('\n', 1)[0]!.replace(/^usage:\s*/, '');
}

/** Print any error the way every verb does and return its exit code. */
export function reportError(err: unknown): number {
  if (err instanceof UsageError) return printError(err.code, err.message, { ...err.details, ...(err.usage ? { usage: err.usage } : {}) });
  if (err instanceof OutputError) return printError(err.code, err.message, { path: err.path });
  if (isCodedError(err)) return printError(err.code, hostMessage(err.code, err.message, err.details), err.details);
  const message = err instanceof Error ? err.message : String(err);
  // The database is away (refused, restarting, locked): say so, not "internal error".
  if (isStoreUnavailable(err)) return printError('store_unavailable', `The store cannot be reached: ${message}`);
  return printError('internal_error', message, debugFromEnv() && err instanceof Error && err.stack ? { stack: err.stack } : {});
}
