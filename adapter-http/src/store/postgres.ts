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
  ACCOUNT_PATCH_COLUMNS, DEFAULT_DAILY_LIMIT, FAIR_USE_NAMES, WINDOW_MS,
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
  // Reservation as one server-side function: one round trip per request, and the account row lock is held
  // only while the function runs (not across several client round trips), so contended accounts stay fast.
  `CREATE OR REPLACE FUNCTION inkprep_reserve(
     p_account TEXT, p_key TEXT, p_endpoint TEXT, p_fair TEXT, p_now BIGINT, p_window BIGINT,
     p_daily INTEGER, p_cap INTEGER, p_month_limit INTEGER, p_month_start BIGINT, p_next_month BIGINT)
   RETURNS TABLE (ok BOOLEAN, event_id BIGINT, lim TEXT, max_n INTEGER, used_n INTEGER, retry_ms BIGINT)
   LANGUAGE plpgsql AS $$
   DECLARE
     since BIGINT := p_now - p_window;
     used INTEGER;
     oldest BIGINT;
     eid BIGINT;
   BEGIN
     PERFORM 1 FROM accounts WHERE id = p_account FOR UPDATE;
     SELECT count(*) INTO used FROM usage_events WHERE key_id = p_key AND at > since;
     IF used >= p_daily THEN
       SELECT at INTO oldest FROM usage_events WHERE key_id = p_key AND at > since ORDER BY at LIMIT 1 OFFSET (used - p_daily);
       RETURN QUERY SELECT false, NULL::BIGINT, 'daily'::TEXT, p_daily, used, COALESCE(oldest, p_now) + p_window - p_now;
       RETURN;
     END IF;
     IF p_fair IS NOT NULL AND p_cap IS NOT NULL THEN
       SELECT count(*) INTO used FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at > since;
       IF used >= p_cap THEN
         SELECT at INTO oldest FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at > since ORDER BY at LIMIT 1 OFFSET (used - p_cap);
         RETURN QUERY SELECT false, NULL::BIGINT, 'fair_use'::TEXT, p_cap, used, COALESCE(oldest, p_now) + p_window - p_now;
         RETURN;
       END IF;
     END IF;
     IF p_fair IS NOT NULL AND p_month_limit IS NOT NULL THEN
       SELECT count(*) INTO used FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at >= p_month_start;
       IF used >= p_month_limit THEN
         RETURN QUERY SELECT false, NULL::BIGINT, 'monthly'::TEXT, p_month_limit, used, p_next_month - p_now;
         RETURN;
       END IF;
     END IF;
     INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at) VALUES (p_account, p_key, p_endpoint, p_fair, p_now) RETURNING id INTO eid;
     RETURN QUERY SELECT true, eid, NULL::TEXT, NULL::INTEGER, NULL::INTEGER, NULL::BIGINT;
   END $$;`,
  // Any change to accounts or keys (admin CLI, another process, or an operator's SQL) notifies every
  // process, which drops its key cache: cached auth state is never older than that notification.
  `CREATE OR REPLACE FUNCTION inkprep_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('inkprep_auth', TG_TABLE_NAME);
     RETURN NULL;
   END $$;
   DROP TRIGGER IF EXISTS inkprep_accounts_changed ON accounts;
   CREATE TRIGGER inkprep_accounts_changed AFTER INSERT OR UPDATE OR DELETE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION inkprep_auth_changed();
   DROP TRIGGER IF EXISTS inkprep_keys_changed ON api_keys;
   CREATE TRIGGER inkprep_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION inkprep_auth_changed();`,
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
  /** Cache key lookups, invalidated by LISTEN/NOTIFY; default true. The admin CLI turns it off (short-lived). */
  cacheKeys?: boolean;
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

  // Key lookups (every request) are cached only while a LISTEN connection is up: every change to accounts
  // or keys fires NOTIFY inkprep_auth (trigger), which clears the cache. A lookup that raced a
  // notification is not cached (generation check). Listener down -> no caching until it reconnects.
  let closed = false;
  const KEY_CACHE_MAX = 10_000;
  const keyCache = new Map<string, { key: ApiKey; account: Account; hash: string }>();
  let generation = 0;
  let listening = false;
  let listener: pg.Client | null = null;
  let reconnect: NodeJS.Timeout | null = null;
  const invalidate = (): void => {
    generation++;
    keyCache.clear();
  };
  const listen = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: opts.connectionString });
    const down = (): void => {
      if (listener !== c) return;
      listening = false;
      listener = null;
      invalidate();
      c.end().catch(() => undefined);
      if (!closed && !reconnect) {
        reconnect = setTimeout(() => {
          reconnect = null;
          listen().catch(() => undefined);
        }, 1000);
        reconnect.unref();
      }
    };
    listener = c;
    c.on('error', down);
    c.on('end', down);
    c.on('notification', invalidate);
    try {
      await c.connect();
      await c.query('LISTEN inkprep_auth');
      invalidate();
      listening = true;
    } catch {
      down();
    }
  };
  if (opts.cacheKeys !== false) await listen();

  const count = async (c: pg.Pool, sql: string, args: unknown[]): Promise<number> =>
    Number((await c.query<{ n: string }>(sql, args)).rows[0]!.n);

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
      const cols = ACCOUNT_PATCH_COLUMNS;
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
      invalidate(); // this process sees its own change at once, without waiting for the notification
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
      if (listening) {
        const hit = keyCache.get(hash);
        if (hit) return hit;
      }
      const gen = generation;
      // One round trip: the key and its account's live state.
      const { rows } = await pool.query<KeyRow & { a: AccountRow }>(
        'SELECT k.*, row_to_json(a) AS a FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1',
        [hash],
      );
      const r = rows[0];
      if (!r) return null;
      const found = Object.freeze({ key: Object.freeze(toKey(r)), account: Object.freeze(toAccount(r.a)), hash: r.hash });
      if (listening && gen === generation) {
        if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
        keyCache.set(hash, found);
      }
      return found;
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
      invalidate();
      return store.getKey(id);
    },
    async reserve(r): Promise<ReserveResult> {
      const { rows } = await pool.query<{ ok: boolean; event_id: string | null; lim: 'daily' | 'fair_use' | 'monthly' | null; max_n: number | null; used_n: number | null; retry_ms: string | null }>(
        'SELECT * FROM inkprep_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
        [r.accountId, r.keyId, r.endpoint, r.fairUse, r.now, WINDOW_MS, r.dailyLimit, r.fairUse ? r.fairUseCap : null,
          r.fairUse && r.monthly ? r.monthly.limit : null, r.monthly?.monthStart ?? null, r.monthly?.nextMonthStart ?? null],
      );
      const x = rows[0]!;
      if (x.ok) return { ok: true, eventId: Number(x.event_id) };
      return { ok: false, limit: x.lim!, max: x.max_n!, used: x.used_n!, retryAfterMs: Number(x.retry_ms) };
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
      if (reconnect) clearTimeout(reconnect);
      const l = listener;
      listener = null;
      listening = false;
      await Promise.all([pool.end(), l?.end().catch(() => undefined)]);
    },
  };
  return store;
}
