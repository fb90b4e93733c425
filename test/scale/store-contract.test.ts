// The Store contract, run against every implementation: embedded SQLite and PostgreSQL.
// PostgreSQL runs when a server answers (see pg.ts); otherwise its suite is skipped with the reason printed.
// Besides the basics: running counts checked against a model through random reserves, confirms,
// releases, prunes and clock moves (also backwards, across months); two stores (two processes' worth of
// connections) racing for the last units; and crash safety with a real child process that holds pending
// reservations and is killed (SIGKILL: released at once on this host) or frozen (SIGSTOP: released after
// the lease, and a confirm after thawing records the use again).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WINDOW_MS, monthBounds, openPostgresStore, openSqliteStore, migratePostgres, PG_MIGRATIONS, type FairUseName, type Store } from '@inkprep/http';
import { createTestDatabase, pgUnavailableReason } from './pg.js';

const T0 = Date.UTC(2026, 4, 1, 10);
const pgReason = await pgUnavailableReason();
if (pgReason) console.warn(`[store-contract] PostgreSQL suite skipped: ${pgReason}`);

interface Impl {
  name: string;
  skip: boolean;
  open(): Promise<Store>;
  /** A fresh empty store location another process can open too (SQLite folder or PostgreSQL URL). */
  fresh(): Promise<string>;
  openAt(where: string, leaseMs?: number): Promise<Store>;
}

const tempDirs: string[] = [];
let pgDb: { url: string; drop: () => Promise<void> } | null = null;
const impls: Impl[] = [
  {
    name: 'sqlite',
    skip: false,
    open: async () => openSqliteStore(':memory:'),
    async fresh() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-contract-'));
      tempDirs.push(dir);
      return dir;
    },
    openAt: async (where, leaseMs) => openSqliteStore(where, { leaseMs }),
  },
  {
    name: 'postgres',
    skip: pgReason !== null,
    async open() {
      // Each test gets a clean slate inside the shared throwaway database.
      return this.openAt(await this.fresh());
    },
    async fresh() {
      const pool = new pg.Pool({ connectionString: pgDb!.url, max: 1 });
      try {
        await migratePostgres(pool);
        await pool.query('TRUNCATE usage_events, key_usage, fair_usage, usage_instances, api_keys, accounts, settings RESTART IDENTITY CASCADE');
      } finally {
        await pool.end();
      }
      return pgDb!.url;
    },
    openAt: async (where, leaseMs) => openPostgresStore({ connectionString: where, max: 20, leaseMs }),
  },
];

