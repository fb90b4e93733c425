// Request bodies over real HTTP: limits enforced while streaming (Content-Length refused before reading,
// a chunked body cut off at the limit), form caps, clients that abort mid-upload or mid-processing
// (server stays healthy, the task's signal fires, nothing leaks), 404/405.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, binary, getRoute, json, postImageRoute, type RouteDef } from '@inkprep/http';

const bigReply = new Uint8Array(6 * 1024 * 1024);
for (let i = 0; i < bigReply.length; i++) bigReply[i] = (i * 31 + (i >> 12)) & 255;
import { form, get, post, startTestServer, tinyPng, until, type TestServer } from './harness.js';

let signalFired = 0;
let entered = 0;
const extra: RouteDef[] = [
  postImageRoute({
    path: '/test/slow', endpoint: 'slow', maxBytes: 1024 * 1024, validate: () => ({}),
    handle: (call) => new Promise((_, reject) => {
      entered++;
      call.signal.addEventListener('abort', () => {
        signalFired++;
        reject(new Error('aborted by the client'));
      });
    }),
  }),
  getRoute({ path: '/test/big-reply', auth: false, handle: () => binary(bigReply, 'application/octet-stream') }),
  postImageRoute({ path: '/test/small', endpoint: 'small', op: 'info', maxBytes: 1024 * 1024, respond: (r) => json(r) }),
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, ...extra] });
});
afterAll(async () => {
  await t.close();
});

const MB = 1024 * 1024;
const HEAD = '--XX\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n';

/** Stream `total` bytes of file data with the given headers; resolves with the response or the socket error. */
function upload(path: string, total: number, headers: Record<string, string | number>): Promise<{ status: number | null; body: string; error: string | null }> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: t.server.port, path, method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'multipart/form-data; boundary=XX', ...headers } });
    let settled = false;
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => !settled && ((settled = true), resolve({ status: res.statusCode ?? null, body, error: null })));
      res.on('error', () => {});
    });
    req.on('error', (e: NodeJS.ErrnoException) => !settled && ((settled = true), resolve({ status: null, body: '', error: e.code ?? e.message })));
    req.write(HEAD);
    const chunk = Buffer.alloc(64 * 1024, 7);
    let sent = 0;
    const pump = (): void => {
      while (sent < total) {
        sent += chunk.length;
        if (req.destroyed) return;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end('\r\n--XX--\r\n');
    };
    pump();
  });
}

describe('body limits while streaming', () => {
  it('a Content-Length over the vectorize limit is refused with 413 image_too_large before the body is read', async () => {
    const before = t.server.services.metrics.bytesIn;
    const total = 26 * MB;
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1', port: t.server.port, path: '/api/v1/vectorize', method: 'POST',
        headers: { 'x-api-key': t.key, 'content-type': 'multipart/form-data; boundary=XX', 'content-length': total },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.flushHeaders(); // headers only: the answer must come without a single body byte
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'image_too_large', maxBytes: 25 * MB, bytes: total });
    expect(t.server.services.metrics.bytesIn - before).toBe(0);
    expect((await get(t, '/healthz', null)).status).toBe(200);
  });

  it('a chunked upload (no Content-Length) is cut off at the limit, not buffered whole', async () => {
    const before = t.server.services.metrics.bytesIn;
    const r = await upload('/test/small', 20 * MB, { 'transfer-encoding': 'chunked' });
    // Either the 413 arrives or the client sees the connection closed mid-upload; both are a cut-off.
    if (r.status !== null) {
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'image_too_large', maxBytes: MB });
    } else {
      expect(r.error).toMatch(/EPIPE|ECONNRESET|socket hang up/);
    }
    await until(() => t.server.inFlight() === 0, 5000, 'no request in flight');
    const read = t.server.services.metrics.bytesIn - before;
    expect(read).toBeGreaterThan(MB);
    expect(read).toBeLessThan(MB + 512 * 1024 + 256 * 1024);
    const log = t.logs.filter((l) => l.path === '/test/small').at(-1)!;
    expect(log.code).toBe('image_too_large');
    expect((await post(t, '/test/small', form(await tinyPng()))).status).toBe(200);
  });

  it('an upload within the limit passes (1 MB limit, 900 KB file)', async () => {
    const big = new Uint8Array(900 * 1024);
    big.set(await tinyPng());
    const r = await post(t, '/test/small', form(big));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ format: 'png', width: 32, height: 32 });
  });

  it('caps fields: too many -> 400, too long -> 400 naming the field; unknown fields are ignored', async () => {
    const png = await tinyPng();
    const many: Record<string, string> = {};
    for (let i = 0; i < 40; i++) many[`f${i}`] = '1';
    expect((await post(t, '/api/v1/scan', form(png, many))).json).toMatchObject({ code: 'invalid_option', field: 'form' });
    const long = await post(t, '/api/v1/scan', form(png, { print_width_inches: '1'.repeat(9000) }));
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ code: 'invalid_option', field: 'print_width_inches' });
    expect((await post(t, '/api/v1/scan', form(png, { unknown_field: 'whatever' }))).status).toBe(200);
  });

  it('a body that is not multipart gets 400 missing_image', async () => {
    const res = await fetch(t.url + '/api/v1/scan', { method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'missing_image' });
  });
});

