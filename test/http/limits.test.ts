// Metering over real HTTP: per-key daily limit and per-account fair-use caps over a rolling 24 h window
// (injected clock), Retry-After / retry_after_seconds, unmetered status reads, what counts, the race for
// the last unit (50 concurrent requests), the remove-bg monthly allowance, live settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, createApiKey, getRoute, json, postImageRoute, type RouteDef } from '@inkprep/http';
import { form, get, post, startTestServer, tinyPng, type TestServer } from './harness.js';

const HOUR = 3_600_000;
// Test routes on the real pipeline: op `info` metered like remove-bg and upscale (their own POST routes
// belong to other modules), and one whose handler fails.
const extra: RouteDef[] = [
  postImageRoute({ path: '/test/remove-bg', endpoint: 'remove-bg', op: 'info', meter: { fairUse: 'remove_bg' }, respond: (r) => json(r) }),
  postImageRoute({ path: '/test/upscale', endpoint: 'upscale', op: 'info', meter: { fairUse: 'upscale' }, respond: (r) => json(r) }),
  postImageRoute({ path: '/test/daily', endpoint: 'daily', op: 'info', respond: (r) => json(r) }),
  getRoute({ path: '/test/listing', meter: 'daily', handle: () => json({ ok: true }) }),
  postImageRoute({ path: '/test/fails', endpoint: 'fails', validate: () => ({}), handle: async () => { throw new Error('secret internal detail'); } }),
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, ...extra] });
});
afterAll(async () => {
  await t.close();
});

async function hit(path: string, key: string): Promise<Awaited<ReturnType<typeof post>>> {
  return post(t, path, form(await tinyPng()), key);
}

describe('per-key daily limit (rolling 24 h)', () => {
  it('429 daily_limit_exceeded with Retry-After when the oldest use leaves; frees up as uses age out', async () => {
    const { account, key } = await t.newAccount('daily');
    await t.store.updateAccount(account.id, { dailyLimit: 3 });
    const start = t.clock.now();
    for (let i = 0; i < 3; i++) {
      expect((await hit('/test/daily', key)).status).toBe(200);
      t.clock.advance(HOUR);
    }
    // now = start + 3 h; uses at start, +1 h, +2 h
    const r = await hit('/test/daily', key);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: 'daily_limit_exceeded', limit: 3, used: 3, retry_after_seconds: 21 * 3600 });
    expect(r.headers.get('retry-after')).toBe(String(21 * 3600));
    // unmetered status reads still work and do not count
    for (const p of ['/api/v1/vectorize', '/api/v1/remove-bg', '/api/v1/upscale']) expect((await get(t, p, key)).status).toBe(200);
    // not midnight: one millisecond before the first use is 24 h old, still refused
    t.clock.t = start + 24 * HOUR - 1;
    expect((await hit('/test/daily', key)).status).toBe(429);
    t.clock.t = start + 24 * HOUR;
    expect((await hit('/test/daily', key)).status).toBe(200);
    expect((await hit('/test/daily', key)).status).toBe(429);
    t.clock.t = start + 25 * HOUR;
    expect((await hit('/test/daily', key)).status).toBe(200);
  });

  it('metered GET routes count against the daily limit; status reads never do', async () => {
    const { account, key } = await t.newAccount('get-meter');
    await t.store.updateAccount(account.id, { dailyLimit: 2 });
    expect((await get(t, '/test/listing', key)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(t, '/api/v1/remove-bg', key)).status).toBe(200);
    expect((await get(t, '/test/listing', key)).status).toBe(200);
    const r = await get(t, '/test/listing', key);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: 'daily_limit_exceeded', limit: 2, used: 2 });
    expect((await get(t, '/api/v1/upscale', key)).status).toBe(200);
  });

  it('each key has its own daily count', async () => {
    const { account, key } = await t.newAccount('two-keys');
    await t.store.updateAccount(account.id, { dailyLimit: 1 });
    const other = await createApiKey(t.store, account.id, t.clock.now());
    expect((await hit('/test/daily', key)).status).toBe(200);
    expect((await hit('/test/daily', key)).status).toBe(429);
    expect((await hit('/test/daily', other.secret)).status).toBe(200);
  });

  it('rejected and failed requests do not count', async () => {
    const { account, key } = await t.newAccount('no-count');
    await t.store.updateAccount(account.id, { dailyLimit: 1 });
    expect((await post(t, '/test/daily', form(null), key)).status).toBe(400); // missing image
    expect((await post(t, '/test/daily', form(new TextEncoder().encode('not an image at all')), key)).status).toBe(400);
    const failed = await post(t, '/test/fails', form(await tinyPng()), key);
    expect(failed.status).toBe(500);
    expect(failed.json!.code).toBe('internal_error');
    expect(JSON.stringify(failed.json)).not.toContain('secret internal detail');
    expect(t.logs.some((l) => String(l.err ?? '').includes('secret internal detail'))).toBe(true);
    const u = await t.store.usage(account.id, t.clock.now(), 0);
    expect(u.perKey).toEqual([]);
    expect((await hit('/test/daily', key)).status).toBe(200);
  });

  it('the race for the last unit: 50 concurrent requests, exactly one admitted', async () => {
    const { account, key } = await t.newAccount('race');
    await t.store.updateAccount(account.id, { dailyLimit: 3 });
    expect((await hit('/test/daily', key)).status).toBe(200);
    expect((await hit('/test/daily', key)).status).toBe(200);
    const png = await tinyPng();
    const results = await Promise.all(Array.from({ length: 50 }, () => post(t, '/test/daily', form(png), key)));
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429 && r.json?.code === 'daily_limit_exceeded').length;
    expect(ok).toBe(1);
    expect(limited).toBe(49);
    const u = await t.store.usage(account.id, t.clock.now(), 0);
    expect(u.perKey[0]!.used).toBe(3);
  });
});

