// A store outage, deterministically: the server reaches PostgreSQL through a TCP proxy (node:net) that the
// test cuts (every connection reset, new ones refused) and restores, so the machine's shared server is
// never stopped. While cut: authenticated routes answer 503 store_unavailable with Retry-After, never 500;
// a request admitted before the cut and finishing during it gets its 200 and its use is counted exactly
// once after the store comes back (confirmation queued and retried); a reservation released during the cut
// is settled by the process itself, without a restart or an admin sweep. With an Idempotency-Key, such a
// request's use and its answer land together after the outage (one transaction, queued as one): a retry
// during the cut is 503, after it the first answer, replayed, with one use counted. Also: a confirmation
// retried after a sweep released the use (the ambiguous-commit case) records it once; outage errors are
// told from bugs; the queue's bounds (entries, answer bytes) drop a keyed confirmation with its answer.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '@inkprep/engine';
import {
  ROUTES, UsageSettler, createApiKey, createLogger, defaultConfig, getRoute, isStoreUnavailable, json, openPostgresStore, openSqliteStore, postImageRoute, startServer,
  type InkprepServer, type ReservedUse, type RouteDef, type Store,
} from '@inkprep/http';
import { createTestDatabase, pgUnavailableReason } from './pg.js';
import { MAIN } from '../http/serve-process.js';
import { relay } from './tcp-relay.js';
import { form, tinyPng } from '../http/harness.js';

/** A TCP proxy to PostgreSQL that can be cut (all sockets destroyed, new ones reset at once) and restored. */
async function cuttableProxy(target: URL): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  let down = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    relay(client, target.hostname, Number(target.port || 5432), open);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      down = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close: () => new Promise<void>((r) => {
      for (const s of open) s.destroy();
      server.close(() => r());
    }),
  };
}

async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const reason = await pgUnavailableReason();
if (reason) console.warn(`skipping the store outage tests: ${reason}`);

