// The Store contract, run against every implementation: embedded SQLite and PostgreSQL.
// PostgreSQL runs when a server answers (see pg.ts); otherwise its suite is skipped with the reason printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WINDOW_MS, openPostgresStore, openSqliteStore, migratePostgres, PG_MIGRATIONS, type Store } from '@inkprep/http';
import { createTestDatabase, pgUnavailableReason } from './pg.js';

const T0 = Date.UTC(2026, 4, 1, 10);
const pgReason = await pgUnavailableReason();
if (pgReason) console.warn(`[store-contract] PostgreSQL suite skipped: ${pgReason}`);

interface Impl {
  name: string;
  skip: boolean;
  open(): Promise<Store>;
  cleanup?(): Promise<void>;
}

let pgDb: { url: string; drop: () => Promise<void> } | null = null;
const impls: Impl[] = [
  { name: 'sqlite', skip: false, open: async () => openSqliteStore(':memory:') },
  {
    name: 'postgres',
    skip: pgReason !== null,
    async open() {
      // Each test gets a clean slate inside the shared throwaway database.
      const store = await openPostgresStore({ connectionString: pgDb!.url, max: 20 });
      await store.pool.query('TRUNCATE usage_events, key_usage, fair_usage, usage_instances, api_keys, accounts, settings RESTART IDENTITY CASCADE');
      return store;
    },
  },
];

beforeAll(async () => {
  if (!pgReason) pgDb = await createTestDatabase();
});
afterAll(async () => {
  await pgDb?.drop();
});

let keyN = 0;
async function accountWithKey(store: Store, plan: 'business' | 'pro' = 'business'): Promise<{ accountId: string; keyId: string; hash: string }> {
  const a = await store.createAccount({ name: 'a', plan, now: T0 });
  const hash = (++keyN).toString(16).padStart(64, '0');
  const k = await store.insertKey({ accountId: a.id, hash, prefix: 'ink_live_abcd', now: T0 });
  return { accountId: a.id, keyId: k.id, hash };
}

