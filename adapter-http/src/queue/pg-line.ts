// The vectorize line for a whole deployment, kept in PostgreSQL (chosen when DATABASE_URL is set): `slots`
// conversions at once across every process and host, one bounded FIFO of waiting callers, and snapshots
// that every process reads from the same rows. docs/guides/deploying.md ("Scaling out") describes it for operators.
//
// How it holds together:
// - Each process is an *owner*: one dedicated session connection that holds a session-level advisory lock
//   (NS, owner id) for as long as it lives, and a row in `inkprep_line_owners` whose lease it renews.
//   Places (`inkprep_line_places`, one row per converting or waiting caller) belong to an owner and are
//   deleted with it (ON DELETE CASCADE).
// - An owner is dead when PostgreSQL no longer shows its advisory lock (its session ended: kill -9, crash,
//   closed socket: immediate) or its lease lapsed (a host that vanished without closing its socket, a
//   stalled process, a proxy that keeps the server side open: at most `leaseMs`). Either one is enough;
//   the lock makes crashes fast, the lease makes the bound hold when TCP does not tell anyone.
// - Every change (join, leave, reap) runs in one server-side function under one transaction-level
//   advisory lock, so ids are handed out in commit order (FIFO across processes) and counts are exact.
//   A freed slot goes to the oldest waiter in the same transaction; NOTIFY `inkprep_line` tells its
//   process at commit (no polling). A process with waiters also re-checks every `recheckMs` (default
//   1 s): it reaps dead owners and catches a notification lost to a dropped connection.
// - A caller whose request is aborted leaves at once (its row is deleted and the next waiter promoted).
// Tables and functions are created idempotently at start, under their own advisory lock; they are
// separate from the store's migrations. Functions carry a version suffix so a changed signature never
// collides with a running older process.
import os from 'node:os';
import pg from 'pg';
import { InkprepError } from '@inkprep/engine';
import type { Logger } from '../log.js';
import { checkCount, DEFAULT_MAX_WAITING, DEFAULT_SLOTS, type LineCounts, type QueueSnapshot, type VectorizeLine } from './vectorize-queue.js';
import { grantTurn, type QueueTurn } from './turn.js';
import { ServiceError } from '../errors/registry.js';

/** Advisory-lock namespace (first int4 key) of the line: 'IkL1'. The store's bigint locks never use the two-key form. */
export const LINE_LOCK_NS = 0x496b4c31;
/** Second key of the transaction lock serialising every change to the line. */
const LINE_MUTEX = 0;
/** Second key of the session lock held while creating the tables and functions. */
const SETUP_KEY = 2147483647;
/** SQLSTATE raised when an owner's row is gone (its lease lapsed and another process reaped it). */
const OWNER_GONE = 'IKL01';

/** Default lease (INKPREP_VECTORIZE_LEASE_MS): a silent owner's places are freed at most this long after its last renewal. */
export const DEFAULT_LEASE_MS = 10_000;
/** Default safety re-check while this process has callers waiting. */
export const DEFAULT_RECHECK_MS = 1000;

