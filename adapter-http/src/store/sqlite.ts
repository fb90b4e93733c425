// Embedded SQLite implementation of the Store (better-sqlite3, WAL), the default store.
// The file is `<dataDir>/inkprep.db`, created on first start; schema changes are versioned migrations
// tracked in PRAGMA user_version. Reservations run in BEGIN IMMEDIATE transactions, so they are atomic
// even across processes sharing the file.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { InkprepError } from '@inkprep/engine';
import {
  ACCOUNT_PATCH_COLUMNS, DEFAULT_DAILY_LIMIT, FAIR_USE_NAMES, WINDOW_MS,
  type Account, type AccountPatch, type ApiKey, type FairUseName, type Plan, type ReserveRequest, type ReserveResult, type Store, type UsageSummary,
} from './types.js';

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
];

interface AccountRow {
  id: string; name: string; plan: string; status: string; admin: number; daily_limit: number;
  remove_bg_cap: number | null; upscale_cap: number | null; remove_bg_monthly: number | null; created_at: number;
}
interface KeyRow { id: string; account_id: string; hash: string; prefix: string; created_at: number; revoked_at: number | null }

function toAccount(r: AccountRow): Account {
  return {
    id: r.id, name: r.name, plan: r.plan as Plan, status: r.status as Account['status'], admin: r.admin === 1,
    dailyLimit: r.daily_limit, removeBgCap: r.remove_bg_cap, upscaleCap: r.upscale_cap,
    removeBgMonthlyAllowance: r.remove_bg_monthly, createdAt: r.created_at,
  };
}
function toKey(r: KeyRow): ApiKey {
  return { id: r.id, accountId: r.account_id, prefix: r.prefix, createdAt: r.created_at, revokedAt: r.revoked_at };
}

/** Apply pending migrations; returns the resulting schema version. */
export function migrate(db: Database.Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
  return MIGRATIONS.length;
}

/**
 * Open (creating if needed) the SQLite store in `dataDir` (file `inkprep.db`), or in memory with `:memory:`.
 * @example const store = openSqliteStore('./data');
 */
export function openSqliteStore(dataDir: string): Store {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    file = path.join(dataDir, 'inkprep.db');
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);

  const q = {
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
    eventById: db.prepare<[number], { key_id: string; at: number }>('SELECT key_id, at FROM usage_events WHERE id = ?'),
    pruneCounts: db.prepare<[number], { key_id: string; n: number; ne: number }>(
      'SELECT e.key_id AS key_id, count(*) AS n, sum(CASE WHEN e.at <= k.cursor_at THEN 1 ELSE 0 END) AS ne FROM usage_events e JOIN key_usage k ON k.key_id = e.key_id WHERE e.at < ? GROUP BY e.key_id'),
    nthKey: db.prepare<[string, number, number], { at: number }>('SELECT at FROM usage_events WHERE key_id = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?'),
    countFair: db.prepare<[string, string, number], { n: number }>('SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND fair_use = ? AND at > ?'),
    countFairFrom: db.prepare<[string, string, number], { n: number }>('SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND fair_use = ? AND at >= ?'),
    nthFair: db.prepare<[string, string, number, number], { at: number }>('SELECT at FROM usage_events WHERE account_id = ? AND fair_use = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?'),
    insertEvent: db.prepare('INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at) VALUES (?, ?, ?, ?, ?)'),
    deleteEvent: db.prepare('DELETE FROM usage_events WHERE id = ?'),
    perKey: db.prepare<[string, number], { key_id: string; n: number }>('SELECT key_id, count(*) AS n FROM usage_events WHERE account_id = ? AND at > ? GROUP BY key_id'),
    perEndpoint: db.prepare<[string, number], { endpoint: string; n: number }>('SELECT endpoint, count(*) AS n FROM usage_events WHERE account_id = ? AND at > ? GROUP BY endpoint'),
    prune: db.prepare('DELETE FROM usage_events WHERE at < ?'),
    getSetting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?'),
    setSetting: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
    deleteSetting: db.prepare('DELETE FROM settings WHERE name = ?'),
    listSettings: db.prepare<[], { name: string; value: string }>('SELECT name, value FROM settings ORDER BY name'),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  };

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

  const reserveTx = db.transaction((r: ReserveRequest): ReserveResult => {
    const since = r.now - WINDOW_MS;
    const usedKey = keyUsedSince(r.keyId, since);
    if (usedKey >= r.dailyLimit) {
      const oldest = q.nthKey.get(r.keyId, since, usedKey - r.dailyLimit)?.at ?? r.now; // limit 0 with no uses: a full window
      return { ok: false, limit: 'daily', max: r.dailyLimit, used: usedKey, retryAfterMs: oldest + WINDOW_MS - r.now };
    }
    if (r.fairUse && r.fairUseCap !== null) {
      const used = q.countFair.get(r.accountId, r.fairUse, since)!.n;
      if (used >= r.fairUseCap) {
        const offset = used - r.fairUseCap;
        const oldest = q.nthFair.get(r.accountId, r.fairUse, since, offset)?.at ?? r.now;
        return { ok: false, limit: 'fair_use', max: r.fairUseCap, used, retryAfterMs: oldest + WINDOW_MS - r.now };
      }
    }
    if (r.fairUse && r.monthly) {
      const used = q.countFairFrom.get(r.accountId, r.fairUse, r.monthly.monthStart)!.n;
      if (used >= r.monthly.limit) return { ok: false, limit: 'monthly', max: r.monthly.limit, used, retryAfterMs: r.monthly.nextMonthStart - r.now };
    }
    const info = q.insertEvent.run(r.accountId, r.keyId, r.endpoint, r.fairUse, r.now);
    const cursor = q.keyUsage.get(r.keyId)!.cursor_at;
    q.keyUsageAdd.run(1, r.now <= cursor ? 1 : 0, r.keyId);
    return { ok: true, eventId: Number(info.lastInsertRowid) };
  });

  const releaseTx = db.transaction((eventId: number): void => {
    const e = q.eventById.get(eventId);
    if (!e) return;
    q.deleteEvent.run(eventId);
    const row = q.keyUsage.get(e.key_id);
    if (row) q.keyUsageAdd.run(-1, e.at <= row.cursor_at ? -1 : 0, e.key_id);
  });

  const pruneTx = db.transaction((before: number): number => {
    for (const c of q.pruneCounts.all(before)) q.keyUsageAdd.run(-c.n, -c.ne, c.key_id);
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

  let closed = false;
  const store: Store = {
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
      const cols = ACCOUNT_PATCH_COLUMNS;
      const sets: string[] = [];
      const vals: unknown[] = [];
      for (const [k, v] of Object.entries(patch) as [keyof AccountPatch, unknown][]) {
        if (v === undefined || !(k in cols)) continue;
        sets.push(`${cols[k]} = ?`);
        vals.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
      }
      if (sets.length) db.prepare(`UPDATE accounts SET ${sets.join(', ')} WHERE id = ?`).run(...vals, id);
      invalidate();
      const r = q.getAccount.get(id);
      if (!r) throw new InkprepError('not_found', `No account ${id}`);
      return toAccount(r);
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
    async release(eventId) {
      releaseTx.immediate(eventId);
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
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
  return store;
}
