// The SQLite side of jobs (store/jobs.ts): one table; leases on this host's wall clock. A store file is
// used by one server process, so at start every unfinished job of an ended process is taken at once
// (endedHere) and resumed.
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { endedHere, thisInstance } from './instance.js';
import { LeaseRenewal } from './idempotency.js';
import { jobOf, jobsSchema, useMoreOf, type JobRow, type JobStatus, type JobStore, type JobUse } from './jobs.js';

/** The schema migration (sqlite.ts MIGRATIONS). */
export const SQLITE_JOBS_SCHEMA = jobsSchema('INTEGER', false);
/** The later migration adding the further usage events of a job (store/jobs.ts `use_more`). */
export const JOBS_USE_MORE_SQLITE = 'ALTER TABLE jobs ADD COLUMN use_more TEXT;';

type OpenRow = JobRow & { owner: string | null; host_key: string | null; pid: number | null; lease_until: number | null };

/** The job store over an open SQLite database (migrated); `confirm` is the store's confirmation (run inside finish's transaction). */
export function sqliteJobs(db: Database.Database, keep: <T extends object>(o: T) => T, leaseMs: number, confirm: (u: JobUse) => void): JobStore {
  const owner = randomBytes(8).toString('hex');
  const me = thisInstance();
  const q = keep({
    get: db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?'),
    active: db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM jobs WHERE account_id = ? AND status IN ('queued', 'running')"),
    insert: db.prepare(`INSERT INTO jobs (id, account_id, key_id, operation, status, created_at, request_ref, callback_url, use_event, use_endpoint, use_fair, use_at, owner, host_key, pid, lease_until, use_more)
                        VALUES (@id, @account, @key, @operation, 'queued', @created_at, @request_ref, @callback_url, @use_event, @use_endpoint, @use_fair, @use_at, @owner, @host_key, @pid, @lease_until, @use_more)`),
    start: db.prepare("UPDATE jobs SET status = 'running', started_at = ?, attempts = attempts + 1 WHERE id = ? AND owner = ? AND status IN ('queued', 'running')"),
    progress: db.prepare("UPDATE jobs SET progress = ?, stage = ? WHERE id = ? AND owner = ? AND status = 'running'"),
    status: db.prepare<[string, string], { status: string }>('SELECT status FROM jobs WHERE id = ? AND owner = ?'),
    finish: db.prepare(`UPDATE jobs SET status = @status, finished_at = @finished_at, result = @result, error = @error, output_ref = @output_ref, output_type = @output_type,
                        progress = CASE WHEN @status = 'succeeded' THEN 1 ELSE progress END, stage = CASE WHEN @status = 'succeeded' THEN NULL ELSE stage END, owner = NULL, lease_until = NULL
                        WHERE id = @id AND owner = @owner AND status IN ('queued', 'running')`),
    cancel: db.prepare("UPDATE jobs SET status = 'canceled', finished_at = ?, owner = NULL, lease_until = NULL WHERE id = ? AND account_id = ? AND status IN ('queued', 'running')"),
    getOf: db.prepare<[string, string], JobRow>('SELECT * FROM jobs WHERE id = ? AND account_id = ?'),
    open: db.prepare<[string], OpenRow>("SELECT * FROM jobs WHERE status IN ('queued', 'running') AND (owner IS NULL OR owner <> ?) ORDER BY created_at"),
    take: db.prepare('UPDATE jobs SET owner = ?, host_key = ?, pid = ?, lease_until = ? WHERE id = ?'),
    release: db.prepare("UPDATE jobs SET status = 'queued', owner = NULL, lease_until = NULL WHERE id = ? AND owner = ? AND status IN ('queued', 'running')"),
    renew: db.prepare("UPDATE jobs SET lease_until = ? WHERE owner = ? AND status IN ('queued', 'running')"),
    sweep: db.prepare<[number], { request_ref: string | null; output_ref: string | null }>(
      "DELETE FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled') AND finished_at <= ? RETURNING request_ref, output_ref"),
  });
  const renewal = new LeaseRenewal(Math.max(100, Math.floor(leaseMs / 3)), () => q.renew.run(Date.now() + leaseMs, owner));

  const createTx = db.transaction((job: Parameters<JobStore['create']>[0], max: number): boolean => {
    if (q.active.get(job.accountId)!.n >= max) return false;
    q.insert.run({
      id: job.id, account: job.accountId, key: job.keyId, operation: job.operation, created_at: job.createdAt, request_ref: job.requestRef,
      callback_url: job.callbackUrl, use_event: job.use?.eventId ?? null, use_endpoint: job.use?.endpoint ?? null, use_fair: job.use?.fairUse ?? null,
      use_at: job.use?.at ?? null, owner, host_key: me.hostKey, pid: me.pid, lease_until: Date.now() + leaseMs, use_more: useMoreOf(job.use),
    });
    return true;
  });
  const finishTx = db.transaction((id: string, end: Parameters<JobStore['finish']>[1]): boolean => {
    const changed = q.finish.run({ id, owner, status: end.status, finished_at: end.finishedAt, result: end.result, error: end.error, output_ref: end.outputRef, output_type: end.outputType }).changes > 0;
    if (!changed) return false;
    const use = end.status === 'succeeded' ? jobOf(q.get.get(id)!).use : null;
    if (use) confirm(use); // every event of the use (a batch's several), in this transaction
    return true;
  });
  const takeTx = db.transaction((limit: number) => {
    const now = Date.now();
    const taken = q.open.all(owner).filter((r) => (r.lease_until ?? 0) < now || r.owner === null || endedHere({ host_key: r.host_key, pid: r.pid ?? 0 })).slice(0, limit);
    for (const r of taken) q.take.run(owner, me.hostKey, me.pid, now + leaseMs, r.id);
    return taken.map((r) => q.get.get(r.id)!);
  });

  return {
    async create(job, max) {
      return createTx.immediate(job, max);
    },
    async get(id) {
      const r = q.get.get(id);
      return r ? jobOf(r) : null;
    },
    async start(id, now) {
      return q.start.run(now, id, owner).changes > 0;
    },
    async progress(id, fraction, stage) {
      q.progress.run(fraction, stage, id, owner);
      return (q.status.get(id, owner)?.status ?? null) as JobStatus | null;
    },
    async finish(id, end) {
      return finishTx.immediate(id, end);
    },
    async cancel(id, accountId, now) {
      const canceled = q.cancel.run(now, id, accountId).changes > 0;
      const r = q.getOf.get(id, accountId);
      return r ? { job: jobOf(r), canceled } : null;
    },
    async takeOrphans(limit) {
      return takeTx.immediate(limit).map(jobOf);
    },
    async release(id) {
      q.release.run(id, owner);
    },
    hold: () => renewal.hold(),
    drop: () => renewal.drop(),
    async sweep(before) {
      const rows = q.sweep.all(before);
      return { removed: rows.length, refs: rows.flatMap((r) => [r.request_ref, r.output_ref].filter((x): x is string => x !== null)) };
    },
    close() {
      renewal.stop();
    },
  };
}
