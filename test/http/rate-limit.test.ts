// X-RateLimit-* headers over HTTP (issue 17; docs/artwork-api-v1.md 8.1): on every metered 2xx the binding
// limit, what is left after this call, seconds until that grows, and which limit it is; on the limit 429s
// the same headers agree with the body (limit, retry_after_seconds) and Retry-After. Unmetered reads and
// refused requests carry none. (Both stores compute the binding meter alike: test/scale/store-contract.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, get, post, startTestServer, tinyPng, type TestServer } from './harness.js';

const DAY_S = 86_400;
let t: TestServer;
let png: Uint8Array;
beforeAll(async () => {
  t = await startTestServer();
  png = await tinyPng();
});
afterAll(async () => {
  await t.close();
});

function rateLimit(h: Headers): Record<string, string | null> {
  return {
    limit: h.get('x-ratelimit-limit'), remaining: h.get('x-ratelimit-remaining'), reset: h.get('x-ratelimit-reset'), policy: h.get('x-ratelimit-policy'),
  };
}

/** The 429's headers against its own body: the same limit, nothing left, the same wait as Retry-After. */
function expectConsistent429(r: { status: number; json: Record<string, unknown> | null; headers: Headers }, policy: string): void {
  expect(r.status).toBe(429);
  expect(rateLimit(r.headers)).toEqual({ limit: String(r.json!.limit), remaining: '0', reset: String(r.json!.retry_after_seconds), policy });
  expect(r.headers.get('retry-after')).toBe(String(r.json!.retry_after_seconds));
}

describe('X-RateLimit-* headers', () => {
  it('per-key daily limit: counts down on each 2xx, resets when the oldest use leaves the 24 h window, agrees with the 429', async () => {
    const { account, key } = await t.newAccount('daily');
    await t.store.updateAccount(account.id, { dailyLimit: 3 });
    const a = await post(t, '/api/v1/scan', form(png), key);
    expect(a.status).toBe(200);
    expect(rateLimit(a.headers)).toEqual({ limit: '3', remaining: '2', reset: String(DAY_S), policy: 'daily' });
    t.clock.advance(3_600_000);
    const b = await post(t, '/api/v1/fix', form(png), key);
    expect(rateLimit(b.headers)).toEqual({ limit: '3', remaining: '1', reset: String(DAY_S - 3600), policy: 'daily' });
    t.clock.advance(1_800_000);
    const c = await get(t, '/api/v1/mockup/templates', key); // metered GETs count too
    expect(c.status).toBe(200);
    expect(rateLimit(c.headers)).toEqual({ limit: '3', remaining: '0', reset: String(DAY_S - 5400), policy: 'daily' });
    const refused = await post(t, '/api/v1/scan', form(png), key);
    expect(refused.json).toMatchObject({ code: 'daily_limit_exceeded', limit: 3, used: 3, retry_after_seconds: DAY_S - 5400 });
    expectConsistent429(refused, 'daily');
    // Once the oldest use has left the window the next call is admitted again.
    t.clock.advance((DAY_S - 5400) * 1000);
    expect(rateLimit((await post(t, '/api/v1/scan', form(png), key)).headers)).toMatchObject({ remaining: '0', reset: String(3600), policy: 'daily' });
  });

  it('fair use: the account cap shows when it binds (fewer left than the key limit) and agrees with its 429', async () => {
    const { account, key } = await t.newAccount('fair');
    await t.store.updateAccount(account.id, { removeBgCap: 2 });
    const a = await post(t, '/api/v1/remove-bg', form(png), key);
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(rateLimit(a.headers)).toEqual({ limit: '2', remaining: '1', reset: String(DAY_S), policy: 'fair_use' });
    t.clock.advance(60_000);
    expect(rateLimit((await post(t, '/api/v1/remove-bg', form(png), key)).headers)).toEqual({ limit: '2', remaining: '0', reset: String(DAY_S - 60), policy: 'fair_use' });
    // Other endpoints of the same key are bound by the daily limit only.
    expect(rateLimit((await post(t, '/api/v1/scan', form(png), key)).headers)).toEqual({ limit: '999999', remaining: '999996', reset: String(DAY_S - 60), policy: 'daily' });
    const refused = await post(t, '/api/v1/remove-bg', form(png), key);
    expect(refused.json).toMatchObject({ code: 'fair_use_exceeded', limit: 2, used: 2, retry_after_seconds: DAY_S - 60 });
    expectConsistent429(refused, 'fair_use');
    // Uncapped (null) accounts: the daily limit binds.
    const other = await t.newAccount('uncapped');
    expect(rateLimit((await post(t, '/api/v1/remove-bg', form(png), other.key)).headers)).toMatchObject({ limit: '999999', remaining: '999998', policy: 'daily' });
  });

  it('the remove-bg monthly allowance resets at the next UTC month; its 429 agrees', async () => {
    const { account, key } = await t.newAccount('monthly');
    await t.store.updateAccount(account.id, { removeBgMonthlyAllowance: 1, removeBgCap: 50 });
    const now = t.clock.now();
    const d = new Date(now);
    const toNextMonth = Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - now) / 1000);
    const a = await post(t, '/api/v1/remove-bg', form(png), key);
    expect(rateLimit(a.headers)).toEqual({ limit: '1', remaining: '0', reset: String(toNextMonth), policy: 'monthly' });
    const refused = await post(t, '/api/v1/remove-bg', form(png), key);
    expect(refused.json).toMatchObject({ code: 'fair_use_exceeded', period: 'month', limit: 1, retry_after_seconds: toNextMonth });
    expectConsistent429(refused, 'monthly');
  });

  it('none on unmetered status reads, health, and requests refused before metering', async () => {
    const { key } = await t.newAccount('none');
    for (const path of ['/api/v1/vectorize', '/api/v1/remove-bg', '/api/v1/upscale']) {
      const r = await get(t, path, key);
      expect(r.status).toBe(200);
      expect(rateLimit(r.headers), path).toEqual({ limit: null, remaining: null, reset: null, policy: null });
    }
    expect((await get(t, '/healthz', null)).headers.get('x-ratelimit-limit')).toBeNull();
    const bad = await post(t, '/api/v1/vectorize', form(png, { colors: '' }), key);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
