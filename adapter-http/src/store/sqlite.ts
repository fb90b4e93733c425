// Embedded SQLite implementation of the Store (better-sqlite3, WAL), the default store.
// The file is `<dataDir>/inkprep.db`, created on first start; schema changes are versioned migrations
// tracked in PRAGMA user_version. Reservations run in BEGIN IMMEDIATE transactions, so they are atomic
// even across processes sharing the file. A reservation is pending (owned by this process's instance row,
// see instance.ts) until confirmed or released; pending uses of a process that is gone are released by the
// sweep (on open and every lease/3).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { endedHere, leaseTiming, thisInstance } from './instance.js';
import {
  DEFAULT_DAILY_LIMIT, FAIR_USE_NAMES, WINDOW_MS, monthBounds,
  type Account, type AccountPatch, type ApiKey, type FairUseName, type MeterState, type ReserveRequest, type ReserveResult, type ReservedUse, type Store, type UsageSummary,
} from './types.js';
import * as Rows from './rows.js';
import { eachUse } from './use.js';
import { SQLITE_IDEMPOTENCY_SCHEMA, sqliteIdempotency } from './idempotency-sqlite.js';
import { JOBS_USE_MORE_SQLITE, SQLITE_JOBS_SCHEMA, sqliteJobs } from './jobs-sqlite.js';
import { SQLITE_WEBHOOKS_ONE_PER_JOB, SQLITE_WEBHOOKS_SCHEMA, sqliteWebhooks } from './webhooks-sqlite.js';
import { ServiceError } from '../errors/registry.js';

