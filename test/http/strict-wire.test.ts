// Strict HTTP on both transports (issue 30), as a client on a raw socket sees it (node:net: fetch and curl
// never send these malformed requests): what each transport answers to a Content-Length that is not a
// number, negative, over the upload limit, sent twice, or sent with Transfer-Encoding; HEAD wherever GET
// works (same status and headers, no body bytes on the wire); `X-Content-Type-Options: nosniff` on every
// reply, errors included; and which server banner each transport sends. test/http runs this file once per
// transport. Where uWS's native parser refuses a request before the service sees it, what each build sends
// is asserted byte for byte (docs/guides/operating.md, "Malformed requests"), so a change fails here: the
// @btc-vision 20.57 build (glibc >= 2.38, what INKPREP_HTTP=auto picks; run it with `.ci/debian13 24`) writes
// its own HTML 400 naming the server, the trufflesuite 20.30 build (INKPREP_HTTP=uws on Node 20 with older
// glibc) closes without a response.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUws } from '../../adapter-http/src/transport/uws-load.js';
import { MIN_WAIT_MS, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

interface RawResponse {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
}

/** Send `request` on a new connection; resolve with every byte received once the server closes it. */
function exchangeUntilClose(request: string): Promise<{ bytes: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const s = net.connect(t.server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ bytes: Buffer.concat(chunks), closed: false });
    }, MIN_WAIT_MS);
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('error', () => {}); // a reset still ends in 'close'; what was received is what counts
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), closed: true });
    });
    s.write(request);
  });
}

/**
 * Send `requests` one after the other on one keep-alive connection, each once the previous response is
 * complete, and resolve with the responses. Any byte a response sends beyond its own (a HEAD body) lands in
 * front of the next status line and fails the parse. Not pipelined: uWS 20.30 closes a connection whose
 * next request arrives while an asynchronous response is still pending (docs/guides/operating.md).
 */
