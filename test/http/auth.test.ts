// Authentication over real HTTP: both headers, 401 missing/invalid/revoked, 402 lapse -> reactivation
// with the same key, 402 for lower plans (with `plan`), 403 suspended, status reads need the key,
// lower plans cannot create keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '@inkprep/http';
import { get, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('API keys', () => {
  it('accepts the key in x-api-key and in Authorization: Bearer', async () => {
    expect((await get(t, '/api/v1/vectorize')).status).toBe(200);
    const bearer = await get(t, '/api/v1/vectorize', null, { authorization: `Bearer ${t.key}` });
    expect(bearer.status).toBe(200);
    expect(bearer.json).toEqual({ queue: { converting: false, waiting: 0, max_waiting: 8 } });
  });

  it('401 for a missing, malformed, unknown or revoked key, on every status read', async () => {
    for (const path of ['/api/v1/vectorize', '/api/v1/remove-bg', '/api/v1/upscale']) {
      const none = await get(t, path, null);
      expect(none.status).toBe(401);
      expect(none.json).toMatchObject({ code: 'unauthorized' });
      expect(typeof none.json!.error).toBe('string');
      expect((await get(t, path, 'ink_live_notarealkeynotarealkey')).status).toBe(401);
      expect((await get(t, path, null, { authorization: 'Basic abc' })).status).toBe(401);
    }
    const { account, key } = await t.newAccount('revoked');
    expect((await get(t, '/api/v1/upscale', key)).status).toBe(200);
    expect(await revokeApiKey(t.store, key, t.clock.now())).toMatchObject({ accountId: account.id });
    const r = await get(t, '/api/v1/upscale', key);
    expect(r.status).toBe(401);
    expect(r.json!.error).toMatch(/revoked/);
  });

  it('402 plan_inactive with plan when the plan lapses; reactivation revives the same key', async () => {
    const { account, key } = await t.newAccount('lapsing');
    await t.store.updateAccount(account.id, { status: 'lapsed' });
    const lapsed = await get(t, '/api/v1/vectorize', key);
    expect(lapsed.status).toBe(402);
    expect(lapsed.json).toMatchObject({ code: 'plan_inactive', plan: 'business' });
    await t.store.updateAccount(account.id, { status: 'active' });
    expect((await get(t, '/api/v1/vectorize', key)).status).toBe(200);
  });

  it('402 with the lower plan name after a downgrade; 200 again after the upgrade', async () => {
    const { account, key } = await t.newAccount('downgraded');
    await t.store.updateAccount(account.id, { plan: 'pro' });
    const r = await get(t, '/api/v1/remove-bg', key, {});
    expect(r.status).toBe(402);
    expect(r.json).toMatchObject({ code: 'plan_inactive', plan: 'pro' });
    await t.store.updateAccount(account.id, { plan: 'business' });
    expect((await get(t, '/api/v1/remove-bg', key)).status).toBe(200);
  });

  it('403 when the account is suspended (whatever the plan), 200 after unsuspending', async () => {
    const { account, key } = await t.newAccount('suspended');
    await t.store.updateAccount(account.id, { status: 'suspended' });
    const r = await get(t, '/api/v1/upscale', key, { authorization: `Bearer ${key}` });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 'account_suspended' });
    await t.store.updateAccount(account.id, { status: 'active' });
    expect((await get(t, '/api/v1/upscale', key)).status).toBe(200);
  });

  it('lower plans and inactive accounts cannot create keys', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const a = await t.store.createAccount({ name: plan, plan, now: t.clock.now() });
      await expect(createApiKey(t.store, a.id, t.clock.now())).rejects.toMatchObject({ code: 'plan_inactive', details: { plan } });
      expect(await t.store.listKeys(a.id)).toEqual([]);
    }
    const { account } = await t.newAccount('lapsed-keys');
    await t.store.updateAccount(account.id, { status: 'lapsed' });
    await expect(createApiKey(t.store, account.id, t.clock.now())).rejects.toMatchObject({ code: 'plan_inactive' });
  });

  it('keys are random, prefixed, stored only as a hash, and many per account', async () => {
    const { account, key } = await t.newAccount('many');
    const second = await createApiKey(t.store, account.id, t.clock.now());
    expect(key).toMatch(/^ink_live_[0-9A-Za-z]{40}$/);
    expect(second.secret).not.toBe(key);
    const keys = await t.store.listKeys(account.id);
    expect(keys).toHaveLength(2);
    expect(JSON.stringify(keys)).not.toContain(key.slice(9));
    expect((await get(t, '/api/v1/upscale', second.secret)).status).toBe(200);
    expect((await get(t, '/api/v1/upscale', key)).status).toBe(200);
  });

  it('GET /healthz needs no key; logs name the account and request id, never the key', async () => {
    const h = await get(t, '/healthz', null);
    expect(h.status).toBe(200);
    expect(h.json).toEqual({ status: 'ok' });
    expect(h.headers.get('x-request-id')).toBeTruthy();
    await get(t, '/api/v1/upscale');
    const text = JSON.stringify(t.logs);
    expect(text).not.toContain(t.key);
    expect(t.logs.some((l) => l.msg === 'request' && l.account === t.account.id && typeof l.req === 'string')).toBe(true);
  });
});

describe('stores without a synchronous key lookup (e.g. PostgreSQL)', () => {
  it('authenticate the status reads through the async path with the same results', async () => {
    const { startServer, defaultConfig, openStore, createApiKey: mk } = await import('@inkprep/http');
    const full = openStore({ dataDir: ':memory:' });
    const { findKeyByHashSync: _sync, ...asyncOnly } = full;
    const account = await asyncOnly.createAccount({ name: 'pg-like', plan: 'business', now: Date.now() });
    const { secret } = await mk(asyncOnly, account.id, Date.now());
    const server = await startServer({ config: defaultConfig({ dataDir: ':memory:', threads: 1 }), store: asyncOnly, engine: t.engine });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(base + '/api/v1/vectorize', { headers: { 'x-api-key': secret } })).status).toBe(200);
      expect((await fetch(base + '/api/v1/vectorize')).status).toBe(401);
      await asyncOnly.updateAccount(account.id, { status: 'lapsed' });
      const r = await fetch(base + '/api/v1/upscale', { headers: { authorization: `Bearer ${secret}` } });
      expect(r.status).toBe(402);
      expect(await r.json()).toMatchObject({ code: 'plan_inactive', plan: 'business' });
    } finally {
      await server.close(2000);
    }
  });
});