const SETUP_SQL = `
CREATE SEQUENCE IF NOT EXISTS inkprep_line_owner_seq AS integer MINVALUE 1 MAXVALUE 2147483646 CYCLE;
CREATE TABLE IF NOT EXISTS inkprep_line_owners (
  id INTEGER PRIMARY KEY, lease_until TIMESTAMPTZ NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL,
  slots INTEGER NOT NULL, max_waiting INTEGER NOT NULL, started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());
CREATE TABLE IF NOT EXISTS inkprep_line_places (
  id BIGSERIAL PRIMARY KEY, owner INTEGER NOT NULL REFERENCES inkprep_line_owners(id) ON DELETE CASCADE,
  converting BOOLEAN NOT NULL, enqueued_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(), granted_at TIMESTAMPTZ);
CREATE INDEX IF NOT EXISTS inkprep_line_places_owner ON inkprep_line_places (owner);

-- Owners that are gone: lease lapsed, or their session (holder of advisory lock (NS, id)) has ended.
CREATE OR REPLACE FUNCTION inkprep_line_dead_v1() RETURNS SETOF INTEGER LANGUAGE sql STABLE AS $$
  SELECT o.id FROM inkprep_line_owners o
  WHERE o.lease_until < clock_timestamp()
     OR NOT EXISTS (SELECT 1 FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                      AND l.classid = ${LINE_LOCK_NS}::oid AND l.objid = o.id::oid)
$$;

-- Hand free slots to the oldest waiters and NOTIFY their owners ("owner:place,..."). Caller holds the mutex.
CREATE OR REPLACE FUNCTION inkprep_line_promote_v1(p_slots INTEGER) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n_free INTEGER;
  payload TEXT;
BEGIN
  SELECT p_slots - count(*) INTO n_free FROM inkprep_line_places WHERE converting;
  IF n_free <= 0 THEN RETURN; END IF;
  WITH nxt AS (SELECT id FROM inkprep_line_places WHERE NOT converting ORDER BY id LIMIT n_free),
       up AS (UPDATE inkprep_line_places p SET converting = true, granted_at = clock_timestamp()
              FROM nxt WHERE p.id = nxt.id RETURNING p.id, p.owner)
  SELECT string_agg(up.owner || ':' || up.id, ',') INTO payload FROM up;
  IF payload IS NOT NULL THEN PERFORM pg_notify('inkprep_line', payload); END IF;
END $$;

-- Drop dead owners (their places go with them) and refill the slots. Caller holds the mutex.
CREATE OR REPLACE FUNCTION inkprep_line_reap_locked_v1(p_slots INTEGER) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE n INTEGER;
BEGIN
  DELETE FROM inkprep_line_owners WHERE id IN (SELECT inkprep_line_dead_v1());
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM inkprep_line_promote_v1(p_slots);
  RETURN n;
END $$;

-- True when the rows need fixing: a place of a dead owner, or a free slot with someone waiting.
CREATE OR REPLACE FUNCTION inkprep_line_stale_v1(p_slots INTEGER) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM inkprep_line_places p WHERE p.owner IN (SELECT inkprep_line_dead_v1()))
      OR (SELECT count(*) FILTER (WHERE converting) < p_slots AND count(*) FILTER (WHERE NOT converting) > 0 FROM inkprep_line_places)
$$;

-- Join the line: a slot at once, a waiting place, or (place NULL) full. Renews the caller's lease.
CREATE OR REPLACE FUNCTION inkprep_line_acquire_v1(p_owner INTEGER, p_slots INTEGER, p_max_waiting INTEGER, p_lease_ms INTEGER)
RETURNS TABLE (o_place BIGINT, o_granted BOOLEAN, o_converting INTEGER, o_waiting INTEGER) LANGUAGE plpgsql AS $$
DECLARE
  c INTEGER;
  w INTEGER;
  v_id BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(${LINE_LOCK_NS}, ${LINE_MUTEX});
  UPDATE inkprep_line_owners o SET lease_until = clock_timestamp() + p_lease_ms * interval '1 millisecond' WHERE o.id = p_owner;
  IF NOT FOUND THEN RAISE EXCEPTION 'inkprep line owner % is gone', p_owner USING ERRCODE = '${OWNER_GONE}'; END IF;
  IF inkprep_line_stale_v1(p_slots) THEN PERFORM inkprep_line_reap_locked_v1(p_slots); END IF;
  SELECT count(*) FILTER (WHERE p.converting), count(*) FILTER (WHERE NOT p.converting) INTO c, w FROM inkprep_line_places p;
  IF c < p_slots AND w = 0 THEN
    INSERT INTO inkprep_line_places (owner, converting, granted_at) VALUES (p_owner, true, clock_timestamp()) RETURNING inkprep_line_places.id INTO v_id;
    RETURN QUERY SELECT v_id, true, c + 1, w;
  ELSIF w < p_max_waiting THEN
    INSERT INTO inkprep_line_places (owner, converting) VALUES (p_owner, false) RETURNING inkprep_line_places.id INTO v_id;
    RETURN QUERY SELECT v_id, false, c, w + 1;
  ELSE
    RETURN QUERY SELECT NULL::BIGINT, false, c, w;
  END IF;
END $$;

-- Leave the line (turn over, or the caller left while waiting); the freed slot goes to the oldest waiter.
CREATE OR REPLACE FUNCTION inkprep_line_leave_v1(p_place BIGINT, p_slots INTEGER) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(${LINE_LOCK_NS}, ${LINE_MUTEX});
  DELETE FROM inkprep_line_places WHERE id = p_place;
  PERFORM inkprep_line_promote_v1(p_slots);
END $$;

-- An owner leaving for good (clean shutdown): its places go, the slots are refilled.
CREATE OR REPLACE FUNCTION inkprep_line_quit_v1(p_owner INTEGER, p_slots INTEGER) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(${LINE_LOCK_NS}, ${LINE_MUTEX});
  DELETE FROM inkprep_line_owners WHERE id = p_owner;
  PERFORM inkprep_line_promote_v1(p_slots);
END $$;

-- Reap if needed (taking the mutex only then), and return the states of the given places (absent = gone).
CREATE OR REPLACE FUNCTION inkprep_line_check_v1(p_slots INTEGER, p_places BIGINT[]) RETURNS TABLE (o_place BIGINT, o_converting BOOLEAN) LANGUAGE plpgsql AS $$
BEGIN
  IF inkprep_line_stale_v1(p_slots) THEN
    PERFORM pg_advisory_xact_lock(${LINE_LOCK_NS}, ${LINE_MUTEX});
    PERFORM inkprep_line_reap_locked_v1(p_slots);
  END IF;
  RETURN QUERY SELECT p.id, p.converting FROM inkprep_line_places p WHERE p.id = ANY(p_places);
END $$;

-- The cluster-wide counts (reaping first when a dead owner still holds places).
CREATE OR REPLACE FUNCTION inkprep_line_snapshot_v1(p_slots INTEGER) RETURNS TABLE (o_converting INTEGER, o_waiting INTEGER) LANGUAGE plpgsql AS $$
BEGIN
  IF inkprep_line_stale_v1(p_slots) THEN
    PERFORM pg_advisory_xact_lock(${LINE_LOCK_NS}, ${LINE_MUTEX});
    PERFORM inkprep_line_reap_locked_v1(p_slots);
  END IF;
  RETURN QUERY SELECT (count(*) FILTER (WHERE p.converting))::INTEGER, (count(*) FILTER (WHERE NOT p.converting))::INTEGER FROM inkprep_line_places p;
END $$;
`;

