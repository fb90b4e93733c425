// POST/GET /api/v1/vectorize over real HTTP: SVG with correct stat headers, field validation, the
// one-at-a-time line (queue full under a burst, snapshot consistency, a waiting client that disconnects
// leaves at once), and other endpoints running meanwhile.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, json, postImageRoute, type RouteDef } from '@inkprep/http';
import { form, get, post, startTestServer, tinyPng, until, type TestServer } from './harness.js';

// A conversion the test holds open: it takes the same line as POST /api/v1/vectorize (app.vectorizeQueue).
let gate: { promise: Promise<void>; open(): void } = makeGate();
let converting = 0;
function makeGate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}
const held: RouteDef = postImageRoute({
  path: '/test/held-conversion', endpoint: 'vectorize', queue: 'vectorize', validate: () => ({}),
  handle: async (call) => {
    converting++;
    try {
      await Promise.race([gate.promise, new Promise((_, rej) => call.signal.addEventListener('abort', () => rej(new Error('left'))))]);
    } finally {
      converting--;
    }
    return json({ queueMs: call.queueMs });
  },
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, held], config: { vectorizeMaxWaiting: 2, threads: 2 } });
});
afterAll(async () => {
  gate.open();
  await t.close();
});

describe('POST /api/v1/vectorize', () => {
  it('returns the SVG with X-Paths, X-Colors-Used, X-Trace-Ms, X-Queue-Ms', async () => {
    const r = await post(t, '/api/v1/vectorize', form(await tinyPng(), { colors: '2' }));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const svg = Buffer.from(r.bytes).toString('utf8');
    expect(svg).toMatch(/^(<\?xml[^>]*>\s*)?<svg[\s>]/);
    // one outline per moveto of each <path>, one per recognised <circle>/<ellipse>/<rect>
    const paths = [...svg.matchAll(/<(path|circle|ellipse|rect)\b[^>]*?(?: d="([^"]*)")?\/>/g)].reduce((n, m) => n + (m[1] === 'path' ? (m[2]!.match(/[Mm]/g) ?? []).length : 1), 0);
    expect(Number(r.headers.get('x-paths'))).toBe(paths);
    expect(paths).toBeGreaterThan(0);
    expect(Number(r.headers.get('x-colors-used'))).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(r.headers.get('x-trace-ms')))).toBe(true);
    expect(r.headers.get('x-queue-ms')).toBe('0');
  });

  it('validates every field and names it', async () => {
    const png = await tinyPng();
    const bad: [string, string][] = [
      ['colors', '21'], ['colors', '0'], ['colors', 'many'], ['detail', 'ultra'], ['shape_style', 'flat'],
      ['speck_size', '17'], ['speck_size', '-1'], ['edge_cleanup', 'yes'], ['smooth_bands', '1'], ['gradients', 'maybe'],
      ['print_width_inches', 'wide'],
    ];
    for (const [field, value] of bad) {
      const r = await post(t, '/api/v1/vectorize', form(png, { [field]: value }));
      expect(r.status, `${field}=${value}`).toBe(400);
      expect(r.json).toMatchObject({ code: 'invalid_option', field });
    }
    const gif = new TextEncoder().encode('GIF89a\x01\x00\x01\x00\x00\x00\x00;');
    expect((await post(t, '/api/v1/vectorize', form(gif, {}, 'a.gif'))).json).toMatchObject({ code: 'unsupported_format' });
  });
});

/** Start a POST whose client can be cut; resolves when the response (or error) comes. */
function rawPost(path: string, body: Buffer, boundary: string): { done: Promise<number | null>; destroy(): void } {
  const req = http.request({ host: '127.0.0.1', port: t.server.port, path, method: 'POST', headers: { 'x-api-key': t.key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } });
  const done = new Promise<number | null>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? null));
    });
    req.on('error', () => resolve(null));
  });
  req.end(body);
  return { done, destroy: () => req.destroy() };
}

