// Every response of the service that a test receives is checked against the OpenAPI document
// (test/http/openapi-check.ts). fetch is wrapped: a response that does not match makes that fetch reject,
// so the test fails with the mismatch. node:http requests (raw uploads in body, errors, vectorize tests) are
// checked on status and headers (their bodies belong to the test's stream) and a mismatch fails the run in
// the global teardown (test/openapi-global.ts), which also prints the coverage. Responses of test-only
// routes (`/test/...`), of stub servers and of the metrics listener (no X-Request-Id) are not the API's.
import http from 'node:http';
import { recordSeen as record } from './openapi-record.js';

const WRAPPED = Symbol.for('inkprep.openapi.wrapped');

type Check = typeof import('./http/openapi-check.js');
let checker: Promise<Check> | null = null;
const loadChecker = (): Promise<Check> => (checker ??= import('./http/openapi-check.js'));

/** Whether a response is the service's own (not a supplier stub, not a test-only route). */
function kind(pathname: string, headers: Headers): 'service' | 'test-only' | 'other' {
  if (pathname.startsWith('/test/')) return 'test-only';
  // Every reply of the API listener carries X-Request-Id (both transports, errors and 404s included); supplier
  // stubs and the separate metrics listener of INKPREP_METRICS_PORT (which answers 404 to /api/v1 paths) do not.
  if (headers.has('x-request-id')) return 'service';
  return 'other';
}

const g = globalThis as typeof globalThis & { [WRAPPED]?: true };
if (!g[WRAPPED]) {
  g[WRAPPED] = true;
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await realFetch(input, init);
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const k = kind(url.pathname, res.headers);
    if (k !== 'service') return res;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
    const body = json && method !== 'HEAD' ? await res.clone().text() : null;
    const { checkResponse } = await loadChecker();
    const r = checkResponse(method, url.pathname, res.status, res.headers, body);
    record({ via: 'fetch', op: r.op, status: r.status, errors: r.errors, path: url.pathname, id: res.headers.get('x-request-id') ?? '' });
    if (r.errors.length) throw new Error(`OpenAPI: ${method} ${url.pathname} -> ${res.status} does not match the document: ${r.errors.join('; ')}`);
    return res;
  }) as typeof fetch;

  // node:http: the body is read only by listening in on the chunks the test itself consumes (res.emit is
  // tapped; no listener is added, so the stream's flow is the test's); a JSON body read whole is checked,
  // otherwise status and headers.
  const wrap = <F extends typeof http.request>(orig: F): F => (function (this: unknown, ...args: unknown[]) {
    const req = (orig as (...a: unknown[]) => http.ClientRequest).apply(this, args);
    req.prependListener('response', (res: http.IncomingMessage) => {
      const url = new URL(req.path, 'http://x');
      const headers = new Headers();
      for (const [n, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(n, Array.isArray(v) ? v.join(', ') : v);
      const k = kind(url.pathname, headers);
      if (k !== 'service') return;
      const isJson = (headers.get('content-type') ?? '').startsWith('application/json') && req.method !== 'HEAD';
      const chunks: Buffer[] = [];
      let ended = false;
      let done = false;
      const emit = res.emit;
      const check = (): void => {
        if (done) return;
        done = true;
        const text = Buffer.concat(chunks).toString('utf8');
        const length = Number(headers.get('content-length') ?? NaN);
        const whole = isJson && ended && (Number.isNaN(length) || Buffer.byteLength(text) === length);
        void loadChecker().then(({ checkResponse }) => {
          const r = checkResponse(req.method, url.pathname, res.statusCode ?? 0, headers, whole ? text : null);
          record({ via: 'node:http', op: r.op, status: r.status, errors: r.errors, path: url.pathname, id: headers.get('x-request-id') ?? '', ...(whole ? { body: true } : {}) });
        });
      };
      res.emit = function (this: http.IncomingMessage, event: string | symbol, ...a: unknown[]): boolean {
        if (isJson && event === 'data') chunks.push(typeof a[0] === 'string' ? Buffer.from(a[0]) : (a[0] as Buffer));
        else if (event === 'end') ended = true;
        else if (event === 'close') check();
        const out = emit.call(this, event, ...a);
        if (event === 'end') check();
        return out;
      } as typeof res.emit;
    });
    return req;
  }) as F;
  http.request = wrap(http.request);
  http.get = wrap(http.get as typeof http.request) as unknown as typeof http.get;
}
