// Which store failures mean "the database is away" (503 `store_unavailable`, retry later) rather than a bug
// (500): the connection could not be made or was lost (PostgreSQL down, restarting, terminated our backend,
// network cut, the pool could not get a connection in time) or SQLite stayed busy/locked past its timeout.
// Everything else (constraint violations, SQL errors, programming errors) stays a 500 so it gets fixed.
import { ServiceError } from '../errors/registry.js';

/** Seconds a client is told to wait (Retry-After) when the store is away: a restart or failover takes seconds. */
export const STORE_RETRY_AFTER_S = 5;

// Node socket errors of a connection that cannot be made or was cut.
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN', 'ENOTFOUND',
]);

// SQLSTATEs of a server that is going away or not taking connections: 57P01 admin_shutdown (pg_ctl stop,
// pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down),
// 53300 too_many_connections. (08xxx, the connection exception class, is matched by prefix below.)
const SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

// node-postgres reports a lost connection or a pool timeout as a plain Error with one of these messages.
const PG_MESSAGES = [
  /^Connection terminated/, // "Connection terminated unexpectedly", "Connection terminated due to connection timeout"
  /^timeout exceeded when trying to connect/, // pool.connect past connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Query read timeout/,
];

/** True when `err` says the store cannot be reached now (as opposed to a bug). Looks through `cause` chains and AggregateErrors. */
export function isStoreUnavailable(err: unknown, depth = 0): boolean {
  if (depth > 4 || err === null || typeof err !== 'object') return false;
  if (err instanceof ServiceError) return err.code === 'store_unavailable';
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true; // 08xxx: connection exception class
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  if (PG_MESSAGES.some((re) => re.test(msg))) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isStoreUnavailable(x, depth + 1))) return true; // ECONNREFUSED on ::1 and 127.0.0.1
  return e.cause !== undefined && isStoreUnavailable(e.cause, depth + 1);
}

/** The 503 a request gets when the store is away: `store_unavailable` with `retry_after_seconds` (and a Retry-After header). */
export function storeUnavailableError(cause: unknown): ServiceError {
  return new ServiceError('store_unavailable', 'The store cannot be reached; retry shortly', { retry_after_seconds: STORE_RETRY_AFTER_S }, { cause });
}

/** Rethrow a store failure as 503 `store_unavailable` when it is an outage; anything else unchanged. */
export function asStoreError(err: unknown): unknown {
  return isStoreUnavailable(err) && !(err instanceof ServiceError) ? storeUnavailableError(err) : err;
}