/** Ordered schema migrations; index + 1 is the schema version. Append only. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, plan TEXT NOT NULL, status TEXT NOT NULL,
     admin INTEGER NOT NULL DEFAULT 0, daily_limit INTEGER NOT NULL,
     remove_bg_cap INTEGER, upscale_cap INTEGER, remove_bg_monthly INTEGER, created_at INTEGER NOT NULL);
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER);
   CREATE INDEX api_keys_account ON api_keys(account_id);
   CREATE TABLE usage_events (
     id INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, key_id TEXT NOT NULL,
     endpoint TEXT NOT NULL, fair_use TEXT, at INTEGER NOT NULL);
   CREATE INDEX usage_key_at ON usage_events(key_id, at);
   CREATE INDEX usage_account_fair_at ON usage_events(account_id, fair_use, at);
   CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // v2: per-key running counts so the daily-limit check is O(1) amortised instead of O(uses in window):
  // in-window uses = total - expired (+ a recount if the clock moved back), where `expired` counts the
  // key's events at or before `cursor_at` and the cursor advances with the window.
  `CREATE TABLE key_usage (key_id TEXT PRIMARY KEY, total INTEGER NOT NULL, expired INTEGER NOT NULL, cursor_at INTEGER NOT NULL);
   INSERT INTO key_usage (key_id, total, expired, cursor_at) SELECT key_id, count(*), 0, 0 FROM usage_events GROUP BY key_id;`,
  // v3: crash-safe counting. A use is pending while instance_id names the process that reserved it (NULL =
  // confirmed, and every use recorded before v3); instances heartbeat, and a sweep releases the pending
  // uses of instances that are gone.
  `ALTER TABLE usage_events ADD COLUMN instance_id INTEGER;
   CREATE INDEX usage_pending ON usage_events(instance_id) WHERE instance_id IS NOT NULL;
   CREATE TABLE usage_instances (
     id INTEGER PRIMARY KEY AUTOINCREMENT, host_key TEXT, host TEXT NOT NULL, pid INTEGER NOT NULL,
     started_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL);`,
  // v4: per-account fair-use running counts (as key_usage, plus the calendar month from month_start), so
  // the remove-bg/upscale cap and the monthly allowance cost O(1) amortised too (as in PostgreSQL).
  `CREATE TABLE fair_usage (
     account_id TEXT NOT NULL, fair_use TEXT NOT NULL, total INTEGER NOT NULL, expired INTEGER NOT NULL, cursor_at INTEGER NOT NULL,
     month_start INTEGER NOT NULL, month_n INTEGER NOT NULL, PRIMARY KEY (account_id, fair_use));
   INSERT INTO fair_usage (account_id, fair_use, total, expired, cursor_at, month_start, month_n)
     SELECT account_id, fair_use, count(*), 0, 0, 0, count(*) FROM usage_events WHERE fair_use IS NOT NULL GROUP BY account_id, fair_use;`,
  // v5: each instance states its own lease, and sweepers judge its heartbeat by it (not by their own): a
  // process on a long lease (slow heartbeat) never looks dead to one on a short lease. NULL (rows of older
  // processes): the sweeper's lease, as before.
  `ALTER TABLE usage_instances ADD COLUMN lease_ms INTEGER;`,
  // v6: idempotency keys (issue #30; store/idempotency-sqlite.ts).
  SQLITE_IDEMPOTENCY_SCHEMA,
  // v7: asynchronous jobs (issue #33; store/jobs-sqlite.ts).
  SQLITE_JOBS_SCHEMA,
  // v8: webhook secrets and deliveries (issue #33; store/webhooks-sqlite.ts).
  SQLITE_WEBHOOKS_SCHEMA,
  // v9: a job's further usage events (a mockup batch counts one per image; store/jobs.ts).
  JOBS_USE_MORE_SQLITE,
  // v10: one webhook delivery per job (the outbox sweep; store/webhooks-sqlite.ts).
  SQLITE_WEBHOOKS_ONE_PER_JOB,
];

// SQLite returns flags as 0/1 and times as integers.
type AccountRow = Rows.AccountRow<number, number>;
type KeyRow = Rows.KeyRow<number>;
const CODEC: Rows.RowCodec<number, number> = { flag: (v) => v === 1, time: (v) => v };
const toAccount = (r: AccountRow): Account => Rows.toAccount(r, CODEC);
const toKey = (r: KeyRow): ApiKey => Rows.toKey(r, CODEC);

/**
 * better-sqlite3 12 wraps its Database and Statement objects in node::ObjectWrap. Built against Node >= 24.19
 * headers, that wrapper's destructor removes an environment cleanup hook and asserts a current Environment,
 * which a wrapper finalized by the garbage collector (a second-pass weak callback, run outside any context)
 * does not have: the process aborts with "Assertion failed: (env) != nullptr" in Statement::~Statement
 * (nodejs/node#65446). Whether the database is open or closed makes no difference; only never letting a
 * wrapper become garbage does. So every Database and Statement this module creates is held here until the
 * process exits (Node's environment cleanup then deletes them where a context exists), statements are
 * prepared once per store (no per-call prepare, no db.pragma, whose statement is thrown away), and close()
 * finalizes them through db.close(). A closed store keeps only its small wrappers.
 */
const LIVE_NATIVE: object[] = [];
/** Hold a better-sqlite3 Database or Statement until the process exits (see LIVE_NATIVE); returns it. */
export function keepNative<T extends object>(o: T): T {
  LIVE_NATIVE.push(o);
  return o;
}

/** Apply pending migrations; returns the resulting schema version. */
export function migrate(db: Database.Database): number {
  const version = keepNative(db.prepare<[], number>('PRAGMA user_version').pluck());
  // The version is read inside each write transaction: processes opening one new file together wait for
  // each other (busy_timeout) and each migration runs once, never again by a process that read it stale.
  const step = db.transaction((): boolean => {
    const v = version.get()!;
    if (v >= MIGRATIONS.length) return false;
    db.exec(MIGRATIONS[v]!);
    db.exec(`PRAGMA user_version = ${v + 1}`);
    return true;
  });
  while (step.immediate());
  return MIGRATIONS.length;
}

