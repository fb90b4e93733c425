// PostgreSQL implementation of the Store, chosen by DATABASE_URL, for several server processes sharing
// accounts, keys, usage windows and settings. Schema changes are versioned migrations run on open,
// under an advisory lock so processes starting together apply each exactly once. A reservation is one
// server-side function call (inkprep_reserve) on running counts: it locks the key's counter row (and, for
// remove-bg/upscale, the account's fair-use counter row), so every check-and-insert of a key or account is
// serialised across all processes (two processes racing for the last unit admit exactly one), at a cost
// that does not grow with the uses in the window. A reservation is pending (owned by this process's
// instance row, see instance.ts) until confirmed or released; the sweep releases those of dead processes.
// Account state is never cached: a suspension through the admin CLI applies to every process on its next request.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { endedHere, leaseTiming, thisInstance } from './instance.js';
import {
  DEFAULT_DAILY_LIMIT, FAIR_USE_NAMES, WINDOW_MS,
  type Account, type AccountPatch, type ApiKey, type FairUseName, type ReserveResult, type ReservedUse, type Store, type UsageSummary, monthBounds,
} from './types.js';
import * as Rows from './rows.js';
import { eachUse } from './use.js';
import { PG_IDEMPOTENCY_SCHEMA, pgIdempotency } from './idempotency-pg.js';
import { PG_JOBS_SCHEMA, PG_JOBS_USE_MORE, pgJobs } from './jobs-pg.js';
import { PG_WEBHOOKS_ONE_PER_JOB, PG_WEBHOOKS_SCHEMA, pgWebhooks } from './webhooks-pg.js';
import { ServiceError } from '../errors/registry.js';

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
  // v4: O(1) reservations and crash-safe counting; the functions live in PG_METER_SQL.
  // Running counts, exact over the rolling window: a counter row keeps `total` events and `expired`, the
  // events at or before `cursor_at`; in-window uses = total - expired once the cursor is advanced to the
  // window start (counting only the events that left the window since the last call, through the
  // (key_id, at) index), plus a recount of (since, cursor] if a clock stands behind the cursor.
  // fair_usage does the same per account and fair-use meter, and counts the calendar month from month_start.
  // A use is pending while instance_id names the process that reserved it (NULL = confirmed, and every use
  // recorded before v4). The table lock keeps old processes from inserting while the counts are taken.
  `LOCK TABLE usage_events IN SHARE ROW EXCLUSIVE MODE;
   ALTER TABLE usage_events ADD COLUMN IF NOT EXISTS instance_id BIGINT;
   CREATE INDEX IF NOT EXISTS usage_pending ON usage_events(instance_id) WHERE instance_id IS NOT NULL;
   CREATE TABLE IF NOT EXISTS usage_instances (
     id BIGSERIAL PRIMARY KEY, host_key TEXT, host TEXT NOT NULL, pid INTEGER NOT NULL,
     started_at BIGINT NOT NULL, heartbeat_at BIGINT NOT NULL);
   CREATE TABLE IF NOT EXISTS key_usage (key_id TEXT PRIMARY KEY, total BIGINT NOT NULL, expired BIGINT NOT NULL, cursor_at BIGINT NOT NULL);
   INSERT INTO key_usage (key_id, total, expired, cursor_at) SELECT key_id, count(*), 0, 0 FROM usage_events GROUP BY key_id ON CONFLICT DO NOTHING;
   CREATE TABLE IF NOT EXISTS fair_usage (
     account_id TEXT NOT NULL, fair_use TEXT NOT NULL, total BIGINT NOT NULL, expired BIGINT NOT NULL, cursor_at BIGINT NOT NULL,
     month_start BIGINT NOT NULL, month_n BIGINT NOT NULL, PRIMARY KEY (account_id, fair_use));
   INSERT INTO fair_usage (account_id, fair_use, total, expired, cursor_at, month_start, month_n)
     SELECT account_id, fair_use, count(*), 0, 0, 0, count(*) FROM usage_events WHERE fair_use IS NOT NULL GROUP BY account_id, fair_use ON CONFLICT DO NOTHING;
   DROP FUNCTION IF EXISTS inkprep_reserve(TEXT, TEXT, TEXT, TEXT, BIGINT, BIGINT, INTEGER, INTEGER, INTEGER, BIGINT, BIGINT);`,
  // v5: each instance states its own lease, and sweepers judge its heartbeat by it (not by their own): a
  // process on a long lease (slow heartbeat) never looks dead to one on a short lease. NULL (rows of older
  // processes): the sweeper's lease, as before.
  `ALTER TABLE usage_instances ADD COLUMN IF NOT EXISTS lease_ms BIGINT;`,
  // v6: idempotency keys (issue #30; store/idempotency-pg.ts).
  PG_IDEMPOTENCY_SCHEMA,
  // v7: asynchronous jobs (issue #33; store/jobs-pg.ts).
  PG_JOBS_SCHEMA,
  // v8: webhook secrets and deliveries (issue #33; store/webhooks-pg.ts).
  PG_WEBHOOKS_SCHEMA,
  // v9: a job's further usage events (a mockup batch counts one per image; store/jobs.ts).
  PG_JOBS_USE_MORE,
  // v10: one webhook delivery per job (the outbox sweep; store/webhooks-pg.ts).
  PG_WEBHOOKS_ONE_PER_JOB,
];

