// One delivery attempt: POST the body to the checked address (url-policy.ts resolveTarget) and report the
// status or the error and the time taken. The connection goes to that address and no other: the request's
// `lookup` answers with it, so the host name is used only for the Host header and TLS (SNI and the
// certificate check), never resolved a second time. Redirects are not followed (a 3xx is a failed attempt),
// the answer's body is read up to a bound and dropped, and the whole attempt has one deadline.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Target } from './url-policy.js';

/** At most this much of a receiver's answer is read (it is not used; reading lets the connection close cleanly). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface AttemptResult {
  /** The receiver's status, or null when none came (see `error`). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** A `lookup` that answers every name with the one checked address (both callback shapes: single and `all`). */
function pinnedLookup(t: Target): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: t.address, family: t.family }]);
    else cb(null, t.address, t.family);
  }) as LookupFunction;
}

/** POST `body` with `headers` to the target within `timeoutMs`; never rejects. */
export function sendOnce(t: Target, body: string, headers: Record<string, string>, timeoutMs: number, now: () => number = Date.now): Promise<AttemptResult> {
  const start = now();
  const bytes = Buffer.from(body);
  return new Promise((resolve) => {
    let done = false;
    const finish = (statusCode: number | null, error: string | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ statusCode, error, durationMs: Math.max(0, now() - start) });
    };
    const mod = t.url.protocol === 'https:' ? https : http;
    const req = mod.request(t.url, {
      method: 'POST',
      lookup: pinnedLookup(t),
      family: t.family,
      agent: false,
      headers: { ...headers, 'content-length': String(bytes.length) },
    });
    const timer = setTimeout(() => {
      finish(null, `timeout after ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish(null, err.code ? `${err.code}: ${err.message}` : err.message));
    req.on('response', (res) => {
      let read = 0;
      res.on('data', (c: Buffer) => {
        read += c.length;
        if (read > MAX_RESPONSE_BYTES) {
          finish(res.statusCode ?? null, null);
          res.destroy();
        }
      });
      res.on('end', () => finish(res.statusCode ?? null, null));
      res.on('error', () => finish(res.statusCode ?? null, null));
    });
    req.end(bytes);
  });
}
