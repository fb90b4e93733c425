// The SQLite store behind the Store interface: created on first start with WAL and versioned migrations,
// persists across reopen, atomic reservations (rolling window, retry time of the k-th oldest use when a
// limit was lowered), release, prune, settings. A PostgreSQL implementation must pass the same checks.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, WINDOW_MS, monthBounds, openConfiguredStore, openStore, storeConfigFromEnv, type Store } from '@inkprep/http';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'inkprep-store-'));
  dirs.push(d);
  return d;
}

const T0 = Date.UTC(2026, 4, 1, 10);

// better-sqlite3 objects this file opens itself are never left to the garbage collector: on Node 24 a collected
// Database or Statement aborts the process (see LIVE_NATIVE in adapter-http/src/store/sqlite.ts).
const held: object[] = [];
function hold<T extends object>(o: T): T {
  held.push(o);
  return o;
}

async function account(store: Store): Promise<{ accountId: string; keyId: string }> {
  const a = await store.createAccount({ name: 'a', plan: 'business', now: T0 });
  const k = await store.insertKey({ accountId: a.id, hash: 'h'.repeat(63) + String(Math.random()).slice(2, 3), prefix: 'ink_live_abcd', now: T0 });
  return { accountId: a.id, keyId: k.id };
}

describe('SQLite store', () => {
  it('is created on first open (WAL, migrated) and persists across reopen', async () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    const s1 = openStore({ dataDir: dir });
    const a = await s1.createAccount({ name: 'persist', plan: 'business', admin: true, now: T0 });
    await s1.setSetting('upscale.budget', 123);
    await s1.close();
    expect(existsSync(path.join(dir, 'inkprep.db'))).toBe(true);
    const raw = hold(new Database(path.join(dir, 'inkprep.db'), { readonly: true }));
    expect(hold(raw.prepare('PRAGMA journal_mode').pluck()).get()).toBe('wal');
    expect(hold(raw.prepare('PRAGMA user_version').pluck()).get()).toBe(MIGRATIONS.length);
    raw.close();
    const s2 = openStore({ dataDir: dir });
    expect(await s2.getAccount(a.id)).toMatchObject({ name: 'persist', plan: 'business', status: 'active', admin: true, dailyLimit: 999_999, removeBgCap: null, upscaleCap: null, removeBgMonthlyAllowance: null });
    expect(await s2.getSetting('upscale.budget')).toBe(123);
    expect(await s2.listSettings()).toEqual({ 'upscale.budget': 123 });
    await s2.close();
  });

  it('reserve is a rolling window; retry time is when enough old uses leave; release gives a unit back', async () => {
    const store = openStore({ dataDir: ':memory:' });
    const { accountId, keyId } = await account(store);
    const base = { accountId, keyId, endpoint: 'scan', fairUse: null, dailyLimit: 3, fairUseCap: null, monthly: null } as const;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await store.reserve({ ...base, now: T0 + i * 1000 });
      expect(r.ok).toBe(true);
      if (r.ok) ids.push(r.eventId);
    }
    expect(await store.reserve({ ...base, now: T0 + 5000 })).toEqual({ ok: false, limit: 'daily', max: 3, used: 3, retryAfterMs: WINDOW_MS - 5000 });
    // limit lowered to 1 with 3 uses: a unit frees only when the 3rd-newest (index 2 oldest) leaves
    expect(await store.reserve({ ...base, dailyLimit: 1, now: T0 + 5000 })).toMatchObject({ ok: false, used: 3, retryAfterMs: WINDOW_MS + 2000 - 5000 });
    await store.release(ids[1]!);
    expect((await store.reserve({ ...base, now: T0 + 6000 })).ok).toBe(true);
    expect((await store.reserve({ ...base, now: T0 + WINDOW_MS })).ok).toBe(true); // T0's use left exactly now
    await store.close();
  });

  it('fair-use caps count per account across keys; usage summary; prune', async () => {
    const store = openStore({ dataDir: ':memory:' });
    const { accountId, keyId } = await account(store);
    const k2 = await store.insertKey({ accountId, hash: 'x'.repeat(64), prefix: 'ink_live_wxyz', now: T0 });
    const req = { accountId, endpoint: 'remove-bg', fairUse: 'remove_bg', dailyLimit: 100, fairUseCap: 2, monthly: null } as const;
    expect((await store.reserve({ ...req, keyId, now: T0 })).ok).toBe(true);
    expect((await store.reserve({ ...req, keyId: k2.id, now: T0 + 10 })).ok).toBe(true);
    expect(await store.reserve({ ...req, keyId: k2.id, now: T0 + 20 })).toMatchObject({ ok: false, limit: 'fair_use', max: 2, used: 2, retryAfterMs: WINDOW_MS - 20 });
    expect(await store.countFairUse(accountId, 'remove_bg', T0 + 20 - WINDOW_MS)).toBe(2);
    const u = await store.usage(accountId, T0 + 30, T0 - 1000);
    expect(u.fairUse).toEqual({ remove_bg: 2, upscale: 0 });
    expect(u.perKey.map((p) => p.used).sort()).toEqual([1, 1]);
    expect(u.perEndpoint).toEqual({ 'remove-bg': 2 });
    expect(u.removeBgThisMonth).toBe(2);
    expect(await store.pruneUsage(T0 + 5)).toBe(1);
    expect(await store.countFairUse(accountId, 'remove_bg', 0)).toBe(1);
    await store.close();
  });

  it('accounts: update, list, unknown id; keys: find by hash, revoke idempotently', async () => {
    const store = openStore({ dataDir: ':memory:' });
    const { accountId, keyId } = await account(store);
    const a = await store.updateAccount(accountId, { plan: 'pro', status: 'lapsed', dailyLimit: 5, removeBgCap: 3, upscaleCap: null, admin: true });
    expect(a).toMatchObject({ plan: 'pro', status: 'lapsed', dailyLimit: 5, removeBgCap: 3, upscaleCap: null, admin: true });
    await expect(store.updateAccount('acc_missing', { plan: 'pro' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await store.listAccounts()).map((x) => x.id)).toEqual([accountId]);
    expect(await store.countAccounts()).toBe(1);
    const k = await store.insertKey({ accountId, hash: 'f'.repeat(64), prefix: 'ink_live_ffff', now: T0 });
    expect(await store.findKeyByHash('f'.repeat(64))).toMatchObject({ key: { id: k.id, accountId, revokedAt: null }, account: { id: accountId }, hash: 'f'.repeat(64) });
    expect(await store.findKeyByHash('0'.repeat(64))).toBeNull();
    expect((await store.listKeys(accountId)).map((x) => x.id).sort()).toEqual([keyId, k.id].sort());
    const r1 = await store.revokeKey(keyId, T0 + 1);
    const r2 = await store.revokeKey(keyId, T0 + 2);
    expect(r1!.revokedAt).toBe(T0 + 1);
    expect(r2!.revokedAt).toBe(T0 + 1);
    expect(await store.revokeKey('key_0000000000000000', T0)).toBeNull();
    await store.close();
  });
});

