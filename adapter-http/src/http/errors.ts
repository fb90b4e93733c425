// The one error map: any thrown value -> an HTTP reply `{ error, code?, ...extras }` (spec section 7).
// An error's status comes from the registry (errors/registry.ts); the details of an engine or service error
// are spread into the body; 429 limits, a store outage's 503 and an idempotency key in progress (409) add a
// `Retry-After` header, and the daily, fair-use and monthly 429s
// the X-RateLimit-* headers built from the same body fields.
// Unknown errors become 500 `internal_error` with a readable message; their details go to the log only.
// Log levels: a 5xx that is the service working as designed (draining, shedding load) is not an error
// line; a dependency that is down is a warning; anything else at 5xx is a bug or a failure: error.
import { isCodedError, statusOf, type HttpErrorCode } from '../errors/registry.js';
import { limitErrorHeaders } from '../limits/meter.js';
import type { Logger } from '../log.js';
import { hostMessage } from '../errors/hints.js';
import { errorJson, json, type Reply } from './reply.js';

/**
 * How a 5xx code is logged: `info` for expected answers (shutdown drain, engine queue full), `warn` for a
 * dependency that cannot be reached (PostgreSQL line, garment supplier, the store); codes not listed are `error`.
 */
export const EXPECTED_5XX: Readonly<Partial<Record<HttpErrorCode, 'info' | 'warn'>>> = Object.freeze({
  shutting_down: 'info',
  engine_overloaded: 'info',
  queue_unavailable: 'warn',
  supplier_unavailable: 'warn',
  store_unavailable: 'warn',
});

/** Map an error to its reply (and log unknown ones with their stack). */
export function errorReply(err: unknown, log: Logger, requestId: string): { reply: Reply; code: string } {
  if (isCodedError(err)) {
    const status = statusOf(err.code);
    const headers: Record<string, string> = {};
    const retry = err.details.retry_after_seconds;
    // 429 limits, 503 store_unavailable while the store is away, and the 409 of an idempotency key still
    // running: when a call may succeed.
    if (typeof retry === 'number' && (status === 429 || status === 503 || status === 409)) headers['Retry-After'] = String(retry);
    Object.assign(headers, limitErrorHeaders(err));
    if (status >= 500) {
      const expected = EXPECTED_5XX[err.code as HttpErrorCode];
      if (expected === undefined) log.error('request failed', { code: err.code, err: err.message, cause: causeText(err) });
      else if (expected === 'warn') log.warn('dependency unavailable', { code: err.code, err: err.message, cause: causeText(err) });
    }
    const { error: _e, code: _c, ...extras } = err.details;
    return { reply: json({ error: hostMessage(err.code, err.message, err.details), code: err.code, ...extras }, status, headers), code: err.code };
  }
  log.error('unexpected error', { err: err instanceof Error ? err.stack ?? err.message : String(err) });
  return { reply: errorJson('internal_error', `Internal server error (request ${requestId}); the operators have the details in the log`), code: 'internal_error' };
}

function causeText(err: Error): string | undefined {
  const c = (err as { cause?: unknown }).cause;
  return c instanceof Error ? c.stack ?? c.message : c === undefined ? undefined : String(c);
}
