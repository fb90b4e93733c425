// Every row of the spec's error table (section 7), provoked for real over HTTP on the real endpoints
// where they exist: status, `{ error, code?, ...extras }` body and headers.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InkprepError } from '@inkprep/engine';
import { ROUTES, postImageRoute, type RouteDef } from '@inkprep/http';
import { form, get, post, startTestServer, tinyPng, type TestServer } from './harness.js';

const failing: RouteDef[] = [
  postImageRoute({ path: '/test/processing-failed', validate: () => ({}), handle: async () => { throw new InkprepError('processing_failed', 'Tracing failed on this input'); } }),
  postImageRoute({ path: '/test/bug', validate: () => ({}), handle: async () => { throw new TypeError('cannot read properties of undefined (reading "x") at /srv/secret/path.ts:12'); } }),
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, ...failing], config: { vectorizeMaxWaiting: 0 } });
});
afterAll(async () => {
  await t.close();
});

function expectBody(json: Record<string, unknown> | null, code: string, extras: Record<string, unknown> = {}): void {
  expect(json).not.toBeNull();
  expect(typeof json!.error).toBe('string');
  expect((json!.error as string).length).toBeGreaterThan(5);
  expect(json).toMatchObject({ code, ...extras });
}

describe('spec 7 error table', () => {
  it('400: image missing, unreadable, unsupported format, invalid value (field named)', async () => {
    const png = await tinyPng();
    expectBody((await post(t, '/api/v1/scan', form(null, { print_width_inches: '10' }))).json, 'missing_image');
    const unreadable = await post(t, '/api/v1/fix', form(new TextEncoder().encode('hello, not an image'), {}, 'a.png'));
    expect(unreadable.status).toBe(400);
    expectBody(unreadable.json, 'image_unreadable');
    const truncated = await post(t, '/api/v1/scan', form(png.subarray(0, 40)));
    expect(truncated.status).toBe(400);
    const tiff = await post(t, '/api/v1/scan', form(new Uint8Array([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0, 0, 0, 0, 0]), {}, 'a.tif'));
    expect(tiff.status).toBe(400);
    expectBody(tiff.json, 'unsupported_format');
    const webpToUpscale = await post(t, '/api/v1/upscale', form(new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0, 0]), {}, 'a.webp'));
    expect(webpToUpscale.status).toBe(400);
    expectBody(webpToUpscale.json, 'unsupported_format');
    for (const [path, field, value] of [
      ['/api/v1/fix', 'halftone_lpi', '70'], ['/api/v1/fix', 'alpha_threshold', '256'], ['/api/v1/fix', 'fix_trim', 'yes'],
      ['/api/v1/scan', 'print_width_inches', 'twelve'], ['/api/v1/vectorize', 'colors', '21'], ['/api/v1/upscale', 'scale', '3'],
    ] as const) {
      const r = await post(t, path, form(png, { [field]: value }));
      expect(r.status, `${path} ${field}`).toBe(400);
      expectBody(r.json, 'invalid_option', { field });
    }
  });

  it('401: key missing, invalid or revoked (POST too; nothing processed)', async () => {
    const png = await tinyPng();
    expectBody((await post(t, '/api/v1/scan', form(png), null)).json, 'unauthorized');
    const bad = await post(t, '/api/v1/scan', form(png), 'ink_live_0000000000000000000000000000000000000000');
    expect(bad.status).toBe(401);
    expectBody(bad.json, 'unauthorized');
  });

  it('402 plan_inactive with plan; 403 suspended', async () => {
    const png = await tinyPng();
    const { account, key } = await t.newAccount('states');
    await t.store.updateAccount(account.id, { status: 'lapsed' });
    const lapsed = await post(t, '/api/v1/scan', form(png), key);
    expect(lapsed.status).toBe(402);
    expectBody(lapsed.json, 'plan_inactive', { plan: 'business' });
    await t.store.updateAccount(account.id, { status: 'active', plan: 'free' });
    expectBody((await post(t, '/api/v1/fix', form(png), key)).json, 'plan_inactive', { plan: 'free' });
    await t.store.updateAccount(account.id, { plan: 'business', status: 'suspended' });
    const susp = await post(t, '/api/v1/vectorize', form(png), key);
    expect(susp.status).toBe(403);
    expectBody(susp.json, 'account_suspended');
    await t.store.updateAccount(account.id, { status: 'active' });
    expect((await post(t, '/api/v1/scan', form(png), key)).status).toBe(200);
  });

  it('413: vectorize over 25 MB (image_too_large) and upscale over maxPixels (with maxPixels, pixels)', async () => {
    const total = 25 * 1024 * 1024 + 1;
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: t.server.port, path: '/api/v1/vectorize', method: 'POST', headers: { 'x-api-key': t.key, 'content-type': 'multipart/form-data; boundary=Q', 'content-length': total + 1024 * 1024 } });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status.status).toBe(413);
    expectBody(JSON.parse(status.body) as Record<string, unknown>, 'image_too_large');
    await t.store.setSetting('upscale.budget4x', 100);
    const up = await post(t, '/api/v1/upscale', form(await tinyPng(), { scale: '4' }));
    expect(up.status).toBe(413);
    expectBody(up.json, 'image_too_large', { maxPixels: 400, pixels: 1024 });
    await t.store.setSetting('upscale.budget4x', null);
  });

  it('429: per-key daily limit, fair-use cap (Retry-After), vectorize line full (snapshot)', async () => {
    const png = await tinyPng();
    const { account, key } = await t.newAccount('limits');
    await t.store.updateAccount(account.id, { dailyLimit: 1, upscaleCap: 0 });
    expect((await post(t, '/api/v1/scan', form(png), key)).status).toBe(200);
    const daily = await post(t, '/api/v1/scan', form(png), key);
    expect(daily.status).toBe(429);
    expectBody(daily.json, 'daily_limit_exceeded', { limit: 1, used: 1 });
    await t.store.updateAccount(account.id, { dailyLimit: 100 });
    const fair = await post(t, '/api/v1/upscale', form(png, { scale: '2' }), key);
    expect(fair.status).toBe(429);
    expectBody(fair.json, 'fair_use_exceeded', { limit: 0, used: 0, retry_after_seconds: 86400 });
    expect(fair.headers.get('retry-after')).toBe('86400');
    // line full: hold the only slot (max_waiting 0) and ask the real endpoint
    const turn = await t.server.services.vectorizeQueue.acquire();
    try {
      const full = await post(t, '/api/v1/vectorize', form(png), key);
      expect(full.status).toBe(429);
      expectBody(full.json, 'queue_full', { queue: { converting: true, waiting: 0, max_waiting: 0 } });
      expect((await get(t, '/api/v1/vectorize', key)).json).toEqual({ queue: { converting: true, waiting: 0, max_waiting: 0 } });
    } finally {
      turn.release();
    }
  });

  it('500: processing failed (readable error) and unexpected errors (no internals leaked)', async () => {
    const png = await tinyPng();
    const pf = await post(t, '/test/processing-failed', form(png));
    expect(pf.status).toBe(500);
    expectBody(pf.json, 'processing_failed');
    expect(pf.json!.error).toBe('Tracing failed on this input');
    const bug = await post(t, '/test/bug', form(png));
    expect(bug.status).toBe(500);
    expectBody(bug.json, 'internal_error');
    expect(JSON.stringify(bug.json)).not.toMatch(/secret|TypeError|undefined/);
    expect(bug.json!.error).toContain(bug.headers.get('x-request-id')!);
    expect(t.logs.some((l) => l.level === 'error' && String(l.err).includes('/srv/secret/path.ts'))).toBe(true);
  });
});