function sequential(requests: string[], headOf: boolean[] = []): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const s = net.connect(t.server.port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let sent = 1;
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no ${requests.length} responses within ${MIN_WAIT_MS} ms; got ${JSON.stringify(buf.toString('latin1'))}`));
    }, MIN_WAIT_MS);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const out = parseAll(buf, headOf);
      if (out.length >= requests.length) {
        clearTimeout(timer);
        s.destroy();
        resolve(out);
      } else if (out.length === sent) s.write(requests[sent++]!);
    });
    s.on('error', () => {});
    s.write(requests[0]!);
  });
}

/** Parse complete responses from `buf`; a response to HEAD (headOf[i]) has no body whatever its Content-Length. */
function parseAll(buf: Buffer, headOf: boolean[] = []): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', at);
    if (end < 0) return out;
    const lines = buf.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(lines[0]!)?.[1] ?? NaN);
    const headers = new Map<string, string[]>();
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      const k = l.slice(0, i).trim().toLowerCase();
      headers.set(k, [...(headers.get(k) ?? []), l.slice(i + 1).trim()]);
    }
    const length = headOf[out.length] ? 0 : Number(headers.get('content-length')?.[0] ?? 0);
    if (buf.length < end + 4 + length) return out;
    out.push({ status, headers, body: buf.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
}

const uws = (): boolean => t.server.transport === 'uws';
/** The uWS build this run's server is on: the one INKPREP_HTTP=uws (the test project's) loads, else null. */
const uwsBuild = (): 'btc-vision' | 'trufflesuite' | 'other' | null => {
  const l = loadUws('uws');
  if (!uws() || !l.ok) return null;
  if (/^@btc-vision\/uwebsockets\.js 20\.57\./.test(l.build)) return 'btc-vision';
  if (/^@trufflesuite\/uws-js-unofficial 20\.30\./.test(l.build)) return 'trufflesuite';
  return 'other';
};
/**
 * Everything the @btc-vision 20.57 build writes when its parser refuses a request, then it closes: no
 * Content-Length (the close ends the body), no nosniff, an HTML body naming the server.
 */
const UWS_BTC_PARSER_400 = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n<h1>Bad Request</h1><hr><i>uWebSockets/20 Server</i>';
const B = 'multipart/form-data; boundary=XX';
const post = (headers: string, body = ''): string => `POST /api/v1/scan HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.key}\r\nContent-Type: ${B}\r\n${headers}\r\n\r\n${body}`;

/** The one response of a connection the server closed after it: a JSON error with nosniff. */
function oneJsonError(r: { bytes: Buffer; closed: boolean }): { status: number; json: Record<string, unknown> } {
  expect(r.closed, 'the server closes the connection').toBe(true);
  const all = parseAll(r.bytes);
  expect(all, r.bytes.toString('latin1')).toHaveLength(1);
  const res = all[0]!;
  expect(res.headers.get('content-type')?.[0]).toBe('application/json; charset=utf-8');
  expect(res.headers.get('x-content-type-options')).toEqual(['nosniff']);
  // Nothing after the one reply: the body is complete and the connection ends there.
  expect(r.bytes.length).toBe(r.bytes.indexOf('\r\n\r\n') + 4 + res.body.length);
  return { status: res.status, json: JSON.parse(res.body.toString('utf8')) as Record<string, unknown> };
}

describe('malformed or unacceptable Content-Length, raw socket', () => {
  // [name, headers, node:http's answer, what the btc-vision build sends: its parser's HTML 400, or the
  // service's own JSON like node:http]; the trufflesuite build closes without a response on every one.
  const PARSER: [string, string, number, string, 'html 400' | 'json'][] = [
    ['Content-Length: abc', 'Content-Length: abc', 400, 'malformed_request', 'html 400'],
    ['Content-Length: -1', 'Content-Length: -1', 400, 'malformed_request', 'html 400'],
    ['Content-Length: 1,000,000,000 (over the upload limit)', 'Content-Length: 1000000000', 413, 'image_too_large', 'json'],
    ['Content-Length: 20 digits (over 64 bits)', 'Content-Length: 99999999999999999999', 413, 'image_too_large', 'html 400'],
    ['Content-Length with Transfer-Encoding: chunked', 'Content-Length: 5\r\nTransfer-Encoding: chunked', 400, 'malformed_request', 'html 400'],
  ];
  for (const [name, headers, status, code, btc] of PARSER) {
    const onBtc = btc === 'json' ? `the same on uWS (btc-vision)` : 'uWS (btc-vision) its own HTML 400';
    it(`${name}: node:http answers ${status} ${code} with a JSON body, ${onBtc}, then closes; uWS (trufflesuite) closes without a response`, async () => {
      const r = await exchangeUntilClose(post(headers, headers.includes('chunked') ? '0\r\n\r\n' : ''));
      const build = uwsBuild();
      if (build === 'trufflesuite') {
        expect(r.closed).toBe(true);
        expect(r.bytes.length, `uWS sent ${JSON.stringify(r.bytes.toString('latin1'))}`).toBe(0);
        return;
      }
      if (build === 'btc-vision' && btc === 'html 400') {
        expect(r.closed).toBe(true);
        expect(r.bytes.toString('latin1')).toBe(UWS_BTC_PARSER_400);
        return;
      }
      if (build === 'other') {
        // A build these lines were not written against: closed, and whatever it sent is a refusal, never a 2xx.
        expect(r.closed).toBe(true);
        for (const res of parseAll(r.bytes)) expect(res.status).toBeGreaterThanOrEqual(400);
        console.warn(`[strict-wire] ${(loadUws('uws') as { build: string }).build} answered ${name} with ${JSON.stringify(r.bytes.toString('latin1').slice(0, 200))}`);
        return;
      }
      const res = oneJsonError(r);
      expect(res.status).toBe(status);
      expect(res.json).toMatchObject({ code });
      expect(typeof res.json.error).toBe('string');
    });
  }

  it('Content-Length: 999,999,999 (over the 50 MB limit, under uWS\'s parser bound): 413 image_too_large with maxBytes and bytes on both, then closed', async () => {
    const res = oneJsonError(await exchangeUntilClose(post('Content-Length: 999999999')));
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'image_too_large', maxBytes: 50 * 1024 * 1024, bytes: 999_999_999 });
  });

  it('Content-Length sent twice: 400 malformed_request on both, then closed', async () => {
    const res = oneJsonError(await exchangeUntilClose(post('Content-Length: 5\r\nContent-Length: 6', 'hello')));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'malformed_request', error: 'Content-Length was sent more than once' });
  });

  it('the server keeps serving after each of them', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });
});

describe('HEAD wherever GET works', () => {
  const PATHS = [
    '/', '/web/app.js', '/web/favicon.svg', '/healthz', '/readyz', '/api/v1/openapi.json',
    '/api/v1/vectorize', '/api/v1/remove-bg', '/api/v1/upscale', '/api/v1/mockup/templates',
    '/api/v1/garments?q=tee', '/api/v1/garments/style?key=own:classic-tee', '/api/v1/mockup/preview?template=tee-black&size=400',
    '/api/v1/upscale/results/nothing', // 404 from the route
    '/api/v1/garments?q=a&q=b', // 400 from the route
  ];
  // Differ between two requests by design: the request id, the date, and the metered count.
  const VARYING = new Set(['x-request-id', 'date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-length']);

  for (const p of PATHS) {
    it(`HEAD ${p}: the GET's status and headers, Content-Length of the GET body, no body bytes`, async () => {
      const req = (m: string): string => `${m} ${p} HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.key}\r\n\r\n`;
      // One connection: had HEAD sent a body, the GET's status line would not come next.
      const [head, getRes] = await sequential([req('HEAD'), req('GET')], [true, false]);
      expect(head!.status).toBe(getRes!.status);
      expect(head!.body.length).toBe(0);
      // /readyz reports how long its checks took (ms, one decimal): its length may differ by a few digits.
      if (p === '/readyz') expect(Math.abs(Number(head!.headers.get('content-length')?.[0]) - getRes!.body.length)).toBeLessThanOrEqual(8);
      else expect(Number(head!.headers.get('content-length')?.[0])).toBe(getRes!.body.length);
      const strip = (h: Map<string, string[]>): Record<string, string[]> => Object.fromEntries([...h].filter(([k]) => !VARYING.has(k)).sort());
      expect(strip(head!.headers)).toEqual(strip(getRes!.headers));
    });
  }

  it('HEAD without a key on a keyed route: the GET\'s 401, no body', async () => {
    const [head, next] = await sequential(['HEAD /api/v1/vectorize HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], [true, false]);
    expect(next!.status).toBe(200);
    expect(head!.status).toBe(401);
    expect(head!.body.length).toBe(0);
  });

  it('HEAD on a POST-only path is 405 with Allow: POST; GET-only paths allow GET, HEAD', async () => {
    const head = await fetch(`${t.url}/api/v1/scan`, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    const del = await fetch(`${t.url}/healthz`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD');
    await del.arrayBuffer();
  });

  it('fetch HEAD sees the GET\'s content type and length', async () => {
    const head = await fetch(`${t.url}/api/v1/openapi.json`, { method: 'HEAD' });
    const get = await fetch(`${t.url}/api/v1/openapi.json`);
    const text = await get.text();
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  });
});

describe('X-Content-Type-Options and the server banner', () => {
  it('nosniff on every reply: 200, 400, 401, 404, 405, 413 and the page', async () => {
    const replies = await sequential([
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /api/v1/garments?q=a&q=b HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.key}\r\n\r\n`,
      'GET /api/v1/vectorize HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n',
      'DELETE /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 400, 401, 404, 405, 200]);
    for (const r of replies) expect(r.headers.get('x-content-type-options'), String(r.status)).toEqual(['nosniff']);
    const big = oneJsonError(await exchangeUntilClose(post('Content-Length: 999999999')));
    expect(big.status).toBe(413);
  });

  it('no Server or X-Powered-By header; node:http sends no banner at all, uWS (both builds) its fixed "uWebSockets: 20"', async () => {
    const [r] = await sequential(['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(r!.headers.has('server')).toBe(false);
    expect(r!.headers.has('x-powered-by')).toBe(false);
    // uWS writes this header in native code on every reply; the JS build has no option to drop it and a
    // header of the same name is added beside it, not instead (docs/guides/operating.md, "Server banner").
    const build = uwsBuild();
    if (build === 'btc-vision' || build === 'trufflesuite') expect(r!.headers.get('uwebsockets')).toEqual(['20']);
    else if (!uws()) expect(r!.headers.has('uwebsockets')).toBe(false);
    else console.warn(`[strict-wire] uWS banner of this build: ${JSON.stringify(r!.headers.get('uwebsockets') ?? null)}`);
    const standard = new Set(['content-type', 'content-length', 'x-request-id', 'x-content-type-options', 'date', 'connection', 'keep-alive', 'uwebsockets']);
    expect([...r!.headers.keys()].filter((k) => !standard.has(k))).toEqual([]);
  });
});

describe('HEAD /metrics on the API port (INKPREP_METRICS_TOKEN)', () => {
  it('answers like GET: 200 with the token, 401 without; no body', async () => {
    const m = await startTestServer({ config: { metricsToken: 'strict-wire-token' } });
    try {
      const ok = await fetch(`${m.url}/metrics`, { method: 'HEAD', headers: { authorization: 'Bearer strict-wire-token' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(Number(ok.headers.get('content-length'))).toBeGreaterThan(0);
      expect((await ok.arrayBuffer()).byteLength).toBe(0);
      const no = await fetch(`${m.url}/metrics`, { method: 'HEAD' });
      expect(no.status).toBe(401);
      expect(no.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await m.close();
    }
  });
});