for (const impl of impls) {
  describe.skipIf(impl.skip)(`Store contract: ${impl.name}`, () => {
    it('accounts: create with defaults, get, list, patch, unknown id', async () => {
      const store = await impl.open();
      const a = await store.createAccount({ name: 'Shop', plan: 'business', admin: true, now: T0 });
      expect(a).toMatchObject({ name: 'Shop', plan: 'business', status: 'active', admin: true, dailyLimit: 999_999, removeBgCap: null, upscaleCap: null, removeBgMonthlyAllowance: null, createdAt: T0 });
      expect(a.id).toMatch(/^acc_[0-9a-f]{16}$/);
      expect(await store.getAccount(a.id)).toEqual(a);
      expect(await store.countAccounts()).toBe(1);
      const b = await store.updateAccount(a.id, { status: 'suspended', removeBgCap: 5, upscaleCap: null, dailyLimit: 10, admin: false });
      expect(b).toMatchObject({ status: 'suspended', removeBgCap: 5, upscaleCap: null, dailyLimit: 10, admin: false });
      expect((await store.listAccounts()).map((x) => x.id)).toEqual([a.id]);
      await expect(store.updateAccount('acc_0000000000000000', { plan: 'pro' })).rejects.toMatchObject({ code: 'not_found' });
      expect(await store.getAccount('acc_nope')).toBeNull();
      await store.close();
    });

    it('keys: stored by hash, found with live account state, revoked idempotently', async () => {
      const store = await impl.open();
      const { accountId, keyId, hash } = await accountWithKey(store);
      const found = await store.findKeyByHash(hash);
      expect(found).toMatchObject({ key: { id: keyId, accountId, prefix: 'ink_live_abcd', revokedAt: null }, account: { id: accountId, status: 'active' }, hash });
      await store.updateAccount(accountId, { status: 'lapsed' });
      expect((await store.findKeyByHash(hash))!.account.status).toBe('lapsed');
      expect(await store.findKeyByHash('f'.repeat(64))).toBeNull();
      const r1 = await store.revokeKey(keyId, T0 + 5);
      const r2 = await store.revokeKey(keyId, T0 + 99);
      expect(r1!.revokedAt).toBe(T0 + 5);
      expect(r2!.revokedAt).toBe(T0 + 5);
      expect(await store.revokeKey('key_unknown', T0)).toBeNull();
      expect((await store.listKeys(accountId)).map((k) => k.id)).toEqual([keyId]);
      expect(await store.getKey(keyId)).toMatchObject({ id: keyId, revokedAt: T0 + 5 });
      await store.close();
    });

    it('reserve: rolling 24 h window per key, retry time of the oldest use, release', async () => {
      const store = await impl.open();
      const { accountId, keyId } = await accountWithKey(store);
      const base = { accountId, keyId, endpoint: 'scan', fairUse: null, dailyLimit: 2, fairUseCap: null, monthly: null } as const;
      const first = await store.reserve({ ...base, now: T0 });
      expect(first.ok).toBe(true);
      expect((await store.reserve({ ...base, now: T0 + 1000 })).ok).toBe(true);
      expect(await store.reserve({ ...base, now: T0 + 2000 })).toEqual({ ok: false, limit: 'daily', max: 2, used: 2, retryAfterMs: WINDOW_MS - 2000 });
      // The oldest use leaves the window exactly 24 h later (not at midnight).
      expect((await store.reserve({ ...base, now: T0 + WINDOW_MS + 1 })).ok).toBe(true);
      if (first.ok) await store.release(first.eventId);
      const u = await store.usage(accountId, T0 + WINDOW_MS + 2, T0);
      expect(u.perKey).toEqual([{ keyId, used: 2 }]);
      expect(u.perEndpoint).toEqual({ scan: 2 });
      await store.close();
    });

    it('reserve: fair-use cap across keys of the account, monthly allowance, admin-free counting', async () => {
      const store = await impl.open();
      const { accountId, keyId } = await accountWithKey(store);
      const k2 = await store.insertKey({ accountId, hash: 'e'.repeat(60) + (++keyN).toString(16).padStart(4, '0'), prefix: 'ink_live_efgh', now: T0 });
      const fair = { accountId, endpoint: 'upscale', fairUse: 'upscale', dailyLimit: 100, fairUseCap: 2, monthly: null } as const;
      expect((await store.reserve({ ...fair, keyId, now: T0 })).ok).toBe(true);
      expect((await store.reserve({ ...fair, keyId: k2.id, now: T0 + 10 })).ok).toBe(true);
      expect(await store.reserve({ ...fair, keyId: k2.id, now: T0 + 20 })).toEqual({ ok: false, limit: 'fair_use', max: 2, used: 2, retryAfterMs: WINDOW_MS - 20 });
      expect(await store.countFairUse(accountId, 'upscale', T0 - 1)).toBe(2);
      const monthly = { limit: 1, monthStart: T0 - 1000, nextMonthStart: T0 + 10 * WINDOW_MS };
      const rb = { accountId, keyId, endpoint: 'remove-bg', fairUse: 'remove_bg', dailyLimit: 100, fairUseCap: null, monthly } as const;
      expect((await store.reserve({ ...rb, now: T0 })).ok).toBe(true);
      expect(await store.reserve({ ...rb, now: T0 + 5 })).toEqual({ ok: false, limit: 'monthly', max: 1, used: 1, retryAfterMs: 10 * WINDOW_MS - 5 });
      const u = await store.usage(accountId, T0 + 30, T0 - 1000);
      expect(u.fairUse).toEqual({ remove_bg: 1, upscale: 2 });
      expect(u.removeBgThisMonth).toBe(1);
      expect(await store.pruneUsage(T0 + 1)).toBe(2);
      await store.close();
    });

    it('reserve: 50 concurrent requests for the last 3 units admit exactly 3', async () => {
      const store = await impl.open();
      const { accountId, keyId } = await accountWithKey(store);
      const req = { accountId, keyId, endpoint: 'remove-bg', fairUse: 'remove_bg', dailyLimit: 1000, fairUseCap: 3, monthly: null, now: T0 } as const;
      const results = await Promise.all(Array.from({ length: 50 }, () => store.reserve(req)));
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      await store.close();
    });

    it('settings: JSON values, overwrite, delete with null, list', async () => {
      const store = await impl.open();
      expect(await store.getSetting('upscale.budget')).toBeNull();
      await store.setSetting('upscale.budget', 1_750_000);
      await store.setSetting('upscale.budget', 2_000_000);
      await store.setSetting('x', { a: [1, 'b'] });
      expect(await store.getSetting('upscale.budget')).toBe(2_000_000);
      expect(await store.listSettings()).toEqual({ 'upscale.budget': 2_000_000, x: { a: [1, 'b'] } });
      await store.setSetting('x', null);
      expect(await store.getSetting('x')).toBeNull();
      await store.close();
    });
  });
}

describe.skipIf(pgReason !== null)('PostgreSQL key cache', () => {
  it('a change made through another connection reaches a cached lookup (LISTEN/NOTIFY invalidation)', async () => {
    const a = await openPostgresStore({ connectionString: pgDb!.url });
    const b = await openPostgresStore({ connectionString: pgDb!.url, cacheKeys: false });
    const { accountId, keyId, hash } = await accountWithKey(b);
    expect((await a.findKeyByHash(hash))!.account.status).toBe('active');
    expect((await a.findKeyByHash(hash))!.account.status).toBe('active');
    await b.updateAccount(accountId, { status: 'suspended' });
    const seen = async (want: (x: Awaited<ReturnType<Store['findKeyByHash']>>) => boolean): Promise<boolean> => {
      for (let i = 0; i < 100; i++) {
        if (want(await a.findKeyByHash(hash))) return true;
        await new Promise((r) => setTimeout(r, 20));
      }
      return false;
    };
    expect(await seen((x) => x!.account.status === 'suspended')).toBe(true);
    await b.revokeKey(keyId, T0 + 1);
    expect(await seen((x) => x!.key.revokedAt === T0 + 1)).toBe(true);
    await a.close();
    await b.close();
  });
});

describe.skipIf(pgReason !== null)('PostgreSQL migrations', () => {
  it('are versioned and idempotent, also when several processes start at once', async () => {
    const store = await openPostgresStore({ connectionString: pgDb!.url });
    const again = await Promise.all([migratePostgres(store.pool), migratePostgres(store.pool), migratePostgres(store.pool)]);
    expect(again).toEqual([PG_MIGRATIONS.length, PG_MIGRATIONS.length, PG_MIGRATIONS.length]);
    const { rows } = await store.pool.query<{ version: number }>('SELECT version FROM inkprep_schema ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
    await store.close();
  });
});