beforeAll(async () => {
  if (!pgReason) pgDb = await createTestDatabase();
});
afterAll(async () => {
  await pgDb?.drop();
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

const CHILD = fileURLToPath(new URL('./reserver-child.mjs', import.meta.url));

/** Start the reserving child and wait for its `ready`. */
function startReserver(where: string, ids: { accountId: string; keyId: string }, pending: number, confirmed: number, leaseMs: number): Promise<{ child: ChildProcess; send(line: string, reply: string): Promise<void> }> {
  const child = spawn(process.execPath, [CHILD, where, ids.accountId, ids.keyId, String(pending), String(confirmed), String(leaseMs)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { word: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) (out.includes(w.word) ? w.resolve() : waiters.push(w));
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const wait = (word: string): Promise<void> => new Promise((resolve, reject) => {
    if (out.includes(word)) return resolve();
    waiters.push({ word, resolve });
    child.once('exit', (code) => reject(new Error(`reserver exited ${code}: ${err}`)));
  });
  return wait('ready').then(() => ({
    child,
    send: (line: string, reply: string) => {
      child.stdin!.write(line + '\n');
      return wait(reply);
    },
  }));
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/** In-window uses of a key, its account's fair-use meter and month, probed with limits of 0 (refused, nothing recorded). */
async function probe(store: Store, ids: { accountId: string; keyId: string }, now: number, fairUse: FairUseName = 'remove_bg'): Promise<{ key: number; fair: number; month: number }> {
  const base = { ...ids, endpoint: 'probe', now, fairUseCap: null, monthly: null };
  const key = await store.reserve({ ...base, fairUse: null, dailyLimit: 0 });
  const fair = await store.reserve({ ...base, fairUse, dailyLimit: 1e9, fairUseCap: 0 });
  const month = await store.reserve({ ...base, fairUse, dailyLimit: 1e9, monthly: { limit: 0, ...monthBounds(now) } });
  if (key.ok || fair.ok || month.ok) throw new Error('a limit of 0 must refuse');
  return { key: key.used, fair: fair.used, month: month.used };
}

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

    it('reserve: an admitted use says which meter binds, its count and when it next goes down (X-RateLimit-*)', async () => {
      const store = await impl.open();
      const { accountId, keyId } = await accountWithKey(store);
      const daily = { accountId, keyId, endpoint: 'scan', fairUse: null, dailyLimit: 3, fairUseCap: null, monthly: null } as const;
      expect(await store.reserve({ ...daily, now: T0 })).toMatchObject({ ok: true, meter: { limit: 'daily', max: 3, used: 1, resetMs: WINDOW_MS } });
      // The reset counts from the oldest use in the window (now 1 s old), not from this one.
      expect(await store.reserve({ ...daily, now: T0 + 1000 })).toMatchObject({ ok: true, meter: { limit: 'daily', max: 3, used: 2, resetMs: WINDOW_MS - 1000 } });
      // The account's fair-use cap binds when fewer uses are left under it than under the key's limit.
      const b = await accountWithKey(store);
      const fair = { ...b, endpoint: 'upscale', fairUse: 'upscale', dailyLimit: 5, fairUseCap: 2, monthly: null } as const;
      expect(await store.reserve({ ...fair, now: T0 })).toMatchObject({ ok: true, meter: { limit: 'fair_use', max: 2, used: 1, resetMs: WINDOW_MS } });
      expect(await store.reserve({ ...fair, now: T0 + 60_000 })).toMatchObject({ ok: true, meter: { limit: 'fair_use', max: 2, used: 2, resetMs: WINDOW_MS - 60_000 } });
      // A tie goes to the limit checked first (daily): the one the next call is refused by.
      const c = await accountWithKey(store);
      expect(await store.reserve({ ...c, endpoint: 'upscale', fairUse: 'upscale', dailyLimit: 2, fairUseCap: 2, monthly: null, now: T0 }))
        .toMatchObject({ ok: true, meter: { limit: 'daily', max: 2, used: 1 } });
      // The remove-bg monthly allowance resets at the next UTC month.
      const d = await accountWithKey(store);
      const month = monthBounds(T0);
      const rb = { ...d, endpoint: 'remove-bg', fairUse: 'remove_bg', dailyLimit: 100, fairUseCap: 10, monthly: { limit: 2, ...month } } as const;
      expect(await store.reserve({ ...rb, now: T0 })).toMatchObject({ ok: true, meter: { limit: 'monthly', max: 2, used: 1, resetMs: month.nextMonthStart - T0 } });
      expect(await store.reserve({ ...rb, fairUseCap: 1, now: T0 + 5 })).toMatchObject({ ok: false, limit: 'fair_use', max: 1, used: 1 });
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

    it('running counts match a model through random reserves, confirms, releases, prunes and clock moves', async () => {
      const store = await impl.open();
      const a = await accountWithKey(store);
      const k2 = await store.insertKey({ accountId: a.accountId, hash: 'd'.repeat(60) + (++keyN).toString(16).padStart(4, '0'), prefix: 'ink_live_dddd', now: T0 });
      const keys = [a.keyId, k2.id];
      let seed = 4242;
      const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const live: { id: number; keyId: string; fair: FairUseName | null; at: number; endpoint: string }[] = [];
      const HOUR = 3_600_000;
      let now = T0;
      for (let step = 0; step < 400; step++) {
        const x = rnd();
        if (x < 0.5) {
          const keyId = keys[Math.floor(rnd() * 2)]!;
          const fair = rnd() < 0.5 ? 'remove_bg' : rnd() < 0.5 ? 'upscale' : null;
          const r = await store.reserve({ accountId: a.accountId, keyId, endpoint: 'e', fairUse: fair, now, dailyLimit: 1e9, fairUseCap: 1e9, monthly: null });
          expect(r.ok).toBe(true);
          if (r.ok) {
            live.push({ id: r.eventId, keyId, fair, at: now, endpoint: 'e' });
            // The binding meter from the model: fewest left (equal limits: the larger count), ties to daily.
            const inWindow = (e: { at: number }): boolean => e.at > now - WINDOW_MS;
            const keyUses = live.filter((e) => e.keyId === keyId && inWindow(e));
            const fairUses = fair ? live.filter((e) => e.fair === fair && inWindow(e)) : [];
            const [limit, uses] = fairUses.length > keyUses.length ? ['fair_use', fairUses] as const : ['daily', keyUses] as const;
            expect(r.meter, `step ${step}`).toEqual({ limit, max: 1e9, used: uses.length, resetMs: Math.min(...uses.map((e) => e.at)) + WINDOW_MS - now });
          }
        } else if (x < 0.6 && live.length) {
          const e = live[Math.floor(rnd() * live.length)]!;
          await store.confirm({ eventId: e.id, accountId: a.accountId, keyId: e.keyId, endpoint: e.endpoint, fairUse: e.fair, at: e.at });
        } else if (x < 0.7 && live.length) {
          const i = Math.floor(rnd() * live.length);
          await store.release(live[i]!.id);
          live.splice(i, 1);
        } else if (x < 0.74) {
          const before = now - 30 * HOUR;
          await store.pruneUsage(before);
          for (let i = live.length - 1; i >= 0; i--) if (live[i]!.at < before) live.splice(i, 1);
        } else if (x < 0.8) {
          now -= Math.floor(rnd() * 6 * HOUR); // a clock behind the others
        } else if (x < 0.83) {
          now += Math.floor(rnd() * 12 * 24 * HOUR); // days later: months roll over
        } else if (x < 0.87) {
          // Boundaries, to the millisecond: a use at exactly the last window start (the cursor), at a month
          // start, and a clock at the instant a use leaves the window.
          const keyId = keys[Math.floor(rnd() * 2)]!;
          const fair = rnd() < 0.5 ? 'remove_bg' : 'upscale';
          const y = rnd();
          const at = y < 0.4 ? now - WINDOW_MS : y < 0.8 ? monthBounds(now).monthStart : now;
          const r = await store.reserve({ accountId: a.accountId, keyId, endpoint: 'e', fairUse: fair, now: at, dailyLimit: 1e9, fairUseCap: 1e9, monthly: null });
          if (r.ok) live.push({ id: r.eventId, keyId, fair, at, endpoint: 'e' });
          if (y >= 0.8 && live.length) now = live[Math.floor(rnd() * live.length)]!.at + WINDOW_MS;
        } else {
          now += Math.floor(rnd() * 4 * HOUR);
        }
        if (step % 10 === 0) {
          const { monthStart } = monthBounds(now);
          const keyId = keys[step % 20 === 0 ? 0 : 1]!;
          const fair: FairUseName = step % 30 === 0 ? 'upscale' : 'remove_bg';
          const inWindow = (e: { at: number }): boolean => e.at > now - WINDOW_MS;
          expect(await probe(store, { accountId: a.accountId, keyId }, now, fair), `step ${step}`).toEqual({
            key: live.filter((e) => e.keyId === keyId && inWindow(e)).length,
            fair: live.filter((e) => e.fair === fair && inWindow(e)).length,
            month: live.filter((e) => e.fair === fair && e.at >= monthStart).length,
          });
        }
      }
      await store.close();
    });

    it('two stores on one database (two processes) racing for the last units admit exactly the limit', async () => {
      const where = await impl.fresh();
      const s1 = await impl.openAt(where);
      const s2 = await impl.openAt(where);
      const { accountId, keyId } = await accountWithKey(s1);
      const daily = { accountId, keyId, endpoint: 'scan', fairUse: null, dailyLimit: 4, fairUseCap: null, monthly: null, now: T0 } as const;
      const d = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? s1 : s2).reserve(daily)));
      expect(d.filter((r) => r.ok)).toHaveLength(4);
      const k2 = await s2.insertKey({ accountId, hash: 'c'.repeat(60) + (++keyN).toString(16).padStart(4, '0'), prefix: 'ink_live_cccc', now: T0 });
      const fair = { accountId, endpoint: 'upscale', fairUse: 'upscale', dailyLimit: 100, fairUseCap: 3, monthly: null, now: T0 } as const;
      const f = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? s1 : s2).reserve({ ...fair, keyId: i % 3 ? keyId : k2.id })));
      expect(f.filter((r) => r.ok)).toHaveLength(3);
      await s1.close();
      await s2.close();
    });

    it('crash: uses pending in a killed process are released at once on this host; confirmed ones stay', async () => {
      const where = await impl.fresh();
      const store = await impl.openAt(where);
      const ids = await accountWithKey(store);
      const r = await startReserver(where, ids, 3, 2, 30_000);
      expect(await probe(store, ids, T0)).toEqual({ key: 5, fair: 5, month: 5 });
      r.child.kill('SIGKILL');
      await exited(r.child);
      // (The store's own periodic sweep may get there first: the count is what matters.)
      await store.sweepReservations();
      expect(await probe(store, ids, T0)).toEqual({ key: 2, fair: 2, month: 2 });
      expect(await store.sweepReservations()).toBe(0);
      await store.close();
      // A store opened later (a restart) sweeps on open too.
      const r2 = await startReserver(where, ids, 4, 0, 30_000);
      r2.child.kill('SIGKILL');
      await exited(r2.child);
      const restarted = await impl.openAt(where);
      expect(await probe(restarted, ids, T0)).toEqual({ key: 2, fair: 2, month: 2 });
      await restarted.close();
    });

    it('lease: a frozen process loses its pending uses after the lease; its later confirm records them again', async () => {
      const where = await impl.fresh();
      const store = await impl.openAt(where, 2000);
      const ids = await accountWithKey(store);
      const r = await startReserver(where, ids, 2, 1, 2000);
      // Alive and heartbeating: sweeps (explicit, and the store's own every lease/3) keep its uses.
      await new Promise((res) => setTimeout(res, 2500));
      expect(await store.sweepReservations()).toBe(0);
      expect((await probe(store, ids, T0)).key).toBe(3);
      r.child.kill('SIGSTOP');
      const frozenAt = Date.now();
      try {
        let left = await probe(store, ids, T0);
        for (let i = 0; i < 60 && left.key !== 1; i++) {
          await new Promise((res) => setTimeout(res, 200));
          await store.sweepReservations();
          left = await probe(store, ids, T0);
        }
        expect(left).toEqual({ key: 1, fair: 1, month: 1 });
        expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(1500); // not before the lease (less a heartbeat)
      } finally {
        r.child.kill('SIGCONT');
      }
      await r.send('confirm', 'confirmed');
      expect(await probe(store, ids, T0)).toEqual({ key: 3, fair: 3, month: 3 });
      r.child.kill('SIGKILL');
      await exited(r.child);
      expect(await store.sweepReservations()).toBe(0);
      expect((await probe(store, ids, T0)).key).toBe(3);
      await store.close();
    });

    it('lease: each instance is judged by the lease it stated, not by the sweeper\'s', async () => {
      const where = await impl.fresh();
      // The sweeper runs a 1 s lease; the reserving process a 30 s one (a heartbeat every 5 s). Judged by the
      // sweeper's lease, the live process would look dead 1 s after its last beat and lose its pending uses.
      const store = await impl.openAt(where, 1000);
      const ids = await accountWithKey(store);
      const r = await startReserver(where, ids, 2, 1, 30_000);
      await new Promise((res) => setTimeout(res, 2500));
      expect(await store.sweepReservations()).toBe(0);
      expect((await probe(store, ids, T0)).key).toBe(3);
      // Killed on this host: released at once, whatever its lease.
      r.child.kill('SIGKILL');
      await exited(r.child);
      expect(await store.sweepReservations()).toBe(2);
      expect((await probe(store, ids, T0)).key).toBe(1);
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

describe.skipIf(pgReason !== null)('PostgreSQL running counts migration', () => {
  it('a database of schema v3 with existing events gets correct running counts (window, fair use, month)', async () => {
    const db = await createTestDatabase();
    try {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      await c.query('CREATE TABLE inkprep_schema (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      for (let v = 0; v < 3; v++) {
        await c.query(PG_MIGRATIONS[v]!);
        await c.query('INSERT INTO inkprep_schema VALUES ($1, 0)', [v + 1]);
      }
      await c.query("INSERT INTO accounts (id, name, plan, status, admin, daily_limit, created_at) VALUES ('acc_1', 'old', 'business', 'active', false, 5, 0)");
      await c.query("INSERT INTO api_keys (id, account_id, hash, prefix, created_at) VALUES ('key_1', 'acc_1', 'hh', 'p', 0)");
      const { monthStart } = monthBounds(T0);
      const events: [string | null, number][] = [[null, T0 - WINDOW_MS - 5], [null, T0 - 10], ['remove_bg', T0 - 5], ['remove_bg', T0 - WINDOW_MS - 1], ['remove_bg', monthStart - 1], ['upscale', T0 - 1]];
      for (const [fair, at] of events) await c.query("INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at) VALUES ('acc_1', 'key_1', 'e', $1, $2)", [fair, at]);
      await c.end();
      const store = await openPostgresStore({ connectionString: db.url });
      const ids = { accountId: 'acc_1', keyId: 'key_1' };
      expect(await probe(store, ids, T0)).toEqual({ key: 4, fair: 2, month: 1 }); // monthStart - 1 is in the 24 h window, not in the month
      expect(await probe(store, ids, T0, 'upscale')).toEqual({ key: 4, fair: 1, month: 1 });
      await store.close();
    } finally {
      await db.drop();
    }
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