/**
 * The metering functions, (re)created on every open after the migrations (CREATE OR REPLACE, under the
 * migration lock), so a fix reaches existing databases without a new migration. Lock order everywhere:
 * key_usage row, then fair_usage row (no deadlocks between reserve, confirm, release and prune).
 */
export const PG_METER_SQL = `
CREATE OR REPLACE FUNCTION inkprep_key_counts(p_key TEXT, p_since BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
-- Locks the key's counter row (creating it), advances its cursor to p_since, returns the uses after p_since.
DECLARE k key_usage%ROWTYPE; n BIGINT;
BEGIN
  SELECT * INTO k FROM key_usage WHERE key_id = p_key FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO key_usage VALUES (p_key, 0, 0, 0) ON CONFLICT DO NOTHING;
    SELECT * INTO k FROM key_usage WHERE key_id = p_key FOR UPDATE;
  END IF;
  IF p_since > k.cursor_at THEN
    SELECT count(*) INTO n FROM usage_events WHERE key_id = p_key AND at > k.cursor_at AND at <= p_since;
    UPDATE key_usage SET expired = expired + n, cursor_at = p_since WHERE key_id = p_key;
    RETURN k.total - k.expired - n;
  ELSIF p_since < k.cursor_at THEN
    SELECT count(*) INTO n FROM usage_events WHERE key_id = p_key AND at > p_since AND at <= k.cursor_at;
    RETURN k.total - k.expired + n;
  END IF;
  RETURN k.total - k.expired;
END $$;

CREATE OR REPLACE FUNCTION inkprep_fair_counts(p_account TEXT, p_fair TEXT, p_since BIGINT, p_month_start BIGINT, OUT used BIGINT, OUT month_used BIGINT) LANGUAGE plpgsql AS $$
-- Locks the account's fair-use counter row (creating it), advances its cursor and month, returns the
-- uses after p_since and since p_month_start.
DECLARE f fair_usage%ROWTYPE; n BIGINT;
BEGIN
  SELECT * INTO f FROM fair_usage WHERE account_id = p_account AND fair_use = p_fair FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO fair_usage VALUES (p_account, p_fair, 0, 0, 0, p_month_start, 0) ON CONFLICT DO NOTHING;
    SELECT * INTO f FROM fair_usage WHERE account_id = p_account AND fair_use = p_fair FOR UPDATE;
  END IF;
  IF f.month_start <> p_month_start THEN
    -- A new month (or the clock moved across a month boundary): count it once through the index.
    SELECT count(*) INTO f.month_n FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at >= p_month_start;
    f.month_start := p_month_start;
  END IF;
  month_used := f.month_n;
  IF p_since > f.cursor_at THEN
    SELECT count(*) INTO n FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at > f.cursor_at AND at <= p_since;
    f.expired := f.expired + n;
    f.cursor_at := p_since;
    used := f.total - f.expired;
  ELSIF p_since < f.cursor_at THEN
    SELECT count(*) INTO n FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at > p_since AND at <= f.cursor_at;
    used := f.total - f.expired + n;
  ELSE
    used := f.total - f.expired;
  END IF;
  UPDATE fair_usage SET expired = f.expired, cursor_at = f.cursor_at, month_start = f.month_start, month_n = f.month_n
   WHERE account_id = p_account AND fair_use = p_fair;
END $$;

CREATE OR REPLACE FUNCTION inkprep_count_event(p_key TEXT, p_account TEXT, p_fair TEXT, p_at BIGINT, p_sign INTEGER) RETURNS VOID LANGUAGE plpgsql AS $$
-- Adds (p_sign 1) or removes (-1) one event at p_at in the running counts; the caller holds the row locks.
BEGIN
  UPDATE key_usage SET total = total + p_sign, expired = expired + CASE WHEN p_at <= cursor_at THEN p_sign ELSE 0 END WHERE key_id = p_key;
  IF p_fair IS NOT NULL THEN
    UPDATE fair_usage SET total = total + p_sign,
      expired = expired + CASE WHEN p_at <= cursor_at THEN p_sign ELSE 0 END,
      month_n = month_n + CASE WHEN p_at >= month_start THEN p_sign ELSE 0 END
     WHERE account_id = p_account AND fair_use = p_fair;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION inkprep_reserve(
  p_account TEXT, p_key TEXT, p_endpoint TEXT, p_fair TEXT, p_now BIGINT, p_window BIGINT,
  p_daily INTEGER, p_cap INTEGER, p_month_limit INTEGER, p_month_start BIGINT, p_next_month BIGINT, p_instance BIGINT)
RETURNS TABLE (ok BOOLEAN, event_id BIGINT, lim TEXT, max_n INTEGER, used_n BIGINT, retry_ms BIGINT)
LANGUAGE plpgsql AS $$
-- Refused: the limit, its count and the ms until a unit frees up. Admitted: the event and the binding meter
-- (fewest uses left after this one, ties in check order daily, fair_use, monthly), its count with this use
-- and the ms until that count next goes down (the X-RateLimit-* headers; types.ts MeterState).
DECLARE
  since BIGINT := p_now - p_window;
  key_used BIGINT;
  fair_used BIGINT;
  month_used BIGINT;
  oldest BIGINT;
  eid BIGINT;
  b_lim TEXT := 'daily';
  b_max INTEGER := p_daily;
  b_used BIGINT;
  b_reset BIGINT;
BEGIN
  key_used := inkprep_key_counts(p_key, since);
  IF key_used >= p_daily THEN
    -- Retry when enough of the oldest uses have left the window (an index probe: used - p_daily is 0 at the limit).
    SELECT at INTO oldest FROM usage_events WHERE key_id = p_key AND at > since ORDER BY at LIMIT 1 OFFSET (key_used - p_daily);
    RETURN QUERY SELECT false, NULL::BIGINT, 'daily'::TEXT, p_daily, key_used, COALESCE(oldest, p_now) + p_window - p_now;
    RETURN;
  END IF;
  IF p_fair IS NOT NULL THEN
    SELECT c.used, c.month_used INTO fair_used, month_used FROM inkprep_fair_counts(p_account, p_fair, since, p_month_start) c;
    IF p_cap IS NOT NULL AND fair_used >= p_cap THEN
      SELECT at INTO oldest FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at > since ORDER BY at LIMIT 1 OFFSET (fair_used - p_cap);
      RETURN QUERY SELECT false, NULL::BIGINT, 'fair_use'::TEXT, p_cap, fair_used, COALESCE(oldest, p_now) + p_window - p_now;
      RETURN;
    END IF;
    IF p_month_limit IS NOT NULL AND month_used >= p_month_limit THEN
      RETURN QUERY SELECT false, NULL::BIGINT, 'monthly'::TEXT, p_month_limit, month_used, p_next_month - p_now;
      RETURN;
    END IF;
  END IF;
  INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at, instance_id) VALUES (p_account, p_key, p_endpoint, p_fair, p_now, p_instance) RETURNING id INTO eid;
  PERFORM inkprep_count_event(p_key, p_account, p_fair, p_now, 1);
  b_used := key_used + 1;
  IF p_fair IS NOT NULL THEN
    IF p_cap IS NOT NULL AND p_cap - (fair_used + 1) < b_max - b_used THEN
      b_lim := 'fair_use'; b_max := p_cap; b_used := fair_used + 1;
    END IF;
    IF p_month_limit IS NOT NULL AND p_month_limit - (month_used + 1) < b_max - b_used THEN
      b_lim := 'monthly'; b_max := p_month_limit; b_used := month_used + 1;
    END IF;
  END IF;
  IF b_lim = 'daily' THEN
    SELECT at INTO oldest FROM usage_events WHERE key_id = p_key AND at > since ORDER BY at LIMIT 1;
    b_reset := COALESCE(oldest, p_now) + p_window - p_now;
  ELSIF b_lim = 'fair_use' THEN
    SELECT at INTO oldest FROM usage_events WHERE account_id = p_account AND fair_use = p_fair AND at > since ORDER BY at LIMIT 1;
    b_reset := COALESCE(oldest, p_now) + p_window - p_now;
  ELSE
    b_reset := p_next_month - p_now;
  END IF;
  RETURN QUERY SELECT true, eid, b_lim, b_max, b_used, b_reset;
END $$;

CREATE OR REPLACE FUNCTION inkprep_release(p_event BIGINT, p_pending_only BOOLEAN) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
-- Deletes a use (when p_pending_only, only while still pending) and uncounts it; false if nothing was deleted.
DECLARE e usage_events%ROWTYPE;
BEGIN
  SELECT * INTO e FROM usage_events WHERE id = p_event;
  IF NOT FOUND THEN RETURN false; END IF;
  PERFORM 1 FROM key_usage WHERE key_id = e.key_id FOR UPDATE;
  IF e.fair_use IS NOT NULL THEN
    PERFORM 1 FROM fair_usage WHERE account_id = e.account_id AND fair_use = e.fair_use FOR UPDATE;
  END IF;
  DELETE FROM usage_events WHERE id = p_event AND (NOT p_pending_only OR instance_id IS NOT NULL) RETURNING * INTO e;
  IF NOT FOUND THEN RETURN false; END IF;
  PERFORM inkprep_count_event(e.key_id, e.account_id, e.fair_use, e.at, -1);
  RETURN true;
END $$;

CREATE OR REPLACE FUNCTION inkprep_confirm(p_event BIGINT, p_account TEXT, p_key TEXT, p_endpoint TEXT, p_fair TEXT, p_at BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  UPDATE usage_events SET instance_id = NULL WHERE id = p_event AND instance_id IS NOT NULL;
  IF FOUND THEN RETURN; END IF;
  PERFORM 1 FROM usage_events WHERE id = p_event;
  IF FOUND THEN RETURN; END IF;
  -- A sweep released it (this process was taken for dead): the work succeeded, so it counts again, under
  -- its own id (a sequence value is never handed out twice): a retry after an ambiguous commit then finds
  -- it above and records nothing more.
  INSERT INTO key_usage VALUES (p_key, 0, 0, 0) ON CONFLICT DO NOTHING;
  PERFORM 1 FROM key_usage WHERE key_id = p_key FOR UPDATE;
  IF p_fair IS NOT NULL THEN
    INSERT INTO fair_usage VALUES (p_account, p_fair, 0, 0, 0, 0, 0) ON CONFLICT DO NOTHING;
    PERFORM 1 FROM fair_usage WHERE account_id = p_account AND fair_use = p_fair FOR UPDATE;
  END IF;
  INSERT INTO usage_events (id, account_id, key_id, endpoint, fair_use, at, instance_id) VALUES (p_event, p_account, p_key, p_endpoint, p_fair, p_at, NULL)
    ON CONFLICT (id) DO NOTHING;
  IF FOUND THEN PERFORM inkprep_count_event(p_key, p_account, p_fair, p_at, 1); END IF;
END $$;

CREATE OR REPLACE FUNCTION inkprep_prune_key(p_key TEXT, p_before BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
-- Deletes a key's events older than p_before and uncounts them, under the key's (then the account's) row locks.
DECLARE k key_usage%ROWTYPE; n BIGINT; ne BIGINT; r RECORD;
BEGIN
  SELECT * INTO k FROM key_usage WHERE key_id = p_key FOR UPDATE;
  PERFORM 1 FROM fair_usage f
    WHERE (f.account_id, f.fair_use) IN (SELECT DISTINCT account_id, fair_use FROM usage_events WHERE key_id = p_key AND at < p_before AND fair_use IS NOT NULL)
    ORDER BY f.account_id, f.fair_use FOR UPDATE;
  SELECT count(*), count(*) FILTER (WHERE at <= k.cursor_at) INTO n, ne FROM usage_events WHERE key_id = p_key AND at < p_before;
  IF n = 0 THEN RETURN 0; END IF;
  UPDATE key_usage SET total = total - n, expired = expired - ne WHERE key_id = p_key;
  FOR r IN SELECT e.account_id, e.fair_use, count(*) AS n, count(*) FILTER (WHERE e.at <= f.cursor_at) AS ne, count(*) FILTER (WHERE e.at >= f.month_start) AS nm
             FROM usage_events e JOIN fair_usage f ON f.account_id = e.account_id AND f.fair_use = e.fair_use
            WHERE e.key_id = p_key AND e.at < p_before GROUP BY e.account_id, e.fair_use LOOP
    UPDATE fair_usage SET total = total - r.n, expired = expired - r.ne, month_n = month_n - r.nm WHERE account_id = r.account_id AND fair_use = r.fair_use;
  END LOOP;
  DELETE FROM usage_events WHERE key_id = p_key AND at < p_before;
  RETURN n;
END $$;
`;

