// The PostgreSQL side of jobs (store/jobs.ts): one table shared by every process; leases on the database's
// clock (as idempotency claims and reservation heartbeats), so the hosts' clocks never matter. Creating a
// job counts the account's open jobs under a per-account transaction lock, so processes racing never pass
// the cap together; taking orphans uses FOR UPDATE SKIP LOCKED, so two processes never take the same job.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { endedHere, thisInstance } from './instance.js';
import { LeaseRenewal } from './idempotency.js';
import { jobOf, jobsSchema, useMoreOf, type JobRow, type JobStatus, type JobStore } from './jobs.js';
import { eachUse } from './use.js';

/** The schema migration (postgres.ts PG_MIGRATIONS). */
export const PG_JOBS_SCHEMA = jobsSchema('BIGINT', true);
/** The later migration adding the further usage events of a job (store/jobs.ts `use_more`). */
export const PG_JOBS_USE_MORE = 'ALTER TABLE jobs ADD COLUMN IF NOT EXISTS use_more TEXT;';

/** Advisory-lock namespace (first int4 key) of a job cap check: 'IkJ1'. */
const JOBS_LOCK_NS = 0x496b4a31;
/** The database's clock in ms (as postgres.ts DB_NOW). */
const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

type OpenRow = JobRow & { owner: string | null; host_key: string | null; pid: number | null; expired: boolean };

/** The job store over the PostgreSQL store's pool (migrated). */
export function pgJobs(pool: pg.Pool, leaseMs: number): JobStore {
  const owner = randomBytes(8).toString('hex');
  const me = thisInstance();
  const renewal = new LeaseRenewal(Math.max(100, Math.floor(leaseMs / 3)), () =>
    pool.query(`UPDATE jobs SET lease_until = ${DB_NOW} + $1 WHERE owner = $2 AND status IN ('queued', 'running')`, [leaseMs, owner]));

  const tx = async <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
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
  };

  return {
    create(job, max) {
      return tx(async (c) => {
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [JOBS_LOCK_NS, job.accountId]);
        const { rows } = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status IN ('queued', 'running')", [job.accountId]);
        if (rows[0]!.n >= max) return false;
        await c.query(
          `INSERT INTO jobs (id, account_id, key_id, operation, status, created_at, request_ref, callback_url, use_event, use_endpoint, use_fair, use_at, owner, host_key, pid, lease_until, use_more)
           VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, ${DB_NOW} + $15, $16)`,
          [job.id, job.accountId, job.keyId, job.operation, job.createdAt, job.requestRef, job.callbackUrl, job.use?.eventId ?? null,
            job.use?.endpoint ?? null, job.use?.fairUse ?? null, job.use?.at ?? null, owner, me.hostKey, me.pid, leaseMs, useMoreOf(job.use)]);
        return true;
      });
    },
    async get(id) {
      const { rows } = await pool.query<JobRow>('SELECT * FROM jobs WHERE id = $1', [id]);
      return rows[0] ? jobOf(rows[0]) : null;
    },
    async start(id, now) {
      const r = await pool.query("UPDATE jobs SET status = 'running', started_at = $1, attempts = attempts + 1 WHERE id = $2 AND owner = $3 AND status IN ('queued', 'running')", [now, id, owner]);
      return r.rowCount === 1;
    },
    async progress(id, fraction, stage) {
      const { rows } = await pool.query<{ status: string; mine: boolean }>(
        `WITH up AS (UPDATE jobs SET progress = $1, stage = $2 WHERE id = $3 AND owner = $4 AND status = 'running' RETURNING status)
         SELECT status, true AS mine FROM up UNION ALL SELECT status, owner IS NOT DISTINCT FROM $4 AS mine FROM jobs WHERE id = $3 AND NOT EXISTS (SELECT 1 FROM up)`,
        [fraction, stage, id, owner]);
      const r = rows[0];
      if (!r) return null;
      return r.mine || r.status === 'canceled' ? (r.status as JobStatus) : null;
    },
    finish(id, end) {
      return tx(async (c) => {
        const { rows } = await c.query<JobRow>(
          `UPDATE jobs SET status = $3, finished_at = $4, result = $5, error = $6, output_ref = $7, output_type = $8,
                  progress = CASE WHEN $3 = 'succeeded' THEN 1 ELSE progress END, stage = CASE WHEN $3 = 'succeeded' THEN NULL ELSE stage END, owner = NULL, lease_until = NULL
            WHERE id = $1 AND owner = $2 AND status IN ('queued', 'running') RETURNING *`,
          [id, owner, end.status, end.finishedAt, end.result, end.error, end.outputRef, end.outputType]);
        if (!rows[0]) return false;
        const use = end.status === 'succeeded' ? jobOf(rows[0]).use : null;
        // The same function Store.confirm runs, for every event of the use (a batch's several): idempotent by
        // event id, recorded again if a sweep released it (the holder died and this process took the job).
        for (const u of use ? eachUse(use) : []) await c.query('SELECT inkprep_confirm($1, $2, $3, $4, $5, $6)', [u.eventId, u.accountId, u.keyId, u.endpoint, u.fairUse, u.at]);
        return true;
      });
    },
    async cancel(id, accountId, now) {
      const up = await pool.query("UPDATE jobs SET status = 'canceled', finished_at = $1, owner = NULL, lease_until = NULL WHERE id = $2 AND account_id = $3 AND status IN ('queued', 'running')", [now, id, accountId]);
      const { rows } = await pool.query<JobRow>('SELECT * FROM jobs WHERE id = $1 AND account_id = $2', [id, accountId]);
      return rows[0] ? { job: jobOf(rows[0]), canceled: up.rowCount === 1 } : null;
    },
    takeOrphans(limit) {
      return tx(async (c) => {
        const { rows } = await c.query<OpenRow>(
          `SELECT *, COALESCE(lease_until, 0) < ${DB_NOW} AS expired FROM jobs
            WHERE status IN ('queued', 'running') AND owner IS DISTINCT FROM $1 ORDER BY created_at FOR UPDATE SKIP LOCKED`, [owner]);
        const taken = rows.filter((r) => r.expired || r.owner === null || endedHere({ host_key: r.host_key, pid: r.pid ?? 0 })).slice(0, limit);
        if (taken.length === 0) return [];
        const up = await c.query<JobRow>(`UPDATE jobs SET owner = $1, host_key = $2, pid = $3, lease_until = ${DB_NOW} + $4 WHERE id = ANY($5::text[]) RETURNING *`,
          [owner, me.hostKey, me.pid, leaseMs, taken.map((r) => r.id)]);
        return up.rows.map(jobOf);
      });
    },
    async release(id) {
      await pool.query("UPDATE jobs SET status = 'queued', owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2 AND status IN ('queued', 'running')", [id, owner]);
    },
    hold: () => renewal.hold(),
    drop: () => renewal.drop(),
    async sweep(before) {
      const { rows } = await pool.query<{ request_ref: string | null; output_ref: string | null }>(
        "DELETE FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled') AND finished_at <= $1 RETURNING request_ref, output_ref", [before]);
      return { removed: rows.length, refs: rows.flatMap((r) => [r.request_ref, r.output_ref].filter((x): x is string => x !== null)) };
    },
    close() {
      renewal.stop();
    },
  };
}