export interface PgLineOptions {
  /** postgres://... (the deployment's DATABASE_URL). */
  connectionString: string;
  /** Conversions at once across the deployment; default 1. Every process should use the same value. */
  slots?: number;
  /** Callers allowed to wait across the deployment; default 8. Every process should use the same value. */
  maxWaiting?: number;
  /** A silent process's places are freed at most this long after its last lease renewal (ms, >= 1000); default 10,000. */
  leaseMs?: number;
  /** Safety re-check while this process has callers waiting (ms); default 1000. */
  recheckMs?: number;
  /** Connections for snapshot reads (GET /api/v1/vectorize, /metrics); default 2. */
  readPoolSize?: number;
  log?: Logger;
  /** Clock for `waitedMs` (ms); default performance.now. */
  now?: () => number;
}

interface Waiter {
  place: string;
  enqueuedAt: number;
  generation: number;
  resolve(turn: QueueTurn): void;
  reject(err: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
}

interface Session {
  client: pg.Client;
  owner: number;
  generation: number;
  /** The last query queued on this connection (queries run one after another; pg 9 will refuse overlap). */
  tail: Promise<unknown>;
}

/** Run a query on the session's connection after the ones already queued. */
function sessionQuery<R extends pg.QueryResultRow>(s: Session, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
  const run = s.tail.then(() => s.client.query<R>(text, values));
  s.tail = run.catch(() => undefined);
  return run;
}

interface AcquireRow {
  o_place: string | null;
  o_granted: boolean;
  o_converting: number;
  o_waiting: number;
}

function unavailable(why: string, cause?: unknown): ServiceError {
  return new ServiceError('queue_unavailable', `The vectorize line cannot be reached (${why}); try again shortly`, {}, { cause });
}

/**
 * Open the deployment-wide line: creates its tables and functions if missing, registers this process as
 * an owner and starts listening. Rejects when PostgreSQL cannot be reached.
 * @example
 * const line = await openPgLine({ connectionString: config.store.databaseUrl!, slots: 1, maxWaiting: 8 });
 * const turn = await line.acquire(signal); try { ... } finally { turn.release(); }
 */
export async function openPgLine(opts: PgLineOptions): Promise<PgLine> {
  const line = new PgLine(opts);
  await line.start();
  return line;
}

export class PgLine implements VectorizeLine {
  readonly slots: number;
  readonly maxWaiting: number;
  readonly leaseMs: number;
  private readonly recheckMs: number;
  private readonly opts: PgLineOptions;
  private readonly reads: pg.Pool;
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private session: Session | null = null;
  private connecting: Promise<Session> | null = null;
  private generation = 0;
  private closed = false;
  private readonly waiters = new Map<string, Waiter>();
  /** Promotions of our places that arrived before `acquire` saw its own insert return. */
  private readonly early = new Set<string>();
  private heartbeat: NodeJS.Timeout | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(opts: PgLineOptions) {
    this.opts = opts;
    this.slots = checkCount('slots', opts.slots ?? DEFAULT_SLOTS, 1);
    this.maxWaiting = checkCount('maxWaiting', opts.maxWaiting ?? DEFAULT_MAX_WAITING, 0);
    this.leaseMs = checkCount('leaseMs', opts.leaseMs ?? DEFAULT_LEASE_MS, 1000);
    this.recheckMs = checkCount('recheckMs', opts.recheckMs ?? DEFAULT_RECHECK_MS, 10);
    this.now = opts.now ?? (() => performance.now());
    this.log = opts.log;
    this.reads = new pg.Pool({ connectionString: opts.connectionString, max: opts.readPoolSize ?? 2, application_name: 'inkprep-line-read' });
    this.reads.on('error', () => undefined); // an idle read connection dropping is replaced on the next read
    // a checked-out one dropping must not be an uncaught 'error' either (the pool listens only while it is idle)
    this.reads.on('connect', (client) => {
      client.on('error', () => undefined);
    });
  }

