// Reply values: what a route returns. The Exchange writes them to uWS (corked, with backpressure).
import { STATUS_CODES } from 'node:http';
import { ERROR_CODES, type HttpErrorCode } from '../errors/registry.js';

/** A complete response: status, content type, extra headers and the body. */
export interface Reply {
  status: number;
  contentType: string;
  headers?: Record<string, string>;
  body: string | Uint8Array;
  /**
   * How long (ms) the answer stays true when it points at something that expires (an upscale result's link):
   * an idempotency key replays it no longer than this (routes/idempotency.ts). Unset: the key's 24 hours.
   */
  keepFor?: number;
}

/** Content type of every JSON reply. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON reply. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return { status, contentType: JSON_TYPE, body: JSON.stringify(body), ...(headers ? { headers } : {}) };
}

/** An error reply `{ error, code }` with the code's status from the error registry. */
export function errorJson(code: HttpErrorCode, message: string, headers?: Record<string, string>): Reply {
  return json({ error: message, code }, ERROR_CODES[code].status, headers);
}

/** A binary (or text) reply with the given content type, e.g. `image/png`. */
export function binary(body: Uint8Array | string, contentType: string, headers?: Record<string, string>, status = 200): Reply {
  return { status, contentType, body, ...(headers ? { headers } : {}) };
}

const statusLines = new Map<number, string>();
/** `200 OK` style status line for uWS writeStatus (cached). */
export function statusLine(status: number): string {
  let s = statusLines.get(status);
  if (!s) {
    s = `${status} ${STATUS_CODES[status] ?? (status === 499 ? 'Client Closed Request' : 'Status')}`;
    statusLines.set(status, s);
  }
  return s;
}
