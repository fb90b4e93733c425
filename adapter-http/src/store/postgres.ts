// PostgreSQL implementation of the Store, chosen by DATABASE_URL, for several server processes sharing
// accounts, keys, usage windows and settings. Schema changes are versioned migrations run on open,
// under an advisory lock so processes starting together apply each exactly once. Reservations lock the
// account row (SELECT ... FOR UPDATE) so every limit check-and-insert of an account is serialised across
// all processes: two processes racing for the last unit admit exactly one.
// Account state is never cached: a suspension through the admin CLI applies to every process on its next request.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { InkprepError } from '@inkprep/engine';
import {
  DEFAULT_DAILY_LIMIT, FAIR_USE_NAMES, WINDOW_MS,
  type Account, type AccountPatch, type ApiKey, type FairUseName, type Plan, type ReserveResult, type Store, type UsageSummary,
} from './types.js';

/** Ordered schema migrations; index + 1 is the version recorded in inkprep_schema. Append only. */
export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS accounts (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, plan TEXT NOT NULL, status TEXT NOT NULL,
     admin BOOLEAN NOT NULL DEFAULT FALSE, daily_limit INTEGER NOT NULL,
     remove_bg_cap INTEGER, upscale_cap INTEGER, remove_bg_monthly INTEGER, created_at BIGINT NOT NULL);
   CREATE TABLE IF NOT EXISTS api_keys (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL, created_at BIGINT NOT NULL, revoked_at BIGINT);
   CREATE INDEX IF NOT EXISTS api_keys_account ON api_keys(account_id);
   CREATE TABLE IF NOT EXISTS usage_events (
     id BIGSERIAL PRIMARY KEY, account_id TEXT NOT NULL, key_id TEXT NOT NULL,
     endpoint TEXT NOT NULL, fair_use TEXT, at BIGINT NOT NULL);
   CREATE INDEX IF NOT EXISTS usage_key_at ON usage_events(key_id, at);
   CREATE INDEX IF NOT EXISTS usage_account_fair_at ON usage_events(account_id, fair_use, at);
   CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value JSONB NOT NULL);`,
];

// Arbitrary constant for pg_advisory_lock: serialises migrations between processes starting together.
const MIGRATION_LOCK = 0x1_4b_50_52;

interface AccountRow {
  id: string; name: string; plan: string; status: string; admin: boolean; daily_limit: number;
  remove_bg_cap: number | null; upscale_cap: number | null; remove_bg_monthly: number | null; created_at: string;
}
interface KeyRow { id: string; account_id: string; hash: string; prefix: string; created_at: string; revoked_at: string | null }

function toAccount(r: AccountRow): Account {
  return {
    id: r.id, name: r.name, plan: r.plan as Plan, status: r.status as Account['status'], admin: r.admin,
    dailyLimit: r.daily_limit, removeBgCap: r.remove_bg_cap, upscaleCap: r.upscale_cap,
    removeBgMonthlyAllowance: r.remove_bg_monthly, createdAt: Number(r.created_at),
  };
}
function toKey(r: KeyRow): ApiKey {
  return { id: r.id, accountId: r.account_id, prefix: r.prefix, createdAt: Number(r.created_at), revokedAt: r.revoked_at === null ? null : Number(r.revoked_at) };
}

/** Apply pending migrations (idempotent; safe when several processes start at once). Returns the schema version. */
export async function migratePostgres(pool: pg.Pool): Promise<number> {
  const c = await pool.connect();
  try {
    await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS inkprep_schema (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const { rows } = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM inkprep_schema');
    for (let v = rows[0]?.v ?? 0; v < PG_MIGRATIONS.length; v++) {
      await c.query('BEGIN');
      try {
        await c.query(PG_MIGRATIONS[v]!);
        await c.query('INSERT INTO inkprep_schema (version, applied_at) VALUES ($1, $2)', [v + 1, Date.now()]);
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK');
        throw err;
      }
    }
    return PG_MIGRATIONS.length;
  } finally {
    await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    c.release();
  }
}

/** Options of the PostgreSQL store. */
export interface PostgresStoreOptions {
  /** postgres:// connection string (DATABASE_URL). */
  connectionString: string;
  /** Pool size per process; default 10. */
  max?: number;
}

/**
 * Open the PostgreSQL store: connects, runs migrations, returns the Store.
 * @example const store = await openPostgresStore({ connectionString: process.env.DATABASE_URL! });
 * @throws when the server cannot be reached (the caller decides whether that is fatal).
 */
export async function openPostgresStore(opts: PostgresStoreOptions): Promise<Store & { pool: pg.Pool }> {
  const pool = new pg.Pool({ connectionString: opts.connectionString, max: opts.max ?? 10 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  try {
    await migratePostgres(pool);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }

  async function tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  const count = async (c: pg.PoolClient | pg.Pool, sql: string, args: unknown[]): Promise<number> =>
    Number((await c.query<{ n: string }>(sql, args)).rows[0]!.n);

  let closed = false;
  const store: Store & { pool: pg.Pool } = {
    pool,
    async createAccount({ name, plan, admin = false, now }) {
      const id = 'acc_' + randomBytes(8).toString('hex');
      const { rows } = await pool.query<AccountRow>(
        `INSERT INTO accounts (id, name, plan, status, admin, daily_limit, created_at) VALUES ($1, $2, $3, 'active', $4, $5, $6) RETURNING *`,
        [id, name, plan, admin, DEFAULT_DAILY_LIMIT, now],
      );
      return toAccount(rows[0]!);
    },
    async getAccount(id) {
      const { rows } = await pool.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
      return rows[0] ? toAccount(rows[0]) : null;
    },
    async listAccounts() {
      return (await pool.query<AccountRow>('SELECT * FROM accounts ORDER BY created_at, id')).rows.map(toAccount);
    },
    async countAccounts() {
      return count(pool, 'SELECT count(*) AS n FROM accounts', []);
    },
    async updateAccount(id, patch: AccountPatch) {
      const cols: Record<keyof AccountPatch, string> = {
        name: 'name', plan: 'plan', status: 'status', admin: 'admin', dailyLimit: 'daily_limit',
        removeBgCap: 'remove_bg_cap', upscaleCap: 'upscale_cap', removeBgMonthlyAllowance: 'remove_bg_monthly',
      };
      const sets: string[] = [];
      const vals: unknown[] = [];
      for (const [k, v] of Object.entries(patch) as [keyof AccountPatch, unknown][]) {
        if (v === undefined || !(k in cols)) continue;
        vals.push(v);
        sets.push(`${cols[k]} = $${vals.length}`);
      }
      vals.push(id);
      const sql = sets.length
        ? `UPDATE accounts SET ${sets.join(', ')} WHERE id = $${vals.length} RETURNING *`
        : 'SELECT * FROM accounts WHERE id = $1';
      const { rows } = await pool.query<AccountRow>(sql, sets.length ? vals : [id]);
      if (!rows[0]) throw new InkprepError('not_found', `No account ${id}`);
      return toAccount(rows[0]);
    },
    async insertKey({ accountId, hash, prefix, now }) {
      const id = 'key_' + randomBytes(8).toString('hex');
      const { rows } = await pool.query<KeyRow>(
        'INSERT INTO api_keys (id, account_id, hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
        [id, accountId, hash, prefix, now],
      );
      return toKey(rows[0]!);
    },
    async findKeyByHash(hash) {
      // One round trip: the key and its account's live state.
      const { rows } = await pool.query<KeyRow & { a: AccountRow }>(
        'SELECT k.*, row_to_json(a) AS a FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1',
        [hash],
      );
      const r = rows[0];
      if (!r) return null;
      return { key: toKey(r), account: toAccount(r.a), hash: r.hash };
    },
    async listKeys(accountId) {
      return (await pool.query<KeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [accountId])).rows.map(toKey);
    },
    async getKey(id) {
      const { rows } = await pool.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
      return rows[0] ? toKey(rows[0]) : null;
    },
    async revokeKey(id, now) {
      await pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id]);
      return store.getKey(id);
    },
    async reserve(r): Promise<ReserveResult> {
      return tx(async (c) => {
        // The account row lock serialises every reservation of the account (all its keys) across processes.
        await c.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [r.accountId]);
        const since = r.now - WINDOW_MS;
        const usedKey = await count(c, 'SELECT count(*) AS n FROM usage_events WHERE key_id = $1 AND at > $2', [r.keyId, since]);
        if (usedKey >= r.dailyLimit) {
          const { rows } = await c.query<{ at: string }>('SELECT at FROM usage_events WHERE key_id = $1 AND at > $2 ORDER BY at LIMIT 1 OFFSET $3', [r.keyId, since, usedKey - r.dailyLimit]);
          const oldest = rows[0] ? Number(rows[0].at) : r.now;
          return { ok: false, limit: 'daily', max: r.dailyLimit, used: usedKey, retryAfterMs: oldest + WINDOW_MS - r.now };
        }
        if (r.fairUse && r.fairUseCap !== null) {
          const used = await count(c, 'SELECT count(*) AS n FROM usage_events WHERE account_id = $1 AND fair_use = $2 AND at > $3', [r.accountId, r.fairUse, since]);
          if (used >= r.fairUseCap) {
            const { rows } = await c.query<{ at: string }>(
              'SELECT at FROM usage_events WHERE account_id = $1 AND fair_use = $2 AND at > $3 ORDER BY at LIMIT 1 OFFSET $4',
              [r.accountId, r.fairUse, since, used - r.fairUseCap],
            );
            const oldest = rows[0] ? Number(rows[0].at) : r.now;
            return { ok: false, limit: 'fair_use', max: r.fairUseCap, used, retryAfterMs: oldest + WINDOW_MS - r.now };
          }
        }
        if (r.fairUse && r.monthly) {
          const used = await count(c, 'SELECT count(*) AS n FROM usage_events WHERE account_id = $1 AND fair_use = $2 AND at >= $3', [r.accountId, r.fairUse, r.monthly.monthStart]);
          if (used >= r.monthly.limit) return { ok: false, limit: 'monthly', max: r.monthly.limit, used, retryAfterMs: r.monthly.nextMonthStart - r.now };
        }
        const { rows } = await c.query<{ id: string }>(
          'INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
          [r.accountId, r.keyId, r.endpoint, r.fairUse, r.now],
        );
        return { ok: true, eventId: Number(rows[0]!.id) };
      });
    },
    async release(eventId) {
      await pool.query('DELETE FROM usage_events WHERE id = $1', [eventId]);
    },
    async countFairUse(accountId, fairUse, since) {
      return count(pool, 'SELECT count(*) AS n FROM usage_events WHERE account_id = $1 AND fair_use = $2 AND at > $3', [accountId, fairUse, since]);
    },
    async usage(accountId, now, monthStart): Promise<UsageSummary> {
      const since = now - WINDOW_MS;
      const fairUse = {} as Record<FairUseName, number>;
      for (const f of FAIR_USE_NAMES) fairUse[f] = await store.countFairUse(accountId, f, since);
      const perEndpoint: Record<string, number> = {};
      const ep = await pool.query<{ endpoint: string; n: string }>('SELECT endpoint, count(*) AS n FROM usage_events WHERE account_id = $1 AND at > $2 GROUP BY endpoint', [accountId, since]);
      for (const r of ep.rows) perEndpoint[r.endpoint] = Number(r.n);
      const pk = await pool.query<{ key_id: string; n: string }>('SELECT key_id, count(*) AS n FROM usage_events WHERE account_id = $1 AND at > $2 GROUP BY key_id ORDER BY key_id', [accountId, since]);
      return {
        accountId, windowStart: since,
        perKey: pk.rows.map((r) => ({ keyId: r.key_id, used: Number(r.n) })),
        fairUse,
        removeBgThisMonth: await count(pool, 'SELECT count(*) AS n FROM usage_events WHERE account_id = $1 AND fair_use = $2 AND at >= $3', [accountId, 'remove_bg', monthStart]),
        perEndpoint,
      };
    },
    async pruneUsage(before) {
      return (await pool.query('DELETE FROM usage_events WHERE at < $1', [before])).rowCount ?? 0;
    },
    async getSetting(name) {
      const { rows } = await pool.query<{ value: unknown }>('SELECT value FROM settings WHERE name = $1', [name]);
      return rows[0] ? rows[0].value : null;
    },
    async setSetting(name, value) {
      if (value === null || value === undefined) await pool.query('DELETE FROM settings WHERE name = $1', [name]);
      else await pool.query('INSERT INTO settings (name, value) VALUES ($1, $2::jsonb) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, JSON.stringify(value)]);
    },
    async listSettings() {
      const out: Record<string, unknown> = {};
      for (const r of (await pool.query<{ name: string; value: unknown }>('SELECT name, value FROM settings ORDER BY name')).rows) out[r.name] = r.value;
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
  return store;
}
