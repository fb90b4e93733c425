// The SQLite side of webhooks (store/webhooks.ts): three tables; a claim is a BEGIN IMMEDIATE transaction
// (atomic across processes sharing the file). Times are the app clock's, as the callers pass them.
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { jobOf, type JobRow } from './jobs.js';
import { attemptOf, deliveryOf, secretsOf, type ClaimedDelivery, type WebhookStore } from './webhooks.js';

/** The schema migration (sqlite.ts MIGRATIONS). A delivery is claimed while `lease_until` is in the future. */
export const SQLITE_WEBHOOKS_SCHEMA = `CREATE TABLE webhook_secrets (
     account_id TEXT PRIMARY KEY, secret TEXT NOT NULL, previous_secret TEXT, previous_until INTEGER, created_at INTEGER NOT NULL);
   CREATE TABLE webhook_deliveries (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL, job_id TEXT NOT NULL, url TEXT NOT NULL, body TEXT NOT NULL,
     state TEXT NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL, give_up_at INTEGER NOT NULL,
     claim TEXT, lease_until INTEGER, created_at INTEGER NOT NULL);
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_at);
   CREATE INDEX webhook_deliveries_job ON webhook_deliveries(job_id);
   CREATE TABLE webhook_attempts (
     delivery_id TEXT NOT NULL, n INTEGER NOT NULL, at INTEGER NOT NULL, status_code INTEGER, error TEXT, duration_ms INTEGER NOT NULL,
     PRIMARY KEY (delivery_id, n));`;

/** The next migration: one delivery per job (enqueue's ON CONFLICT, the outbox sweep's exactly-once). */
export const SQLITE_WEBHOOKS_ONE_PER_JOB = `CREATE UNIQUE INDEX webhook_deliveries_one_per_job ON webhook_deliveries(job_id);
   DROP INDEX webhook_deliveries_job;`;

type SecretsRow = { account_id: string; secret: string; previous_secret: string | null; previous_until: number | null; created_at: number };
type DeliveryRow = Parameters<typeof deliveryOf>[0];
type AttemptRow = Parameters<typeof attemptOf>[0];

/** The webhook store over an open SQLite database (migrated); `keep` holds the prepared statements (sqlite.ts keepNative). */
export function sqliteWebhooks(db: Database.Database, keep: <T extends object>(o: T) => T): WebhookStore {
  const q = keep({
    secrets: db.prepare<[string], SecretsRow>('SELECT * FROM webhook_secrets WHERE account_id = ?'),
    putSecret: db.prepare('INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    rotate: db.prepare(`INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES (@account, @secret, @now)
                        ON CONFLICT (account_id) DO UPDATE SET previous_secret = secret, previous_until = @until, secret = @secret, created_at = @now`),
    enqueue: db.prepare(`INSERT INTO webhook_deliveries (id, account_id, job_id, url, body, state, attempts, next_at, give_up_at, created_at)
                         VALUES (@id, @account, @job, @url, @body, 'pending', 0, @now, @give_up_at, @now) ON CONFLICT (job_id) DO NOTHING`),
    undelivered: db.prepare<[number, number], JobRow>(
      `SELECT * FROM jobs j WHERE status IN ('succeeded', 'failed', 'canceled') AND callback_url IS NOT NULL AND finished_at >= ?
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.job_id = j.id) ORDER BY finished_at, id LIMIT ?`),
    due: db.prepare<[number, number, number], DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_at <= ? AND COALESCE(lease_until, 0) < ? ORDER BY next_at LIMIT ?`),
    take: db.prepare('UPDATE webhook_deliveries SET claim = ?, lease_until = ? WHERE id = ?'),
    attempt: db.prepare('INSERT INTO webhook_attempts (delivery_id, n, at, status_code, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)'),
    settle: db.prepare(`UPDATE webhook_deliveries SET state = @state, attempts = @n, next_at = @next_at, claim = NULL, lease_until = NULL
                        WHERE id = @id AND claim = @claim`),
    ofJob: db.prepare<[string], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE job_id = ? ORDER BY created_at, id'),
    attemptsOf: db.prepare<[string], AttemptRow>('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY n'),
    pruneAttempts: db.prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND created_at < ?)`),
    prune: db.prepare(`DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < ?`),
    nextDue: db.prepare<[], { t: number | null }>(`SELECT min(max(next_at, COALESCE(lease_until, 0))) AS t FROM webhook_deliveries WHERE state = 'pending'`),
  });

  const claimTx = db.transaction((now: number, limit: number, leaseMs: number): ClaimedDelivery[] => {
    const rows = q.due.all(now, now, limit);
    return rows.map((r) => {
      const token = randomBytes(12).toString('hex');
      q.take.run(token, now + leaseMs, r.id);
      return { ...deliveryOf(r), token };
    });
  });
  const recordTx = db.transaction((d: ClaimedDelivery, a: Parameters<WebhookStore['recordAttempt']>[1], o: Parameters<WebhookStore['recordAttempt']>[2]): boolean => {
    const changed = q.settle.run({ id: d.id, claim: d.token, state: o.state, n: a.n, next_at: o.state === 'pending' ? o.nextAt : a.at + a.durationMs }).changes > 0;
    if (changed) q.attempt.run(d.id, a.n, a.at, a.statusCode, a.error, a.durationMs);
    return changed;
  });

  return {
    async secrets(accountId, now, make) {
      const row = q.secrets.get(accountId);
      if (row) return secretsOf(row);
      q.putSecret.run(accountId, make(), now);
      return secretsOf(q.secrets.get(accountId)!);
    },
    async rotateSecret(accountId, secret, now, graceMs) {
      q.rotate.run({ account: accountId, secret, now, until: graceMs > 0 ? now + graceMs : null });
      return secretsOf(q.secrets.get(accountId)!);
    },
    async enqueue(d) {
      return q.enqueue.run({ id: d.id, account: d.accountId, job: d.jobId, url: d.url, body: d.body, now: d.now, give_up_at: d.giveUpAt }).changes > 0;
    },
    async undelivered(since, limit) {
      return q.undelivered.all(since, limit).map(jobOf);
    },
    async claimDue(now, limit, leaseMs) {
      return claimTx.immediate(now, limit, leaseMs);
    },
    async recordAttempt(d, a, o) {
      return recordTx.immediate(d, a, o);
    },
    async deliveriesOf(jobId) {
      return q.ofJob.all(jobId).map((r) => ({ ...deliveryOf(r), attemptLog: q.attemptsOf.all(r.id).map(attemptOf) }));
    },
    async nextDue() {
      return q.nextDue.get()?.t ?? null;
    },
    async prune(before) {
      return db.transaction(() => {
        q.pruneAttempts.run(before);
        return q.prune.run(before).changes;
      }).immediate();
    },
  };
}