async function multipartBody(): Promise<{ body: Buffer; boundary: string }> {
  const boundary = 'B0undary';
  const png = Buffer.from(await tinyPng());
  return {
    boundary,
    body: Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`), png, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

describe('the vectorize line', () => {
  it('queue full under a burst, a consistent live snapshot, and other endpoints keep running', async () => {
    gate = makeGate();
    const png = await tinyPng();
    const usedBefore = (await t.store.usage(t.account.id, t.clock.now(), 0)).perEndpoint.vectorize ?? 0;
    const burst = Array.from({ length: 6 }, () => post(t, '/test/held-conversion', form(png)));
    await until(async () => (await t.server.services.vectorizeQueue.snapshot()).queue.waiting === 2 && converting === 1, 10_000, 'one converting, two waiting');
    const snap = await get(t, '/api/v1/vectorize');
    expect(snap.json).toEqual({ queue: { converting: true, waiting: 2, max_waiting: 2 } });
    // the real endpoint shares the line: full now
    const full = await post(t, '/api/v1/vectorize', form(png));
    expect(full.status).toBe(429);
    expect(full.json).toMatchObject({ code: 'queue_full', queue: { converting: true, waiting: 2, max_waiting: 2 } });
    // other endpoints are not stalled by the conversion
    expect((await post(t, '/api/v1/scan', form(png))).status).toBe(200);
    gate.open();
    const results = await Promise.all(burst);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    // the two that waited in line report their wait (X-Queue-Ms comes from the same measure)
    const waited = results.filter((r) => r.status === 200).map((r) => Number(r.json!.queueMs));
    expect(waited.filter((ms) => ms > 0)).toHaveLength(2);
    for (const r of results.filter((x) => x.status === 429)) {
      expect(r.json).toMatchObject({ code: 'queue_full', queue: { converting: true, waiting: 2, max_waiting: 2 } });
    }
    // queue_full refusals do not count against the daily limit; the three conversions do
    const u = await t.store.usage(t.account.id, t.clock.now(), 0);
    expect(u.perEndpoint.vectorize).toBe(usedBefore + 3);
    expect((await get(t, '/api/v1/vectorize')).json).toEqual({ queue: { converting: false, waiting: 0, max_waiting: 2 } });
  });

  it('a waiting client that disconnects leaves the line at once', async () => {
    gate = makeGate();
    const { body, boundary } = await multipartBody();
    const first = rawPost('/test/held-conversion', body, boundary);
    await until(() => converting === 1, 10_000, 'the first conversion');
    const waiter = rawPost('/test/held-conversion', body, boundary);
    const second = rawPost('/test/held-conversion', body, boundary);
    await until(async () => (await t.server.services.vectorizeQueue.snapshot()).queue.waiting === 2, 10_000, 'two waiting');
    waiter.destroy();
    await until(async () => (await t.server.services.vectorizeQueue.snapshot()).queue.waiting === 1, 5_000, 'the waiter to leave');
    expect((await get(t, '/api/v1/vectorize')).json).toEqual({ queue: { converting: true, waiting: 1, max_waiting: 2 } });
    gate.open();
    expect(await first.done).toBe(200);
    expect(await second.done).toBe(200);
    expect(await waiter.done).toBe(null);
    await until(() => t.server.inFlight() === 0, 5_000, 'nothing in flight');
    expect((await t.server.services.vectorizeQueue.snapshot()).queue).toEqual({ converting: false, waiting: 0, max_waiting: 2 });
  });

  it('a conversion that outlasts uWS idle timer (10 s) still gets its reply (no server timeout < 120 s)', async () => {
    gate = makeGate();
    const started = Date.now();
    const p = post(t, '/test/held-conversion', form(await tinyPng()));
    await until(() => converting === 1, 10_000, 'the conversion');
    setTimeout(() => gate.open(), 11_500);
    const r = await p;
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
  });

  it('the converting client disconnecting frees the line for the next one', async () => {
    gate = makeGate();
    const { body, boundary } = await multipartBody();
    const first = rawPost('/test/held-conversion', body, boundary);
    await until(() => converting === 1, 10_000, 'the first conversion');
    const next = rawPost('/test/held-conversion', body, boundary);
    await until(async () => (await t.server.services.vectorizeQueue.snapshot()).queue.waiting === 1, 10_000, 'one waiting');
    first.destroy();
    await until(async () => (await t.server.services.vectorizeQueue.snapshot()).queue.waiting === 0 && converting === 1, 5_000, 'the next to start');
    gate.open();
    expect(await next.done).toBe(200);
  });
});