/** Options of the SQLite store. */
export interface SqliteStoreOptions {
  /** Lease of a silent process's pending reservations, ms (default 30 s; env INKPREP_RESERVATION_LEASE_MS via openConfiguredStore). */
  leaseMs?: number;
}

/**
 * Open (creating if needed) the SQLite store in `dataDir` (file `inkprep.db`), or in memory with `:memory:`.
 * @example const store = openSqliteStore('./data');
 */
export function openSqliteStore(dataDir: string, opts: SqliteStoreOptions = {}): Store {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    file = path.join(dataDir, 'inkprep.db');
  }
  // Held for the process's life with its statements (LIVE_NATIVE); its transaction statements are cached by
  // better-sqlite3 per Database object, so they live as long as it does.
  const db = keepNative(new Database(file));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  migrate(db);

  const q = keepNative({
    ping: db.prepare('SELECT 1'),
    insertAccount: db.prepare(`INSERT INTO accounts (id, name, plan, status, admin, daily_limit, remove_bg_cap, upscale_cap, remove_bg_monthly, created_at)
                               VALUES (@id, @name, @plan, 'active', @admin, @daily_limit, NULL, NULL, NULL, @created_at)`),
    getAccount: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
    listAccounts: db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY created_at, id'),
    countAccounts: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts'),
    insertKey: db.prepare('INSERT INTO api_keys (id, account_id, hash, prefix, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL)'),
    keyByHash: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE hash = ?'),
    keyById: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?'),
    keysOf: db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id'),
    revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    keyUsage: db.prepare<[string], { total: number; expired: number; cursor_at: number }>('SELECT total, expired, cursor_at FROM key_usage WHERE key_id = ?'),
    keyUsageInit: db.prepare('INSERT OR IGNORE INTO key_usage (key_id, total, expired, cursor_at) VALUES (?, 0, 0, 0)'),
    keyUsageAdvance: db.prepare('UPDATE key_usage SET expired = expired + ?, cursor_at = ? WHERE key_id = ?'),
    keyUsageAdd: db.prepare('UPDATE key_usage SET total = total + ?, expired = expired + ? WHERE key_id = ?'),
    countKeyBetween: db.prepare<[string, number, number], { n: number }>('SELECT count(*) AS n FROM usage_events WHERE key_id = ? AND at > ? AND at <= ?'),
    eventById: db.prepare<[number], { key_id: string; account_id: string; fair_use: FairUseName | null; at: number }>('SELECT key_id, account_id, fair_use, at FROM usage_events WHERE id = ?'),
    fairUsage: db.prepare<[string, string], { total: number; expired: number; cursor_at: number; month_start: number; month_n: number }>(
      'SELECT total, expired, cursor_at, month_start, month_n FROM fair_usage WHERE account_id = ? AND fair_use = ?'),
    fairUsageInit: db.prepare('INSERT OR IGNORE INTO fair_usage (account_id, fair_use, total, expired, cursor_at, month_start, month_n) VALUES (?, ?, 0, 0, 0, ?, 0)'),
    fairUsageSet: db.prepare('UPDATE fair_usage SET expired = ?, cursor_at = ?, month_start = ?, month_n = ? WHERE account_id = ? AND fair_use = ?'),
    fairUsageAdd: db.prepare(`UPDATE fair_usage SET total = total + @n, expired = expired + CASE WHEN @at <= cursor_at THEN @n ELSE 0 END,
                              month_n = month_n + CASE WHEN @at >= month_start THEN @n ELSE 0 END WHERE account_id = @account AND fair_use = @fair`),
    fairUsageSub: db.prepare('UPDATE fair_usage SET total = total - ?, expired = expired - ?, month_n = month_n - ? WHERE account_id = ? AND fair_use = ?'),
    countFairBetween: db.prepare<[string, string, number, number], { n: number }>('SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND fair_use = ? AND at > ? AND at <= ?'),
    pruneFairCounts: db.prepare<[number], { account_id: string; fair_use: string; n: number; ne: number; nm: number }>(
      `SELECT e.account_id AS account_id, e.fair_use AS fair_use, count(*) AS n, sum(CASE WHEN e.at <= f.cursor_at THEN 1 ELSE 0 END) AS ne,
              sum(CASE WHEN e.at >= f.month_start THEN 1 ELSE 0 END) AS nm
         FROM usage_events e JOIN fair_usage f ON f.account_id = e.account_id AND f.fair_use = e.fair_use WHERE e.at < ? GROUP BY e.account_id, e.fair_use`),
    pruneCounts: db.prepare<[number], { key_id: string; n: number; ne: number }>(
      'SELECT e.key_id AS key_id, count(*) AS n, sum(CASE WHEN e.at <= k.cursor_at THEN 1 ELSE 0 END) AS ne FROM usage_events e JOIN key_usage k ON k.key_id = e.key_id WHERE e.at < ? GROUP BY e.key_id'),
    nthKey: db.prepare<[string, number, number], { at: number }>('SELECT at FROM usage_events WHERE key_id = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?'),
    countFair: db.prepare<[string, string, number], { n: number }>('SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND fair_use = ? AND at > ?'),
    countFairFrom: db.prepare<[string, string, number], { n: number }>('SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND fair_use = ? AND at >= ?'),
    nthFair: db.prepare<[string, string, number, number], { at: number }>('SELECT at FROM usage_events WHERE account_id = ? AND fair_use = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?'),
    insertEvent: db.prepare('INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at, instance_id) VALUES (?, ?, ?, ?, ?, ?)'),
    deleteEvent: db.prepare('DELETE FROM usage_events WHERE id = ?'),
    isPending: db.prepare<[number], { p: number }>('SELECT 1 AS p FROM usage_events WHERE id = ? AND instance_id IS NOT NULL'),
    confirm: db.prepare('UPDATE usage_events SET instance_id = NULL WHERE id = ? AND instance_id IS NOT NULL'),
    eventExists: db.prepare<[number], { p: number }>('SELECT 1 AS p FROM usage_events WHERE id = ?'),
    insertInstance: db.prepare('INSERT INTO usage_instances (id, host_key, host, pid, started_at, heartbeat_at, lease_ms) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    heartbeat: db.prepare('UPDATE usage_instances SET heartbeat_at = ? WHERE id = ?'),
    deleteInstance: db.prepare('DELETE FROM usage_instances WHERE id = ?'),
    instances: db.prepare<[], { id: number; host_key: string | null; pid: number; heartbeat_at: number; lease_ms: number | null }>('SELECT id, host_key, pid, heartbeat_at, lease_ms FROM usage_instances'),
    ownPending: db.prepare<[number, number], { id: number }>('SELECT id FROM usage_events WHERE instance_id = ? AND at < ?'),
    orphans: db.prepare<[number], { id: number }>(
      'SELECT e.id AS id FROM usage_events e WHERE e.instance_id IS NOT NULL AND e.instance_id <> ? AND NOT EXISTS (SELECT 1 FROM usage_instances i WHERE i.id = e.instance_id)'),
    perKey: db.prepare<[string, number], { key_id: string; n: number }>('SELECT key_id, count(*) AS n FROM usage_events WHERE account_id = ? AND at > ? GROUP BY key_id'),
    perEndpoint: db.prepare<[string, number], { endpoint: string; n: number }>('SELECT endpoint, count(*) AS n FROM usage_events WHERE account_id = ? AND at > ? GROUP BY endpoint'),
    prune: db.prepare('DELETE FROM usage_events WHERE at < ?'),
    getSetting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?'),
    setSetting: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
    deleteSetting: db.prepare('DELETE FROM settings WHERE name = ?'),
    listSettings: db.prepare<[], { name: string; value: string }>('SELECT name, value FROM settings ORDER BY name'),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  });
  /** updateAccount's statements, one per set of patched columns (a handful), prepared once and held. */
  const updates = keepNative(new Map<string, Database.Statement>());

  // Key lookups are cached (the hot path of every request) but never stale: the cache is dropped whenever
  // this connection changes accounts or keys, and whenever PRAGMA data_version says another connection
  // (e.g. the admin CLI) committed anything. Only found keys are cached, at most KEY_CACHE_MAX of them.
  const KEY_CACHE_MAX = 10_000;
  const keyCache = new Map<string, { key: ApiKey; account: Account; hash: string }>();
  let cacheVersion = -1;
  const invalidate = (): void => keyCache.clear();

  /** Uses of a key in (since, now], from its running counts (advancing the expiry cursor to `since`). */
  const keyUsedSince = (keyId: string, since: number): number => {
    let row = q.keyUsage.get(keyId);
    if (!row) {
      q.keyUsageInit.run(keyId);
      row = { total: 0, expired: 0, cursor_at: 0 };
    }
    let { expired } = row;
    if (since > row.cursor_at) {
      const n = q.countKeyBetween.get(keyId, row.cursor_at, since)!.n;
      expired += n;
      q.keyUsageAdvance.run(n, since, keyId);
      return row.total - expired;
    }
    // The clock moved back (or stood still): events in (since, cursor] are in the window again.
    return row.total - expired + (since < row.cursor_at ? q.countKeyBetween.get(keyId, since, row.cursor_at)!.n : 0);
  };

  /** Fair-use uses of an account in (since, now] and since monthStart, from its running counts (advancing cursor and month). */
  const fairUsedSince = (accountId: string, fair: FairUseName, since: number, monthStart: number): { used: number; monthUsed: number } => {
    q.fairUsageInit.run(accountId, fair, monthStart);
    const f = q.fairUsage.get(accountId, fair)!;
    if (f.month_start !== monthStart) {
      // A new month (or the clock moved across a month boundary): count it once through the index.
      f.month_n = q.countFairFrom.get(accountId, fair, monthStart)!.n;
      f.month_start = monthStart;
    }
    let used: number;
    if (since > f.cursor_at) {
      f.expired += q.countFairBetween.get(accountId, fair, f.cursor_at, since)!.n;
      f.cursor_at = since;
      used = f.total - f.expired;
    } else {
      used = f.total - f.expired + (since < f.cursor_at ? q.countFairBetween.get(accountId, fair, since, f.cursor_at)!.n : 0);
    }
    q.fairUsageSet.run(f.expired, f.cursor_at, f.month_start, f.month_n, accountId, fair);
    return { used, monthUsed: f.month_n };
  };

  const reserveTx = db.transaction((r: ReserveRequest): ReserveResult => {
    const since = r.now - WINDOW_MS;
    const usedKey = keyUsedSince(r.keyId, since);
    if (usedKey >= r.dailyLimit) {
      const oldest = q.nthKey.get(r.keyId, since, usedKey - r.dailyLimit)?.at ?? r.now; // limit 0 with no uses: a full window
      return { ok: false, limit: 'daily', max: r.dailyLimit, used: usedKey, retryAfterMs: oldest + WINDOW_MS - r.now };
    }
    let fair: { used: number; monthUsed: number } | null = null;
    if (r.fairUse) {
      const { used, monthUsed } = fairUsedSince(r.accountId, r.fairUse, since, (r.monthly ?? monthBounds(r.now)).monthStart);
      if (r.fairUseCap !== null && used >= r.fairUseCap) {
        const offset = used - r.fairUseCap;
        const oldest = q.nthFair.get(r.accountId, r.fairUse, since, offset)?.at ?? r.now;
        return { ok: false, limit: 'fair_use', max: r.fairUseCap, used, retryAfterMs: oldest + WINDOW_MS - r.now };
      }
      if (r.monthly && monthUsed >= r.monthly.limit) return { ok: false, limit: 'monthly', max: r.monthly.limit, used: monthUsed, retryAfterMs: r.monthly.nextMonthStart - r.now };
      fair = { used, monthUsed };
    }
    const eventId = recordEvent(r.accountId, r.keyId, r.endpoint, r.fairUse, r.now, instanceId());
    // The binding meter (types.ts MeterState): fewest left after this use; ties keep the one checked first.
    let meter: MeterState = { limit: 'daily', max: r.dailyLimit, used: usedKey + 1, resetMs: 0 };
    if (r.fairUse && fair) {
      if (r.fairUseCap !== null && r.fairUseCap - (fair.used + 1) < meter.max - meter.used) meter = { limit: 'fair_use', max: r.fairUseCap, used: fair.used + 1, resetMs: 0 };
      if (r.monthly && r.monthly.limit - (fair.monthUsed + 1) < meter.max - meter.used) meter = { limit: 'monthly', max: r.monthly.limit, used: fair.monthUsed + 1, resetMs: 0 };
    }
    // One index probe: the oldest use in the window (this one at least, so there always is one).
    meter.resetMs = meter.limit === 'monthly' ? r.monthly!.nextMonthStart - r.now
      : (meter.limit === 'daily' ? q.nthKey.get(r.keyId, since, 0) : q.nthFair.get(r.accountId, r.fairUse!, since, 0))!.at + WINDOW_MS - r.now;
    return { ok: true, eventId, meter };
  });

  /** Insert a usage event and count it in its key's (and fair-use meter's) running counts (their rows exist). */
  const recordEvent = (accountId: string, keyId: string, endpoint: string, fairUse: FairUseName | null, at: number, instance: number | null): number => {
    const info = q.insertEvent.run(accountId, keyId, endpoint, fairUse, at, instance);
    const cursor = q.keyUsage.get(keyId)!.cursor_at;
    q.keyUsageAdd.run(1, at <= cursor ? 1 : 0, keyId);
    if (fairUse) q.fairUsageAdd.run({ n: 1, at, account: accountId, fair: fairUse });
    return Number(info.lastInsertRowid);
  };

  /** Delete an event (only while pending when `pendingOnly`) and uncount it; false when there was nothing to delete. */
  const releaseTx = db.transaction((eventId: number, pendingOnly: boolean): boolean => {
    if (pendingOnly && !q.isPending.get(eventId)) return false;
    const e = q.eventById.get(eventId);
    if (!e) return false;
    q.deleteEvent.run(eventId);
    const row = q.keyUsage.get(e.key_id);
    if (row) q.keyUsageAdd.run(-1, e.at <= row.cursor_at ? -1 : 0, e.key_id);
    if (e.fair_use) q.fairUsageAdd.run({ n: -1, at: e.at, account: e.account_id, fair: e.fair_use });
    return true;
  });

  // Every event of the use (a batch's several) in one transaction.
  const confirmTx = db.transaction((use: ReservedUse): void => {
    for (const u of eachUse(use)) {
      if (q.confirm.run(u.eventId).changes > 0 || q.eventExists.get(u.eventId)) continue;
      // A sweep released it (this process was taken for dead): the work succeeded, so it counts again.
      q.keyUsageInit.run(u.keyId);
      if (u.fairUse) q.fairUsageInit.run(u.accountId, u.fairUse, 0);
      recordEvent(u.accountId, u.keyId, u.endpoint, u.fairUse, u.at, null);
    }
  });

  // This process's instance row, registered at the first reservation (the admin CLI never registers).
  const timing = leaseTiming(opts.leaseMs);
  const me = thisInstance();
  let myId = 0;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  const beat = (): void => {
    if (myId === 0) return;
    const t = Date.now();
    // Re-register under the same id if another process swept this one (e.g. after a long stall).
    if (q.heartbeat.run(t, myId).changes === 0) q.insertInstance.run(myId, me.hostKey, me.host, me.pid, t, t, timing.leaseMs);
  };
  const instanceId = (): number => {
    if (myId !== 0) return myId;
    const t = Date.now();
    myId = Number(q.insertInstance.run(null, me.hostKey, me.host, me.pid, t, t, timing.leaseMs).lastInsertRowid);
    heartbeatTimer = setInterval(() => {
      try {
        beat();
      } catch {
        // busy or closed: the next beat retries; the lease is six beats long
      }
    }, timing.heartbeatMs);
    heartbeatTimer.unref();
    return myId;
  };

  const gone = (): number[] => {
    const now = Date.now();
    // Each instance is judged by the lease it stated (its heartbeat runs at a sixth of it).
    return q.instances.all().filter((i) => i.id !== myId && (i.heartbeat_at < now - (i.lease_ms ?? timing.leaseMs) || endedHere(i))).map((i) => i.id);
  };
  const sweepTx = db.transaction((): number => {
    for (const id of gone()) q.deleteInstance.run(id);
    let n = 0;
    for (const o of q.orphans.all(myId)) if (releaseTx(o.id, true)) n++;
    return n;
  });
  /** Sweep; the write transaction runs only when an instance is gone or a pending use has no instance. */
  const sweep = (): number => {
    beat();
    return gone().length > 0 || q.orphans.get(myId) ? sweepTx.immediate() : 0;
  };
  sweep();
  const sweepTimer = setInterval(() => {
    try {
      sweep();
    } catch {
      // busy: the next sweep retries
    }
  }, timing.sweepMs);
  sweepTimer.unref();

  const pruneTx = db.transaction((before: number): number => {
    for (const c of q.pruneCounts.all(before)) q.keyUsageAdd.run(-c.n, -c.ne, c.key_id);
    for (const c of q.pruneFairCounts.all(before)) q.fairUsageSub.run(c.n, c.ne, c.nm, c.account_id, c.fair_use);
    return q.prune.run(before).changes;
  });

  const findKey = (hash: string): { key: ApiKey; account: Account; hash: string } | null => {
    const version = q.dataVersion.get()!;
    if (version !== cacheVersion) {
      keyCache.clear();
      cacheVersion = version;
    }
    const hit = keyCache.get(hash);
    if (hit) return hit;
    const k = q.keyByHash.get(hash);
    if (!k) return null;
    const a = q.getAccount.get(k.account_id);
    if (!a) return null;
    const found = Object.freeze({ key: Object.freeze(toKey(k)), account: Object.freeze(toAccount(a)), hash: k.hash });
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(hash, found);
    return found;
  };

  const idempotency = sqliteIdempotency(db, keepNative, timing.leaseMs, confirmTx);
  const jobs = sqliteJobs(db, keepNative, timing.leaseMs, (u) => confirmTx(u));
  let closed = false;
  const store: Store = {
    idempotency,
    jobs,
    webhooks: sqliteWebhooks(db, keepNative),
    async createAccount({ name, plan, admin = false, now }) {
      const id = 'acc_' + randomBytes(8).toString('hex');
      q.insertAccount.run({ id, name, plan, admin: admin ? 1 : 0, daily_limit: DEFAULT_DAILY_LIMIT, created_at: now });
      invalidate();
      return toAccount(q.getAccount.get(id)!);
    },
    async getAccount(id) {
      const r = q.getAccount.get(id);
      return r ? toAccount(r) : null;
    },
    async listAccounts() {
      return q.listAccounts.all().map(toAccount);
    },
    async countAccounts() {
      return q.countAccounts.get()!.n;
    },
    async updateAccount(id, patch: AccountPatch) {
      const { sets, vals } = Rows.accountAssignments(patch, () => '?', (v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      if (sets.length) {
        const sql = `UPDATE accounts SET ${sets.join(', ')} WHERE id = ?`;
        let stmt = updates.get(sql);
        if (!stmt) updates.set(sql, (stmt = db.prepare(sql)));
        stmt.run(...vals, id);
      }
      invalidate();
      const r = q.getAccount.get(id);
      if (!r) throw new ServiceError('not_found', `No account ${id}`);
      return toAccount(r);
    },
    async createFirstAccount({ name, plan, now, key }) {
      // One write transaction (BEGIN IMMEDIATE): processes opening one file together create the account once.
      const made = db.transaction(() => {
        if (q.countAccounts.get()!.n > 0) return null;
        const id = 'acc_' + randomBytes(8).toString('hex');
        q.insertAccount.run({ id, name, plan, admin: 0, daily_limit: DEFAULT_DAILY_LIMIT, created_at: now });
        const keyId = 'key_' + randomBytes(8).toString('hex');
        q.insertKey.run(keyId, id, key.hash, key.prefix, now);
        return { account: toAccount(q.getAccount.get(id)!), key: toKey(q.keyById.get(keyId)!) };
      }).immediate();
      invalidate();
      return made;
    },
    async insertKey({ accountId, hash, prefix, now }) {
      const id = 'key_' + randomBytes(8).toString('hex');
      q.insertKey.run(id, accountId, hash, prefix, now);
      invalidate();
      return toKey(q.keyById.get(id)!);
    },
    async findKeyByHash(hash) {
      return findKey(hash);
    },
    findKeyByHashSync(hash) {
      return findKey(hash);
    },
    async listKeys(accountId) {
      return q.keysOf.all(accountId).map(toKey);
    },
    async getKey(id) {
      const r = q.keyById.get(id);
      return r ? toKey(r) : null;
    },
    async revokeKey(id, now) {
      q.revoke.run(now, id);
      invalidate();
      const r = q.keyById.get(id);
      return r ? toKey(r) : null;
    },
    async reserve(req) {
      return reserveTx.immediate(req);
    },
    async confirm(use) {
      confirmTx.immediate(use);
    },
    async release(eventId) {
      releaseTx.immediate(eventId, false);
    },
    async sweepReservations() {
      return sweep();
    },
    async releaseOwnPending(keep, before) {
      if (myId === 0) return 0;
      let n = 0;
      for (const r of q.ownPending.all(myId, before)) if (!keep.has(r.id) && releaseTx.immediate(r.id, true)) n++;
      return n;
    },
    async countFairUse(accountId, fairUse, since) {
      return q.countFair.get(accountId, fairUse, since)!.n;
    },
    async usage(accountId, now, monthStart): Promise<UsageSummary> {
      const since = now - WINDOW_MS;
      const fairUse = {} as Record<FairUseName, number>;
      for (const f of FAIR_USE_NAMES) fairUse[f] = q.countFair.get(accountId, f, since)!.n;
      const perEndpoint: Record<string, number> = {};
      for (const r of q.perEndpoint.all(accountId, since)) perEndpoint[r.endpoint] = r.n;
      return {
        accountId, windowStart: since,
        perKey: q.perKey.all(accountId, since).map((r) => ({ keyId: r.key_id, used: r.n })),
        fairUse, removeBgThisMonth: q.countFairFrom.get(accountId, 'remove_bg', monthStart)!.n, perEndpoint,
      };
    },
    async pruneUsage(before) {
      return pruneTx.immediate(before);
    },
    async getSetting(name) {
      const r = q.getSetting.get(name);
      return r ? (JSON.parse(r.value) as unknown) : null;
    },
    async setSetting(name, value) {
      if (value === null || value === undefined) q.deleteSetting.run(name);
      else q.setSetting.run(name, JSON.stringify(value));
    },
    async listSettings() {
      const out: Record<string, unknown> = {};
      for (const r of q.listSettings.all()) out[r.name] = JSON.parse(r.value) as unknown;
      return out;
    },
    async ping() {
      q.ping.get();
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweepTimer);
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      idempotency.close();
      jobs.close();
      // Leftover pending uses (requests cut by the shutdown) become orphans, released by the next sweep anywhere.
      if (myId !== 0) q.deleteInstance.run(myId);
      db.close();
    },
  };
  return store;
}