describe('clients that leave', () => {
  it('aborting mid-upload leaves the server healthy with nothing in flight', async () => {
    const before = entered;
    await new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: t.server.port, path: '/test/slow', method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'multipart/form-data; boundary=XX', 'content-length': 500_000 } });
      req.on('error', () => resolve());
      req.write(HEAD);
      req.write(Buffer.alloc(100_000, 1), () => setTimeout(() => {
        req.destroy();
        resolve();
      }, 50));
    });
    await until(() => t.server.inFlight() === 0, 5000, 'the aborted upload to end');
    expect(entered).toBe(before); // the handler never ran
    expect(t.logs.filter((l) => l.path === '/test/slow').at(-1)).toMatchObject({ status: 499, code: 'aborted' });
    expect(t.engine.stats()).toMatchObject({ running: 0, queued: 0 });
    expect((await post(t, '/api/v1/scan', form(await tinyPng()))).status).toBe(200);
  });

  it('aborting while processing fires the task signal and releases the reservation', async () => {
    const { account, key } = await t.newAccount('leaver');
    const fired = signalFired;
    const ac = new AbortController();
    const p = fetch(t.url + '/test/slow', { method: 'POST', body: form(await tinyPng()), headers: { 'x-api-key': key }, signal: ac.signal }).catch((e: unknown) => e);
    await until(() => t.server.inFlight() === 1 && entered > 0 && signalFired === fired, 5000, 'the handler to start');
    await until(() => t.logs.length > 0 && entered > 0, 5000);
    ac.abort();
    await p;
    await until(() => signalFired === fired + 1, 5000, 'the abort signal');
    await until(() => t.server.inFlight() === 0, 5000, 'the request to end');
    const u = await t.store.usage(account.id, t.clock.now(), 0);
    expect(u.perKey).toEqual([]);
    expect((await get(t, '/healthz', null)).status).toBe(200);
  });
});

describe('large replies', () => {
  it('a 6 MB body is streamed with backpressure and arrives intact', async () => {
    const res = await fetch(t.url + '/test/big-reply');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(bigReply.length));
    const got = new Uint8Array(await res.arrayBuffer());
    expect(got.length).toBe(bigReply.length);
    expect(Buffer.compare(Buffer.from(got), Buffer.from(bigReply))).toBe(0);
  });
});

describe('routing', () => {
  it('GET /metrics is not public on the API port (404 without INKPREP_METRICS_TOKEN; the exposition is tested in metrics.test.ts)', async () => {
    const res = await fetch(t.url + '/metrics');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
  });

  it('404 not_found for unknown paths, 405 method_not_allowed with Allow for known ones', async () => {
    const nf = await get(t, '/api/v1/nothing-here');
    expect(nf.status).toBe(404);
    expect(nf.json).toMatchObject({ code: 'not_found' });
    const res = await fetch(t.url + '/api/v1/scan', { headers: { 'x-api-key': t.key } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ code: 'method_not_allowed' });
  });
});