describe.skipIf(reason !== null)('store outage (PostgreSQL behind a cuttable proxy)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let direct: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    direct = new pg.Client({ connectionString: db.url });
    await direct.connect();
  });
  afterAll(async () => {
    await direct?.end();
    await db?.drop();
  });

  it('503 store_unavailable with Retry-After while cut (never 500); a 200 admitted before the cut is counted once after; leftovers settle without a restart', async () => {
    const proxy = await cuttableProxy(new URL(db.url));
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    // Two held requests on a metered route: one will succeed during the cut, one will fail during it.
    const gates = new Map<string, (ok: boolean) => void>();
    const held: RouteDef = getRoute({
      path: '/test/held', meter: 'daily', endpoint: 'held',
      params: (q) => q.get('id') ?? '',
      handle: ({ params }) => new Promise((resolve, reject) => {
        gates.set(params, (ok) => (ok ? resolve(json({ held: params })) : reject(new Error('work failed'))));
      }),
    });
    const store = await openPostgresStore({ connectionString: viaProxy.toString(), max: 4, connectTimeoutMs: 3_000 });
    const account = await store.createAccount({ name: 'outage', plan: 'business', now: Date.now() });
    const { secret } = await createApiKey(store, account.id, Date.now());
    const engine = createEngine({ threads: 1 });
    const logs: Record<string, unknown>[] = [];
    let server: InkprepServer | null = null;
    try {
      server = await startServer({
        config: defaultConfig({ dataDir: ':memory:', threads: 1 }), store, engine, routes: [...ROUTES, held],
        log: createLogger('info', (l) => logs.push(JSON.parse(l) as Record<string, unknown>)),
      });
      const base = `http://127.0.0.1:${server.port}`;
      const auth = { 'x-api-key': secret };
      expect((await fetch(`${base}/api/v1/vectorize`, { headers: auth })).status).toBe(200);

      const ok = fetch(`${base}/test/held?id=ok`, { headers: auth });
      const bad = fetch(`${base}/test/held?id=bad`, { headers: auth });
      await until(() => gates.size === 2, 30_000, 'both held requests admitted');
      const pending = async (): Promise<number> => Number((await direct.query('SELECT count(*) AS n FROM usage_events WHERE instance_id IS NOT NULL')).rows[0].n);
      expect(await pending()).toBe(2);

      proxy.cut();
      // Readiness sees it too; waiting for it also lets the key-cache listener notice its lost connection
      // (a cached key would otherwise still pass authentication on a status read).
      await until(async () => (await fetch(`${base}/readyz`)).status === 503, 30_000, 'readyz 503 while cut');
      // Every authenticated route (status read, metered GET) is 503 store_unavailable with Retry-After.
      for (const path of ['/api/v1/vectorize', '/test/held?id=new']) {
        const r = await fetch(base + path, { headers: auth });
        expect(r.status, path).toBe(503);
        expect(r.headers.get('retry-after'), path).toMatch(/^[1-9][0-9]*$/);
        const body = (await r.json()) as Record<string, unknown>;
        expect(body).toMatchObject({ code: 'store_unavailable' });
        expect(body.retry_after_seconds).toBe(Number(r.headers.get('retry-after')));
      }
      expect(gates.has('new')).toBe(false);

      // The admitted requests finish while the store is away: the success still gets its 200.
      gates.get('ok')!(true);
      gates.get('bad')!(false);
      expect((await ok).status).toBe(200);
      expect((await bad).status).toBe(500);
      const stats = server.services.settler.stats();
      expect(stats.queued).toBe(1);
      expect(stats.queuedTotal).toBe(1);
      expect(logs.some((l) => l.msg === 'unexpected error' && String(l.err).includes('Connection'))).toBe(false);

      // The store comes back: the queued confirmation lands and the failed request's pending use is released,
      // with this process still running.
      proxy.restore();
      await until(async () => server!.services.settler.stats().queued === 0 && (await pending()) === 0, 60_000, 'settled after the outage');
      const events = (await direct.query<{ endpoint: string; instance_id: string | null }>("SELECT endpoint, instance_id FROM usage_events WHERE endpoint = 'held'")).rows;
      expect(events).toEqual([{ endpoint: 'held', instance_id: null }]);
      const after = server.services.settler.stats();
      expect(after).toMatchObject({ queued: 0, confirmedLater: 1, dropped: { full: 0, failed: 0 } });
      expect(after.releasedLater).toBeGreaterThanOrEqual(1);
      const scrape = await server.services.metrics.render();
      expect(scrape).toMatch(/^inkprep_usage_confirmations_queued 0$/m);
      expect(scrape).toMatch(/^inkprep_usage_confirmations_queued_total 1$/m);
      expect(scrape).toMatch(/^inkprep_usage_confirmations_confirmed_later_total 1$/m);
      expect(scrape).toMatch(/^inkprep_usage_confirmations_dropped_total\{reason="full"\} 0$/m);
      // And the service answers again.
      await until(async () => (await fetch(`${base}/api/v1/vectorize`, { headers: auth })).status === 200, 30_000, 'serving again');
    } finally {
      proxy.restore();
      await server?.close(5_000);
      await engine.close();
      await proxy.close();
    }
  });

  it('Idempotency-Key: a keyed POST finishing during the cut gets its 200; its use and answer land together after it; a retry is 503 during, the replay after, one use', async () => {
    const proxy = await cuttableProxy(new URL(db.url));
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    let open: ((ok: boolean) => void) | null = null;
    const held = postImageRoute({
      path: '/test/held-post', endpoint: 'held_post', meter: 'daily',
      validate: () => ({}),
      handle: () => new Promise<ReturnType<typeof json>>((resolve) => {
        open = () => resolve(json({ held: 'post', n: Math.random() }));
      }),
    });
    const store = await openPostgresStore({ connectionString: viaProxy.toString(), max: 4, connectTimeoutMs: 3_000 });
    const account = await store.createAccount({ name: 'outage-keyed', plan: 'business', now: Date.now() });
    const { secret } = await createApiKey(store, account.id, Date.now());
    const engine = createEngine({ threads: 1 });
    let server: InkprepServer | null = null;
    try {
      server = await startServer({ config: defaultConfig({ dataDir: ':memory:', threads: 1 }), store, engine, routes: [...ROUTES, held], log: createLogger('silent') });
      const base = `http://127.0.0.1:${server.port}`;
      const png = await tinyPng();
      const send = async (): Promise<{ status: number; body: string; replayed: string | null }> => {
        const r = await fetch(`${base}/test/held-post`, { method: 'POST', headers: { 'x-api-key': secret, 'Idempotency-Key': 'outage-key-1' }, body: form(png) });
        return { status: r.status, body: await r.text(), replayed: r.headers.get('idempotent-replayed') };
      };
      const events = async (): Promise<{ instance_id: string | null }[]> => (await direct.query<{ instance_id: string | null }>("SELECT instance_id FROM usage_events WHERE endpoint = 'held_post'")).rows;
      const first = send();
      await until(() => open !== null, 30_000, 'the keyed request admitted');
      expect(await events()).toHaveLength(1);

      proxy.cut();
      await until(async () => (await fetch(`${base}/readyz`)).status === 503, 30_000, 'readyz 503 while cut');
      open!(true);
      const answer = await first;
      expect(answer.status).toBe(200);
      expect(answer.replayed).toBeNull();
      // Use and answer wait together in the queue; the store has neither yet.
      expect(server.services.settler.stats()).toMatchObject({ queued: 1, queuedTotal: 1 });
      const during = await send();
      expect(during.status).toBe(503);
      expect(JSON.parse(during.body)).toMatchObject({ code: 'store_unavailable' });

      proxy.restore();
      await until(() => server!.services.settler.stats().queued === 0, 60_000, 'the queued use and answer taken by the store');
      expect(await events()).toEqual([{ instance_id: null }]);
      const stored = (await direct.query<{ status: number | null }>("SELECT status FROM idempotency_keys WHERE idem_key = 'outage-key-1'")).rows;
      expect(stored).toEqual([{ status: 200 }]);
      // The retry after the outage: the first answer, byte for byte, without running or counting again.
      let replay = await send();
      const end = Date.now() + 30_000;
      while (replay.status === 503 && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 100)); // a key cache or pool still reconnecting
        replay = await send();
      }
      expect(replay).toEqual({ status: 200, body: answer.body, replayed: 'true' });
      expect(await events()).toEqual([{ instance_id: null }]);
    } finally {
      proxy.restore();
      await server?.close(5_000);
      await engine.close();
      await proxy.close();
    }
  });

  it('a confirmation retried after a sweep released the use (ambiguous commit) records it once, under its own id', async () => {
    const store = await openPostgresStore({ connectionString: db.url, max: 2, cacheKeys: false });
    try {
      const a = await store.createAccount({ name: 'twice', plan: 'business', now: Date.now() });
      const { key } = await createApiKey(store, a.id, Date.now());
      const now = Date.now();
      const r = await store.reserve({ accountId: a.id, keyId: key.id, endpoint: 'scan', fairUse: 'upscale', now, dailyLimit: 10, fairUseCap: 10, monthly: null });
      if (!r.ok) throw new Error('not admitted');
      // A sweep (this process taken for dead) releases it; then the confirmation arrives, twice.
      expect((await direct.query('SELECT inkprep_release($1, true) AS released', [r.eventId])).rows[0].released).toBe(true);
      const use = { eventId: r.eventId, accountId: a.id, keyId: key.id, endpoint: 'scan', fairUse: 'upscale' as const, at: now };
      await store.confirm(use);
      await store.confirm(use);
      const rows = (await direct.query('SELECT id, instance_id FROM usage_events WHERE key_id = $1', [key.id])).rows;
      expect(rows).toEqual([{ id: String(r.eventId), instance_id: null }]);
      expect(Number((await direct.query('SELECT total - expired AS n FROM key_usage WHERE key_id = $1', [key.id])).rows[0].n)).toBe(1);
      expect(await store.countFairUse(a.id, 'upscale', now - 1)).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('outage errors are told from bugs', () => {
  it('connection failures, server shutdown and SQLite busy are outages; SQL errors and plain bugs are not', () => {
    const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
    for (const e of [
      coded('ECONNREFUSED'), coded('ECONNRESET'), coded('57P01', 'terminating connection due to administrator command'), coded('57P03'), coded('08006'),
      coded('SQLITE_BUSY'), coded('SQLITE_LOCKED_SHAREDCACHE'), new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'), new AggregateError([coded('ECONNREFUSED')]), new Error('wrapped', { cause: coded('ECONNRESET') }),
    ]) expect(isStoreUnavailable(e), String(e)).toBe(true);
    for (const e of [coded('23505', 'duplicate key value'), coded('42P01', 'relation does not exist'), new TypeError('x is undefined'), 'text', null]) {
      expect(isStoreUnavailable(e), String(e)).toBe(false);
    }
  });
});

describe('the confirmation queue (a store that is away, then back)', () => {
  it('queues in order up to its bound, drops (and counts) past it, drains in order once the store answers, then settles leftovers', async () => {
    let away = true;
    const confirmed: number[] = [];
    const settleCalls: { keep: number[]; before: number }[] = [];
    const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    let nextId = 1;
    // Only what the settler calls; the rest of the Store is never reached.
    const fake = {
      reserve: async () => ({ ok: true as const, eventId: nextId++, meter: null }),
      confirm: async (u: ReservedUse) => {
        if (away) throw refused();
        confirmed.push(u.eventId);
      },
      release: async () => {
        if (away) throw refused();
      },
      releaseOwnPending: async (keep: ReadonlySet<number>, before: number) => {
        if (away) throw refused();
        settleCalls.push({ keep: [...keep].sort(), before });
        return 1;
      },
    } as unknown as Store;
    const lines: Record<string, unknown>[] = [];
    const settler = new UsageSettler(fake, { log: createLogger('info', (l) => lines.push(JSON.parse(l) as Record<string, unknown>)), clock: () => 1_000, max: 3, retryMinMs: 10, retryMaxMs: 40 });
    const base = { accountId: 'acc_1', keyId: 'key_1', endpoint: 'scan', fairUse: null, dailyLimit: 10, fairUseCap: null, monthly: null, now: 1_000 };
    const uses: ReservedUse[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await settler.reserve(base);
      if (!r.ok) throw new Error('not admitted');
      uses.push({ eventId: r.eventId, accountId: 'acc_1', keyId: 'key_1', endpoint: 'scan', fairUse: null, at: 1_000 });
    }
    for (const u of uses.slice(0, 4)) await settler.keep(u); // resolves at once: queued (3), then dropped (1)
    await settler.release(uses[4]!.eventId); // an outage: no throw, settled later
    expect(settler.stats()).toEqual({ queued: 3, queuedTotal: 3, confirmedLater: 0, dropped: { full: 1, failed: 0 }, releasedLater: 0 });
    expect(lines.some((l) => l.level === 'error' && l.msg === 'usage confirmation queue full: use dropped (not counted)' && l.event === 4)).toBe(true);
    await new Promise((r) => setTimeout(r, 100)); // a few retry rounds while away: nothing lands
    expect(confirmed).toEqual([]);
    away = false;
    await until(() => settler.stats().queued === 0 && settleCalls.length > 0, 30_000, 'queue drained and leftovers settled');
    expect(confirmed).toEqual([1, 2, 3]);
    // Kept out of the settle: the use still in its request (6); the dropped one (4) and the released one (5) are let go.
    expect(settleCalls[0]).toEqual({ keep: [6], before: 1_000 });
    expect(settler.stats()).toEqual({ queued: 0, queuedTotal: 3, confirmedLater: 3, dropped: { full: 1, failed: 0 }, releasedLater: 1 });
    // With an empty queue the next keep goes straight to the store.
    await settler.keep(uses[5]!);
    expect(confirmed).toEqual([1, 2, 3, 6]);
    await settler.flush(1_000);
  });

  it('a keyed confirmation waits with its answer (one commit, retried as one); past the answer-byte bound it is dropped with it', async () => {
    let away = true;
    const committed: string[] = [];
    const dropped: string[] = [];
    const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const fake = {
      confirm: async () => {
        throw new Error('a keyed use is confirmed by its settlement, not alone');
      },
      releaseOwnPending: async () => (away ? Promise.reject(refused()) : 0),
    } as unknown as Store;
    const settler = new UsageSettler(fake, { log: createLogger('silent'), clock: () => 1_000, maxBytes: 1_000, retryMinMs: 10, retryMaxMs: 40 });
    const use = (id: number): ReservedUse => ({ eventId: id, accountId: 'acc_1', keyId: 'key_1', endpoint: 'scan', fairUse: null, at: 1_000 });
    const settlement = (name: string, bytes: number) => ({
      bytes,
      commit: async () => {
        if (away) throw refused();
        committed.push(name);
      },
      dropped: () => dropped.push(name),
    });
    await settler.keep(use(1), settlement('a', 600));
    await settler.keep(use(2), settlement('b', 600)); // 1,200 bytes > 1,000: dropped with its answer
    await settler.keep(use(3), settlement('c', 300));
    expect(settler.stats()).toMatchObject({ queued: 2, dropped: { full: 1, failed: 0 } });
    expect(dropped).toEqual(['b']);
    away = false;
    await until(() => settler.stats().queued === 0, 30_000, 'queue drained');
    expect(committed).toEqual(['a', 'c']);
    await settler.flush(1_000);
  });
});

const LIVE: object[] = [];

describe('a SQLite store locked by another process', () => {
  it('a metered call waits out the busy timeout, then 503 store_unavailable with Retry-After; 200 once the lock is gone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-busy-'));
    const store = openSqliteStore(dir);
    const account = await store.createAccount({ name: 'busy', plan: 'business', now: Date.now() });
    const { secret } = await createApiKey(store, account.id, Date.now());
    const metered: RouteDef = getRoute({ path: '/test/metered', meter: 'daily', endpoint: 'metered', handle: () => json({ ok: true }) });
    const engine = createEngine({ threads: 1 });
    const server = await startServer({ config: defaultConfig({ dataDir: ':memory:', threads: 1 }), store, engine, routes: [...ROUTES, metered], log: createLogger('error', () => undefined) });
    // Another writer (as another process would) holds the write lock past the store's 5 s busy timeout.
    const other = new Database(path.join(dir, 'inkprep.db'));
    LIVE.push(other); // never garbage-collected: on Node 24 a collected better-sqlite3 Database aborts the process
    try {
      const url = `http://127.0.0.1:${server.port}/test/metered`;
      expect((await fetch(url, { headers: { 'x-api-key': secret } })).status).toBe(200);
      other.exec('BEGIN EXCLUSIVE');
      const r = await fetch(url, { headers: { 'x-api-key': secret } });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(await r.json()).toMatchObject({ code: 'store_unavailable' });
      other.exec('COMMIT');
      expect((await fetch(url, { headers: { 'x-api-key': secret } })).status).toBe(200);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await server.close(5_000);
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('shutdown while the store is still away', () => {
  it('flush gives up at its deadline and says how many confirmations are lost', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const fake = { confirm: async () => Promise.reject(refused), releaseOwnPending: async () => Promise.reject(refused) } as unknown as Store;
    const lines: Record<string, unknown>[] = [];
    const settler = new UsageSettler(fake, { log: createLogger('info', (l) => lines.push(JSON.parse(l) as Record<string, unknown>)), clock: Date.now, retryMinMs: 10, retryMaxMs: 20 });
    await settler.keep({ eventId: 7, accountId: 'acc_1', keyId: 'key_1', endpoint: 'scan', fairUse: null, at: 1 });
    await settler.keep({ eventId: 8, accountId: 'acc_1', keyId: 'key_1', endpoint: 'scan', fairUse: null, at: 1 });
    await settler.flush(200);
    expect(settler.stats().queued).toBe(2);
    expect(lines.find((l) => l.msg === 'usage confirmations not flushed at shutdown: those uses will not be counted')).toMatchObject({ level: 'error', queued: 2 });
  });
});

describe('the CLI when the database is away', () => {
  it.each([['serve'], ['admin', 'account', 'list', '--json']])('inkprep %s: exit 1, store_unavailable (not internal_error)', (...argv: string[]) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-cli-away-'));
    try {
      // Port 1 on loopback: nothing listens, the connection is refused at once.
      const r = spawnSync(process.execPath, [MAIN, ...argv], {
        env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/inkprep', INKPREP_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1' },
        encoding: 'utf8', timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(1);
      const line = r.stderr.trim().split('\n').map((l) => { try { return JSON.parse(l) as { code?: string }; } catch { return {}; } }).find((j) => j.code);
      expect(line?.code, r.stderr).toBe('store_unavailable');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