// Arbitrary constant for pg_advisory_lock: serialises migrations between processes starting together.
const MIGRATION_LOCK = 0x1_4b_50_52;
// And for the first account (bootstrap) of processes starting together on an empty database.
const BOOTSTRAP_LOCK = 0x1_4b_50_53;

// PostgreSQL returns booleans as booleans and BIGINT times as text.
type AccountRow = Rows.AccountRow<boolean, string>;
type KeyRow = Rows.KeyRow<string>;
const CODEC: Rows.RowCodec<boolean, string> = { flag: (v) => v, time: Number };
const toAccount = (r: AccountRow): Account => Rows.toAccount(r, CODEC);
const toKey = (r: KeyRow): ApiKey => Rows.toKey(r, CODEC);

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
    await c.query(PG_METER_SQL);
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
  /** Lease of a silent process's pending reservations, ms (default 30 s; env INKPREP_RESERVATION_LEASE_MS via openConfiguredStore). */
  leaseMs?: number;
  /** How long a query waits for a connection before failing (then 503 store_unavailable); default PG_CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
}

/** Default wait for a pooled connection, ms: long enough for a loaded server, short enough that a client gets its 503. */
export const PG_CONNECT_TIMEOUT_MS = 5_000;

/** The database's clock in ms: heartbeats and leases are judged on one clock, whatever the hosts' clocks say. */
const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * Open the PostgreSQL store: connects, runs migrations, returns the Store.
 * @example const store = await openPostgresStore({ connectionString: storeConfigFromEnv().databaseUrl! });
 * @throws when the server cannot be reached (the caller decides whether that is fatal).
 */
