// The PostgreSQL side of webhooks (store/webhooks.ts): three tables; due deliveries are taken with
// FOR UPDATE SKIP LOCKED and a lease, so the processes of a cluster share them and each attempt is made by
// exactly one. Times are the app clock's, as the callers pass them (the hosts' clocks are assumed in step to
// within the lease, which is the delivery timeout plus a margin).
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { jobOf, type JobRow } from './jobs.js';
import { attemptOf, deliveryOf, secretsOf, type WebhookStore } from './webhooks.js';

/** The schema migration (postgres.ts PG_MIGRATIONS). A delivery is claimed while `lease_until` is in the future. */
export const PG_WEBHOOKS_SCHEMA = `CREATE TABLE IF NOT EXISTS webhook_secrets (
     account_id TEXT PRIMARY KEY, secret TEXT NOT NULL, previous_secret TEXT, previous_until BIGINT, created_at BIGINT NOT NULL);
   CREATE TABLE IF NOT EXISTS webhook_deliveries (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL, job_id TEXT NOT NULL, url TEXT NOT NULL, body TEXT NOT NULL,
     state TEXT NOT NULL, attempts INTEGER NOT NULL, next_at BIGINT NOT NULL, give_up_at BIGINT NOT NULL,
     claim TEXT, lease_until BIGINT, created_at BIGINT NOT NULL);
   CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries(state, next_at);
   CREATE INDEX IF NOT EXISTS webhook_deliveries_job ON webhook_deliveries(job_id);
   CREATE TABLE IF NOT EXISTS webhook_attempts (
     delivery_id TEXT NOT NULL, n INTEGER NOT NULL, at BIGINT NOT NULL, status_code INTEGER, error TEXT, duration_ms BIGINT NOT NULL,
     PRIMARY KEY (delivery_id, n));`;

/** The next migration: one delivery per job (enqueue's ON CONFLICT, the outbox sweep's exactly-once). */
export const PG_WEBHOOKS_ONE_PER_JOB = `CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_one_per_job ON webhook_deliveries(job_id);
   DROP INDEX IF EXISTS webhook_deliveries_job;`;

type SecretsRow = Parameters<typeof secretsOf>[0];
type DeliveryRow = Parameters<typeof deliveryOf>[0];
type AttemptRow = Parameters<typeof attemptOf>[0];

/** The webhook store over the PostgreSQL store's pool (migrated). */
export function pgWebhooks(pool: pg.Pool): WebhookStore {
  return {
    async secrets(accountId, now, make) {
      // Insert-if-absent then read: two processes making the first secret at once agree on one.
      await pool.query('INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [accountId, make(), now]);
      const { rows } = await pool.query<SecretsRow>('SELECT * FROM webhook_secrets WHERE account_id = $1', [accountId]);
      return secretsOf(rows[0]!);
    },
    async rotateSecret(accountId, secret, now, graceMs) {
      const { rows } = await pool.query<SecretsRow>(
        `INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET previous_secret = webhook_secrets.secret, previous_until = $4, secret = $2, created_at = $3 RETURNING *`,
        [accountId, secret, now, graceMs > 0 ? now + graceMs : null]);
      return secretsOf(rows[0]!);
    },
    async enqueue(d) {
      const r = await pool.query(
        `INSERT INTO webhook_deliveries (id, account_id, job_id, url, body, state, attempts, next_at, give_up_at, created_at)
         VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7, $6) ON CONFLICT (job_id) DO NOTHING`, [d.id, d.accountId, d.jobId, d.url, d.body, d.now, d.giveUpAt]);
      return r.rowCount === 1;
    },
    async undelivered(since, limit) {
      const { rows } = await pool.query<JobRow>(
        `SELECT * FROM jobs j WHERE status IN ('succeeded', 'failed', 'canceled') AND callback_url IS NOT NULL AND finished_at >= $1
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.job_id = j.id) ORDER BY finished_at, id LIMIT $2`, [since, limit]);
      return rows.map(jobOf);
    },
    async claimDue(now, limit, leaseMs) {
      const token = randomBytes(12).toString('hex');
      const { rows } = await pool.query<DeliveryRow>(
        `UPDATE webhook_deliveries SET claim = $1, lease_until = $2 + $3::bigint WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_at <= $2 AND COALESCE(lease_until, 0) < $2
            ORDER BY next_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING *`, [token, now, leaseMs, limit]);
      return rows.map((r) => ({ ...deliveryOf(r), token }));
    },
    async recordAttempt(d, a, o) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const r = await c.query(
          'UPDATE webhook_deliveries SET state = $3, attempts = $4, next_at = $5, claim = NULL, lease_until = NULL WHERE id = $1 AND claim = $2',
          [d.id, d.token, o.state, a.n, o.state === 'pending' ? o.nextAt : a.at + a.durationMs]);
        if (r.rowCount === 1) {
          await c.query('INSERT INTO webhook_attempts (delivery_id, n, at, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6)',
            [d.id, a.n, a.at, a.statusCode, a.error, a.durationMs]);
        }
        await c.query('COMMIT');
        return r.rowCount === 1;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
    },
    async deliveriesOf(jobId) {
      const { rows } = await pool.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE job_id = $1 ORDER BY created_at, id', [jobId]);
      if (rows.length === 0) return [];
      const { rows: attempts } = await pool.query<AttemptRow & { delivery_id: string }>(
        'SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, n', [rows.map((r) => r.id)]);
      return rows.map((r) => ({ ...deliveryOf(r), attemptLog: attempts.filter((x) => x.delivery_id === r.id).map(attemptOf) }));
    },
    async nextDue() {
      const { rows } = await pool.query<{ t: string | null }>(`SELECT min(GREATEST(next_at, COALESCE(lease_until, 0))) AS t FROM webhook_deliveries WHERE state = 'pending'`);
      return rows[0]?.t == null ? null : Number(rows[0].t);
    },
    async prune(before) {
      const { rowCount } = await pool.query(
        `WITH gone AS (DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < $1 RETURNING id)
         , attempts AS (DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM gone))
         SELECT 1 FROM gone`, [before]);
      return rowCount ?? 0;
    },
  };
}