describe('SQLite running key counts', () => {
  /** Uses of a key in the window ending at `now`, probed without recording (a limit of 0 refuses and reports `used`). */
  async function used(store: Store, ids: { accountId: string; keyId: string }, now: number): Promise<number> {
    const r = await store.reserve({ ...ids, endpoint: 'probe', fairUse: null, now, dailyLimit: 0, fairUseCap: null, monthly: null });
    if (r.ok) throw new Error('a limit of 0 must refuse');
    return r.used;
  }

  it('match a direct count through random reserves, releases, prunes and clock moves (also backwards)', async () => {
    const store = openStore({ dataDir: ':memory:' });
    const ids = await account(store);
    let seed = 12345;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const live: { id: number; at: number }[] = [];
    let now = T0;
    const HOUR = 3_600_000;
    for (let step = 0; step < 600; step++) {
      const x = rnd();
      if (x < 0.55) {
        const r = await store.reserve({ ...ids, endpoint: 'scan', fairUse: null, now, dailyLimit: 1_000_000, fairUseCap: null, monthly: null });
        if (r.ok) live.push({ id: r.eventId, at: now });
      } else if (x < 0.7 && live.length) {
        const i = Math.floor(rnd() * live.length);
        await store.release(live[i]!.id);
        live.splice(i, 1);
      } else if (x < 0.75) {
        const before = now - 30 * HOUR;
        await store.pruneUsage(before);
        for (let i = live.length - 1; i >= 0; i--) if (live[i]!.at < before) live.splice(i, 1);
      } else if (x < 0.8) {
        now -= Math.floor(rnd() * 6 * HOUR); // clock steps back
      } else {
        now += Math.floor(rnd() * 4 * HOUR);
      }
      if (step % 20 === 0) expect(await used(store, ids, now), `step ${step}`).toBe(live.filter((e) => e.at > now - WINDOW_MS && e.at <= now).length + live.filter((e) => e.at > now).length);
    }
    await store.close();
  });

  it('a store created by schema v1 with existing events migrates with correct counts (key, fair use, month)', async () => {
    const dir = tempDir();
    const db = hold(new Database(path.join(dir, 'inkprep.db')));
    db.exec(MIGRATIONS[0]!);
    db.exec('PRAGMA user_version = 1');
    hold(db.prepare("INSERT INTO accounts (id, name, plan, status, admin, daily_limit, created_at) VALUES ('acc_1', 'old', 'business', 'active', 0, 5, 0)")).run();
    hold(db.prepare("INSERT INTO api_keys (id, account_id, hash, prefix, created_at) VALUES ('key_1', 'acc_1', 'hh', 'p', 0)")).run();
    const scan = hold(db.prepare("INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at) VALUES ('acc_1', 'key_1', 'scan', NULL, ?)"));
    for (const at of [T0 - WINDOW_MS - 5, T0 - 10, T0 - 5]) scan.run(at);
    // remove-bg uses: one in the window and this month, one in the window but last month, one older
    const { monthStart } = monthBounds(T0);
    const removeBg = hold(db.prepare("INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at) VALUES ('acc_1', 'key_1', 'remove-bg', 'remove_bg', ?)"));
    for (const at of [T0 - 1, monthStart - 1, T0 - WINDOW_MS - 1]) removeBg.run(at);
    db.close();
    const store = openStore({ dataDir: dir });
    const ids = { accountId: 'acc_1', keyId: 'key_1' };
    expect(await used(store, ids, T0)).toBe(4);
    const base = { ...ids, endpoint: 'probe', fairUse: 'remove_bg', now: T0, dailyLimit: 100 } as const;
    expect(await store.reserve({ ...base, fairUseCap: 0, monthly: null })).toMatchObject({ ok: false, limit: 'fair_use', used: 2 });
    expect(await store.reserve({ ...base, fairUseCap: null, monthly: { limit: 0, ...monthBounds(T0) } })).toMatchObject({ ok: false, limit: 'monthly', used: 1 });
    await store.close();
  });
});

describe('reservation lease setting', () => {
  it('INKPREP_RESERVATION_LEASE_MS out of range or not a number is refused, naming the variable', async () => {
    for (const bad of ['5', 'soon', '3600001', '1500.5']) {
      expect(() => storeConfigFromEnv({ INKPREP_RESERVATION_LEASE_MS: bad })).toThrow(/INKPREP_RESERVATION_LEASE_MS/);
    }
    const config = storeConfigFromEnv({ INKPREP_RESERVATION_LEASE_MS: '2000' });
    expect(config.reservationLeaseMs).toBe(2000);
    const ok = await openConfiguredStore({ dataDir: ':memory:', config });
    await ok.store.close();
  });
});