export async function openPostgresStore(opts: PostgresStoreOptions): Promise<Store & { pool: pg.Pool }> {
  // A bounded wait for a connection: while the server is away (or the pool is exhausted) a request gets 503
  // store_unavailable after this long instead of hanging (pg's default is to wait forever).
  const connectionTimeoutMillis = opts.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS;
  const pool = new pg.Pool({ connectionString: opts.connectionString, max: opts.max ?? 10, connectionTimeoutMillis });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor a checked-out one: the pool listens for a client's 'error' only while it is idle, and a client held for a
  // transaction, a claim or a migration whose server goes away (restart, failover, pg_terminate_backend) emits
  // 'error' on itself, an uncaught exception that would take the process down with the database. Its queries
  // fail on their own (store_unavailable), and the pool drops the dead client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
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
    const c = new pg.Client({ connectionString: opts.connectionString, connectionTimeoutMillis });
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

  // This process's instance row, registered at the first reservation (the admin CLI never registers).
  const timing = leaseTiming(opts.leaseMs);
  const me = thisInstance();
  let myId: Promise<number> | null = null;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  const register = async (): Promise<number> => {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO usage_instances (host_key, host, pid, started_at, heartbeat_at, lease_ms) VALUES ($1, $2, $3, ${DB_NOW}, ${DB_NOW}, $4) RETURNING id`,
      [me.hostKey, me.host, me.pid, timing.leaseMs],
    );
    const id = Number(rows[0]!.id);
    heartbeatTimer = setInterval(() => void beat(id).catch(() => undefined), timing.heartbeatMs);
    heartbeatTimer.unref();
    return id;
  };
  const instanceId = (): Promise<number> => {
    myId ??= register().catch((err: unknown) => {
      myId = null; // retry on the next reservation
      throw err;
    });
    return myId;
  };
  const beat = async (id: number): Promise<void> => {
    const r = await pool.query(`UPDATE usage_instances SET heartbeat_at = ${DB_NOW} WHERE id = $1`, [id]);
    // Re-register under the same id if another process swept this one (e.g. after a long stall).
    if (r.rowCount === 0) {
      await pool.query(`INSERT INTO usage_instances (id, host_key, host, pid, started_at, heartbeat_at, lease_ms) VALUES ($1, $2, $3, $4, ${DB_NOW}, ${DB_NOW}, $5) ON CONFLICT DO NOTHING`, [id, me.hostKey, me.host, me.pid, timing.leaseMs]);
    }
  };
  let sweeping: Promise<number> | null = null;
  const sweepOnce = async (): Promise<number> => {
    const mine = myId ? await myId.catch(() => 0) : 0;
    if (mine) await beat(mine);
    const { rows } = await pool.query<{ id: string; host_key: string | null; pid: number; stale: boolean }>(
      // Each instance is judged by the lease it stated (its heartbeat runs at a sixth of it).
      `SELECT id, host_key, pid, heartbeat_at < ${DB_NOW} - COALESCE(lease_ms, $1) AS stale FROM usage_instances WHERE id <> $2`, [timing.leaseMs, mine]);
    const gone = rows.filter((r) => r.stale || endedHere(r)).map((r) => r.id);
    if (gone.length) await pool.query('DELETE FROM usage_instances WHERE id = ANY($1::bigint[])', [gone]);
    const orphans = await pool.query<{ id: string }>(
      `SELECT e.id FROM usage_events e WHERE e.instance_id IS NOT NULL AND e.instance_id <> $1
         AND NOT EXISTS (SELECT 1 FROM usage_instances i WHERE i.id = e.instance_id)`, [mine]);
    let n = 0;
    for (const o of orphans.rows) {
      const r = await pool.query<{ released: boolean }>('SELECT inkprep_release($1, true) AS released', [o.id]);
      if (r.rows[0]!.released) n++;
    }
    return n;
  };
  // Confirms of concurrent requests share one round trip and one commit: while a batch is in flight, the
  // next ones queue and go together. A use the batch did not flip (already confirmed, or released by a
  // sweep meanwhile) takes the one-by-one function, which records it again if it is gone.
  let confirmQueue: { use: ReservedUse; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let confirming = false;
  const confirmOne = async (u: ReservedUse): Promise<void> => {
    await pool.query('SELECT inkprep_confirm($1, $2, $3, $4, $5, $6)', [u.eventId, u.accountId, u.keyId, u.endpoint, u.fairUse, u.at]);
  };
  const flushConfirms = async (): Promise<void> => {
    confirming = true;
    while (confirmQueue.length) {
      const batch = confirmQueue;
      confirmQueue = [];
      try {
        const { rows } = await pool.query<{ id: string }>(
          'UPDATE usage_events SET instance_id = NULL WHERE id = ANY($1::bigint[]) AND instance_id IS NOT NULL RETURNING id', [batch.map((b) => b.use.eventId)]);
        const flipped = new Set(rows.map((r) => Number(r.id)));
        for (const b of batch) {
          if (flipped.has(b.use.eventId)) b.resolve();
          else confirmOne(b.use).then(b.resolve, b.reject);
        }
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    confirming = false;
  };

  /** One sweep at a time per process. */
  const sweep = (): Promise<number> => (sweeping ??= sweepOnce().finally(() => {
    sweeping = null;
  }));
  await sweep();
  const sweepTimer = setInterval(() => void sweep().catch(() => undefined), timing.sweepMs);
  sweepTimer.unref();

  const idempotency = pgIdempotency(pool, timing.leaseMs);
  const jobs = pgJobs(pool, timing.leaseMs);
  const store: Store & { pool: pg.Pool } = {
    pool,
    idempotency,
    jobs,
    webhooks: pgWebhooks(pool),
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
      const { sets, vals } = Rows.accountAssignments(patch, (n) => `$${n}`);
      vals.push(id);
      const sql = sets.length
        ? `UPDATE accounts SET ${sets.join(', ')} WHERE id = $${vals.length} RETURNING *`
        : 'SELECT * FROM accounts WHERE id = $1';
      const { rows } = await pool.query<AccountRow>(sql, sets.length ? vals : [id]);
      invalidate(); // this process sees its own change at once, without waiting for the notification
      if (!rows[0]) throw new ServiceError('not_found', `No account ${id}`);
      return toAccount(rows[0]);
    },
    async createFirstAccount({ name, plan, now, key }) {
      // Processes starting together on an empty database: the transaction-scoped advisory lock lets one
      // look and insert at a time, so exactly one creates the account and key; the others see it and return null.
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await c.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
        if (Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM accounts')).rows[0]!.n) > 0) {
          await c.query('ROLLBACK');
          return null;
        }
        const a = await c.query<AccountRow>(
          `INSERT INTO accounts (id, name, plan, status, admin, daily_limit, created_at) VALUES ($1, $2, $3, 'active', false, $4, $5) RETURNING *`,
          ['acc_' + randomBytes(8).toString('hex'), name, plan, DEFAULT_DAILY_LIMIT, now]);
        const k = await c.query<KeyRow>(
          'INSERT INTO api_keys (id, account_id, hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
          ['key_' + randomBytes(8).toString('hex'), a.rows[0]!.id, key.hash, key.prefix, now]);
        await c.query('COMMIT');
        invalidate();
        return { account: toAccount(a.rows[0]!), key: toKey(k.rows[0]!) };
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
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
      const instance = await instanceId();
      // The month is always passed for fair-use calls, so the running month count follows the calendar.
      const month = r.monthly ?? monthBounds(r.now);
      const { rows } = await pool.query<{ ok: boolean; event_id: string | null; lim: 'daily' | 'fair_use' | 'monthly' | null; max_n: number | null; used_n: string | null; retry_ms: string | null }>(
        'SELECT * FROM inkprep_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
        [r.accountId, r.keyId, r.endpoint, r.fairUse, r.now, WINDOW_MS, r.dailyLimit, r.fairUse ? r.fairUseCap : null,
          r.fairUse && r.monthly ? r.monthly.limit : null, month.monthStart, month.nextMonthStart, instance],
      );
      const x = rows[0]!;
      // lim is null on success only from a function an older release created (mixed versions during a rollout).
      if (x.ok) return { ok: true, eventId: Number(x.event_id), meter: x.lim ? { limit: x.lim, max: x.max_n!, used: Number(x.used_n), resetMs: Number(x.retry_ms) } : null };
      return { ok: false, limit: x.lim!, max: x.max_n!, used: Number(x.used_n), retryAfterMs: Number(x.retry_ms) };
    },
    async confirm(use) {
      // A batch's several events go in the same round trip (one UPDATE flips them all).
      await Promise.all(eachUse(use).map((u) => new Promise<void>((resolve, reject) => {
        confirmQueue.push({ use: u, resolve, reject });
        if (!confirming) void flushConfirms();
      })));
    },
    async release(eventId) {
      await pool.query('SELECT inkprep_release($1, false)', [eventId]);
    },
    async sweepReservations() {
      return sweep();
    },
    async releaseOwnPending(keep, before) {
      // Only this process's own instance: its uses that no request holds any more (a release or a reservation
      // whose answer was lost in an outage). Released one by one, each only while still pending.
      const mine = myId ? await myId.catch(() => 0) : 0;
      if (!mine) return 0;
      const { rows } = await pool.query<{ id: string }>(
        'SELECT id FROM usage_events WHERE instance_id = $1 AND at < $2 AND NOT (id = ANY($3::bigint[]))', [mine, before, [...keep]]);
      let n = 0;
      for (const r of rows) if ((await pool.query<{ released: boolean }>('SELECT inkprep_release($1, true) AS released', [r.id])).rows[0]!.released) n++;
      return n;
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
      // Key by key, each in its own short transaction under that key's row lock.
      const keys = await pool.query<{ key_id: string }>('SELECT DISTINCT key_id FROM usage_events WHERE at < $1', [before]);
      let n = 0;
      for (const k of keys.rows) n += Number((await pool.query<{ n: string }>('SELECT inkprep_prune_key($1, $2) AS n', [k.key_id, before])).rows[0]!.n);
      return n;
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
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweepTimer);
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      idempotency.close();
      jobs.close();
      await sweeping?.catch(() => undefined);
      // Leftover pending uses (requests cut by the shutdown) become orphans, released by the next sweep anywhere.
      const mine = myId ? await myId.catch(() => 0) : 0;
      if (mine) await pool.query('DELETE FROM usage_instances WHERE id = $1', [mine]).catch(() => undefined);
      if (reconnect) clearTimeout(reconnect);
      const l = listener;
      listener = null;
      listening = false;
      await Promise.all([pool.end(), l?.end().catch(() => undefined)]);
    },
  };
  return store;
}