  /** This process's owner id while connected (logs, tests), else null. */
  get ownerId(): number | null {
    return this.session?.owner ?? null;
  }

  /** Create the schema and register; used by openPgLine. */
  async start(): Promise<void> {
    const c = new pg.Client({ connectionString: this.opts.connectionString });
    c.on('error', () => undefined); // a drop during setup fails the awaited query; unheard, it would also be thrown
    await c.connect();
    try {
      // CREATE OR REPLACE FUNCTION from two sessions at once can fail ("tuple concurrently updated").
      await c.query('SELECT pg_advisory_lock($1, $2)', [LINE_LOCK_NS, SETUP_KEY]);
      await c.query(SETUP_SQL);
    } finally {
      await c.end().catch(() => undefined);
    }
    await this.connect();
    this.heartbeat = setInterval(() => this.renew(), Math.max(250, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
  }

  async acquire(signal?: AbortSignal, placed?: () => void): Promise<QueueTurn> {
    if (signal?.aborted) throw new InkprepError('aborted', 'The caller left before its turn');
    if (this.closed) throw new InkprepError('shutting_down', 'The vectorize line is closing');
    const start = this.now();
    let s = await this.connect();
    let row: AcquireRow;
    try {
      row = await this.join(s);
    } catch (err) {
      if ((err as { code?: string }).code !== OWNER_GONE) throw unavailable('the database call failed', err);
      // Our lease lapsed and another process reaped us: register again and retry once.
      this.lost(s, 'lease lapsed');
      s = await this.connect();
      row = await this.join(s).catch((e: unknown) => {
        throw unavailable('the database call failed', e);
      });
    }
    const place = row.o_place;
    if (place === null) {
      const queue = { converting: row.o_converting > 0, waiting: row.o_waiting, max_waiting: this.maxWaiting };
      throw new ServiceError('queue_full', `The vectorize line is full (${queue.waiting} waiting); try again shortly`, { queue });
    }
    placed?.();
    if (row.o_granted || this.early.delete(place)) {
      const turn = this.turn(place, s.generation, row.o_granted ? null : start);
      if (signal?.aborted) {
        turn.release();
        throw new InkprepError('aborted', 'The caller left before its turn');
      }
      return turn;
    }
    return new Promise<QueueTurn>((resolve, reject) => {
      const w: Waiter = { place, enqueuedAt: start, generation: s.generation, resolve, reject, signal, onAbort: null };
      if (signal) {
        w.onAbort = () => {
          if (this.waiters.get(place) !== w) return;
          this.waiters.delete(place);
          this.leave(place, w.generation);
          reject(new InkprepError('aborted', 'The caller left the line'));
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
        if (signal.aborted) {
          this.waiters.set(place, w);
          w.onAbort();
          return;
        }
      }
      this.waiters.set(place, w);
      this.armRecheck();
    });
  }

  async snapshot(): Promise<QueueSnapshot> {
    const c = await this.counts();
    return { queue: { converting: c.converting > 0, waiting: c.waiting, max_waiting: this.maxWaiting } };
  }

  async counts(): Promise<LineCounts> {
    let rows: { o_converting: number; o_waiting: number }[];
    try {
      ({ rows } = await this.reads.query<{ o_converting: number; o_waiting: number }>('SELECT * FROM inkprep_line_snapshot_v1($1)', [this.slots]));
    } catch (err) {
      throw unavailable('the database call failed', err);
    }
    return { converting: rows[0]!.o_converting, waiting: rows[0]!.o_waiting };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.recheck) clearTimeout(this.recheck);
    for (const w of this.waiters.values()) w.reject(new InkprepError('shutting_down', 'The vectorize line is closing'));
    this.waiters.clear();
    const s = this.session ?? (await this.connecting?.catch(() => null)) ?? null;
    this.session = null;
    if (s) {
      // Our places go now rather than when the session ends, and the slots are refilled at once.
      await sessionQuery(s, 'SELECT inkprep_line_quit_v1($1, $2)', [s.owner, this.slots]).catch(() => undefined);
      await s.client.end().catch(() => undefined);
    }
    await this.reads.end().catch(() => undefined);
  }

  private async join(s: Session): Promise<AcquireRow> {
    const { rows } = await sessionQuery<AcquireRow>(s, 'SELECT * FROM inkprep_line_acquire_v1($1, $2, $3, $4)', [s.owner, this.slots, this.maxWaiting, this.leaseMs]);
    return rows[0]!;
  }

  private turn(place: string, generation: number, enqueuedAt: number | null): QueueTurn {
    return grantTurn(enqueuedAt, this.now, () => this.leave(place, generation));
  }

  /** Delete a place (fire and forget). If that fails, drop the session: the lock goes and others reap us. */
  private leave(place: string, generation: number): void {
    const s = this.session;
    if (!s || s.generation !== generation) return; // that session's places were already freed with it
    sessionQuery(s, 'SELECT inkprep_line_leave_v1($1, $2)', [place, this.slots]).catch((err: unknown) => {
      this.log?.error('leaving the vectorize line failed; dropping the line session', { err: String(err) });
      this.lost(s, 'leave failed');
    });
  }

  /** The live session, connecting (and registering as an owner) when there is none. */
  private connect(): Promise<Session> {
    if (this.session) return Promise.resolve(this.session);
    if (this.closed) return Promise.reject(new InkprepError('shutting_down', 'The vectorize line is closing'));
    this.connecting ??= this.register().then(
      (s) => {
        this.connecting = null;
        if (this.closed) {
          s.client.end().catch(() => undefined);
          throw new InkprepError('shutting_down', 'The vectorize line is closing');
        }
        this.session = s;
        return s;
      },
      (err: unknown) => {
        this.connecting = null;
        throw unavailable('cannot connect', err);
      },
    );
    return this.connecting;
  }

  private async register(): Promise<Session> {
    const client = new pg.Client({ connectionString: this.opts.connectionString, application_name: 'inkprep-line', keepAlive: true, connectionTimeoutMillis: 5000 });
    const generation = ++this.generation;
    await client.connect();
    try {
      // The server notices a vanished client host within ~10 s and ends the session (which frees the lock).
      await client.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3').catch(() => undefined);
      const owner = (await client.query<{ id: number }>("SELECT nextval('inkprep_line_owner_seq')::INTEGER AS id")).rows[0]!.id;
      await client.query('SELECT pg_advisory_lock($1, $2)', [LINE_LOCK_NS, owner]);
      await client.query(
        "INSERT INTO inkprep_line_owners (id, lease_until, host, pid, slots, max_waiting) VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond', $3, $4, $5, $6)",
        [owner, this.leaseMs, os.hostname(), process.pid, this.slots, this.maxWaiting],
      );
      await client.query('LISTEN inkprep_line');
      const s: Session = { client, owner, generation, tail: Promise.resolve() };
      client.on('notification', (n) => {
        if (n.channel === 'inkprep_line' && n.payload) this.promoted(s, n.payload);
      });
      client.on('error', (err) => this.lost(s, `connection error: ${err.message}`));
      client.on('end', () => this.lost(s, 'connection ended'));
      const others = await client.query<{ slots: number; max_waiting: number }>(
        'SELECT DISTINCT slots, max_waiting FROM inkprep_line_owners WHERE id <> $1 AND lease_until > clock_timestamp()', [owner]);
      if (others.rows.some((r) => r.slots !== this.slots || r.max_waiting !== this.maxWaiting)) {
        this.log?.warn('other processes use different vectorize line settings; set INKPREP_VECTORIZE_SLOTS and INKPREP_VECTORIZE_MAX_WAITING alike everywhere',
          { slots: this.slots, max_waiting: this.maxWaiting, others: others.rows });
      }
      return s;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  /** NOTIFY payload "owner:place,...": hand turns to our waiters. */
  private promoted(s: Session, payload: string): void {
    this.log?.debug('vectorize line promoted', { owner: s.owner, payload });
    for (const pair of payload.split(',')) {
      const i = pair.indexOf(':');
      if (Number(pair.slice(0, i)) !== s.owner) continue;
      this.grant(pair.slice(i + 1), s);
    }
  }

  private grant(place: string, s: Session): void {
    const w = this.waiters.get(place);
    if (!w || w.generation !== s.generation) {
      // The acquire that inserted this place has not seen its own result yet (same socket, later message).
      if (this.early.size > 1000) this.early.clear();
      this.early.add(place);
      return;
    }
    this.waiters.delete(place);
    if (w.onAbort && w.signal) w.signal.removeEventListener('abort', w.onAbort);
    w.resolve(this.turn(place, w.generation, w.enqueuedAt));
  }

  /** Renew the lease; a missing row means we were reaped (stalled past the lease): start a new session. */
  private renew(): void {
    const s = this.session;
    if (!s) {
      if (!this.closed) this.connect().catch(() => undefined);
      return;
    }
    sessionQuery(s, "UPDATE inkprep_line_owners SET lease_until = clock_timestamp() + $2 * interval '1 millisecond' WHERE id = $1", [s.owner, this.leaseMs]).then(
      (r) => {
        if (r.rowCount === 0) this.lost(s, 'lease lapsed');
      },
      (err: unknown) => this.lost(s, `lease renewal failed: ${String(err)}`),
    );
  }

  /** While we have waiters: reap dead owners, pick up promotions a lost notification would have carried. */
  private armRecheck(): void {
    if (this.recheck || this.closed || this.waiters.size === 0) return;
    this.recheck = setTimeout(() => {
      this.recheck = null;
      this.check().finally(() => this.armRecheck());
    }, this.recheckMs);
    this.recheck.unref();
  }

  private async check(): Promise<void> {
    const s = this.session;
    if (!s || this.checking) return;
    const mine = [...this.waiters.values()].filter((w) => w.generation === s.generation).map((w) => w.place);
    this.log?.debug('vectorize line re-check', { owner: s.owner, places: mine });
    if (mine.length === 0) return;
    this.checking = true;
    try {
      const { rows } = await sessionQuery<{ o_place: string; o_converting: boolean }>(s, 'SELECT * FROM inkprep_line_check_v1($1, $2)', [this.slots, mine]);
      const seen = new Set<string>();
      for (const r of rows) {
        seen.add(r.o_place);
        if (r.o_converting && this.waiters.has(r.o_place)) this.grant(r.o_place, s);
      }
      for (const place of mine) {
        const w = this.waiters.get(place);
        if (seen.has(place) || !w) continue;
        this.waiters.delete(place);
        w.reject(unavailable('this process lost its place'));
      }
    } catch (err) {
      this.log?.warn('vectorize line re-check failed', { err: String(err) });
    } finally {
      this.checking = false;
    }
  }

  /**
   * The session is gone (or must go): its places are freed by PostgreSQL ending the session (lock) or by
   * the lease. Waiters of that session fail with 503 `queue_unavailable`; running conversions finish.
   * A new session is opened in the background.
   */
  private lost(s: Session, why: string): void {
    if (this.session !== s) return;
    this.session = null;
    this.log?.warn('vectorize line session lost', { owner: s.owner, why });
    s.client.removeAllListeners('end');
    s.client.on('error', () => undefined);
    s.client.end().catch(() => undefined);
    for (const [place, w] of this.waiters) {
      if (w.generation !== s.generation) continue;
      this.waiters.delete(place);
      w.reject(unavailable(why));
    }
    this.early.clear();
    if (this.closed) return;
    const retry = (): void => {
      if (this.closed || this.session) return;
      this.connect().catch(() => setTimeout(retry, 1000).unref());
    };
    setTimeout(retry, 100).unref();
  }
}