describe('fair-use caps (per account, rolling 24 h, across keys)', () => {
  it('429 fair_use_exceeded with limit, used, retry_after_seconds and Retry-After; GET remove-bg reports it', async () => {
    const { account, key } = await t.newAccount('fair');
    await t.store.updateAccount(account.id, { removeBgCap: 2 });
    const other = await createApiKey(t.store, account.id, t.clock.now());
    const start = t.clock.now();
    expect((await hit('/test/remove-bg', key)).status).toBe(200);
    t.clock.advance(2 * HOUR);
    expect((await hit('/test/remove-bg', other.secret)).status).toBe(200);
    t.clock.advance(HOUR);
    const r = await hit('/test/remove-bg', other.secret);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: 'fair_use_exceeded', limit: 2, used: 2, retry_after_seconds: 21 * 3600 });
    expect(typeof r.json!.error).toBe('string');
    expect(r.headers.get('retry-after')).toBe(String(21 * 3600));
    const status = await get(t, '/api/v1/remove-bg', key);
    expect(status.json).toEqual({ maxPixels: 25_000_000, fairUsePerDay: 2, fairUseUsed: 2, fairUseRemaining: 0 });
    // reading the status is unmetered: still 2 used
    expect((await get(t, '/api/v1/remove-bg', key)).json!.fairUseUsed).toBe(2);
    // upscale is a separate meter, uncapped here
    expect((await hit('/test/upscale', key)).status).toBe(200);
    expect((await get(t, '/api/v1/upscale', key)).json).toMatchObject({ fairUsePerDay: null, fairUseUsed: null, fairUseRemaining: null });
    t.clock.t = start + 24 * HOUR;
    expect((await get(t, '/api/v1/remove-bg', key)).json).toMatchObject({ fairUseUsed: 1, fairUseRemaining: 1 });
    expect((await hit('/test/remove-bg', key)).status).toBe(200);
  });

  it('upscale cap, and administrator accounts are uncapped (null fields)', async () => {
    const { account, key } = await t.newAccount('upcap');
    await t.store.updateAccount(account.id, { upscaleCap: 1 });
    expect((await get(t, '/api/v1/upscale', key)).json).toMatchObject({ fairUsePerDay: 1, fairUseUsed: 0, fairUseRemaining: 1 });
    expect((await hit('/test/upscale', key)).status).toBe(200);
    expect((await hit('/test/upscale', key)).json).toMatchObject({ code: 'fair_use_exceeded', limit: 1, used: 1 });
    await t.store.updateAccount(account.id, { admin: true });
    expect((await hit('/test/upscale', key)).status).toBe(200);
    expect((await get(t, '/api/v1/upscale', key)).json).toMatchObject({ fairUsePerDay: null, fairUseUsed: null, fairUseRemaining: null });
  });

  it('50 concurrent requests for the last fair-use unit: exactly one admitted', async () => {
    const { account, key } = await t.newAccount('fair-race');
    await t.store.updateAccount(account.id, { upscaleCap: 1 });
    const png = await tinyPng();
    const results = await Promise.all(Array.from({ length: 50 }, () => post(t, '/test/upscale', form(png), key)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.json?.code === 'fair_use_exceeded')).toHaveLength(49);
  });

  it('remove-bg monthly allowance: refused until the next calendar month', async () => {
    const { account, key } = await t.newAccount('monthly');
    await t.store.updateAccount(account.id, { removeBgMonthlyAllowance: 1 });
    t.clock.t = Date.UTC(2026, 2, 31, 23, 0, 0);
    expect((await hit('/test/remove-bg', key)).status).toBe(200);
    t.clock.t = Date.UTC(2026, 2, 31, 23, 30, 0);
    const r = await hit('/test/remove-bg', key);
    expect(r.json).toMatchObject({ code: 'fair_use_exceeded', limit: 1, used: 1, period: 'month', retry_after_seconds: 1800 });
    t.clock.t = Date.UTC(2026, 3, 1, 0, 0, 0);
    expect((await hit('/test/remove-bg', key)).status).toBe(200);
  });
});

describe('settings read at run time', () => {
  it('GET /api/v1/upscale reflects operator changes at once', async () => {
    expect((await get(t, '/api/v1/upscale')).json).toMatchObject({ maxPixels: 6_000_000, maxPixels4x: 3_000_000, budget: 1_500_000, budget4x: 750_000, autoShrink: true, shrinkAllowance: 4, scales: [2, 4] });
    await t.store.setSetting('upscale.budget', 2_000_000);
    await t.store.setSetting('upscale.budget4x', 500_000);
    expect((await get(t, '/api/v1/upscale')).json).toMatchObject({ maxPixels: 8_000_000, maxPixels4x: 2_000_000, budget: 2_000_000, budget4x: 500_000 });
    await t.store.setSetting('upscale.budget', null);
    await t.store.setSetting('upscale.budget4x', null);
  });
});
