// Asynchronous jobs (issue #33): what the store keeps so a job accepted by one process (`Prefer:
// respond-async`) is visible to every process sharing the store and is run to the end exactly once. One row
// per job: who asked (account, key), which route, its state and progress, the stored request (a result
// storage object), the usage reservation it carries, and, once finished, its result or error. A running
// or queued job is held by one process (owner + lease the owner renews, as idempotency claims are); a job
// whose holder stopped renewing (or ended on this host) is taken by another process and run again.
// Finishing is one transaction that also confirms the job's use, so a job run twice counts once; a job
// counting several uses (a mockup batch: one per image) carries them all (`use_more`) and confirms them all there.
// Both SQL stores implement JobStore (jobs-sqlite.ts, jobs-pg.ts); the HTTP side is jobs/.

import type { ReservedUse } from './use.js';

/** The usage reservation a job carries. */
export type JobUse = ReservedUse;

/** Every state of a job; the last three are final. */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];
/** A job in one of these states never changes again. */
export function isFinal(s: JobStatus): boolean {
  return s === 'succeeded' || s === 'failed' || s === 'canceled';
}

/** A job as stored. Times are the app clock's ms (null until they happen). */
export interface JobRecord {
  /** `job_` + 24 hex digits. */
  id: string;
  accountId: string;
  keyId: string;
  /** The route's path, e.g. `/api/v1/vectorize`. */
  operation: string;
  status: JobStatus;
  /** Share done (0..1) and the engine stage, from the engine's progress events; null before any. */
  progress: number | null;
  stage: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** Result storage key of the stored request (fields + files), null once swept. */
  requestRef: string | null;
  /** Where the webhooks module posts the final job body (stored as given), or null. */
  callbackUrl: string | null;
  /** The usage reservation the job carries (confirmed when it succeeds), or null for unmetered routes. */
  use: JobUse | null;
  /** Times a process started running it (more than 1: a holder died and another took it). */
  attempts: number;
  /** The result (JSON text, jobs/body.ts) of a succeeded job, the error of a failed one. */
  result: string | null;
  error: string | null;
  /** Result storage key of a binary output, and its content type. */
  outputRef: string | null;
  outputType: string | null;
}

/** A new job: held by this process from the start. */
export type NewJob = Pick<JobRecord, 'id' | 'accountId' | 'keyId' | 'operation' | 'createdAt' | 'requestRef' | 'callbackUrl' | 'use'>;

/** How a job ends (the holder's last write). */
export interface JobEnd {
  status: 'succeeded' | 'failed';
  finishedAt: number;
  result: string | null;
  error: string | null;
  outputRef: string | null;
  outputType: string | null;
}

export interface JobStore {
  /**
   * Insert a queued job held by this process, unless the account already has `maxActive` queued or
   * running jobs (atomic per account across processes): false then.
   */
  create(job: NewJob, maxActive: number): Promise<boolean>;
  get(id: string): Promise<JobRecord | null>;
  /** queued -> running (started_at, attempts + 1) if this process holds it; false otherwise (canceled, taken). */
  start(id: string, now: number): Promise<boolean>;
  /** Record progress while this process holds the running job; returns the job's status now (`canceled`: stop), or null when it is no longer ours. */
  progress(id: string, fraction: number, stage: string): Promise<JobStatus | null>;
  /**
   * Finish a job this process holds, in one transaction with confirming its use when it succeeded (a use a
   * sweep released meanwhile is recorded again, as Store.confirm does). False (nothing written) when it is
   * no longer ours or already final (canceled meanwhile).
   */
  finish(id: string, end: JobEnd): Promise<boolean>;
  /** queued/running -> canceled for the job's account; returns the row after (null: no such job of that account) and whether this call canceled it. */
  cancel(id: string, accountId: string, now: number): Promise<{ job: JobRecord; canceled: boolean } | null>;
  /** Take up to `limit` unfinished jobs whose holder is gone (lease lapsed, or ended on this host); they are ours from now on. */
  takeOrphans(limit: number): Promise<JobRecord[]>;
  /** Let go of a job this process holds without finishing it (shutdown): queued again, free for any process at once. */
  release(id: string): Promise<void>;
  /** Hold a lease renewal for this process's jobs while any runs (`drop` once per `hold`). */
  hold(): void;
  drop(): void;
  /** Delete final jobs finished at or before `before`; returns how many and the result storage objects they referenced. */
  sweep(before: number): Promise<{ removed: number; refs: string[] }>;
  close(): void;
}

/** A stored row (both dialects; times may come back as text from PostgreSQL's BIGINT). */
export interface JobRow {
  id: string; account_id: string; key_id: string; operation: string; status: string; progress: number | null; stage: string | null;
  created_at: number | string; started_at: number | string | null; finished_at: number | string | null;
  request_ref: string | null; callback_url: string | null;
  use_event: number | string | null; use_endpoint: string | null; use_fair: string | null; use_at: number | string | null;
  /** JSON list of the use's further event ids (ReservedUse.more); null for a single use (and rows before schema v9). */
  use_more?: string | null;
  attempts: number; result: string | null; error: string | null; output_ref: string | null; output_type: string | null;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export function jobOf(r: JobRow): JobRecord {
  return {
    id: r.id, accountId: r.account_id, keyId: r.key_id, operation: r.operation, status: r.status as JobStatus,
    progress: r.progress === null ? null : Number(r.progress), stage: r.stage,
    createdAt: Number(r.created_at), startedAt: num(r.started_at), finishedAt: num(r.finished_at),
    requestRef: r.request_ref, callbackUrl: r.callback_url,
    use: r.use_event === null ? null : {
      eventId: Number(r.use_event), accountId: r.account_id, keyId: r.key_id, endpoint: r.use_endpoint ?? '',
      fairUse: (r.use_fair ?? null) as JobUse['fairUse'], at: Number(r.use_at),
      ...(r.use_more ? { more: (JSON.parse(r.use_more) as unknown[]).map(Number) } : {}),
    },
    attempts: r.attempts, result: r.result, error: r.error, outputRef: r.output_ref, outputType: r.output_type,
  };
}

/** The `use_more` column of a job's use: its further event ids as JSON, or null. */
export function useMoreOf(use: JobUse | null): string | null {
  return use?.more && use.more.length > 0 ? JSON.stringify(use.more) : null;
}

/** The columns of a job's row as first created, for both schemas (the dialect's integer type); `use_more` came later (v9). */
export function jobsSchema(int: 'INTEGER' | 'BIGINT', ifNotExists: boolean): string {
  const ine = ifNotExists ? 'IF NOT EXISTS ' : '';
  return `CREATE TABLE ${ine}jobs (
     id TEXT PRIMARY KEY, account_id TEXT NOT NULL, key_id TEXT NOT NULL, operation TEXT NOT NULL, status TEXT NOT NULL,
     progress REAL, stage TEXT, created_at ${int} NOT NULL, started_at ${int}, finished_at ${int},
     request_ref TEXT, callback_url TEXT, use_event ${int}, use_endpoint TEXT, use_fair TEXT, use_at ${int},
     owner TEXT, host_key TEXT, pid INTEGER, lease_until ${int}, attempts INTEGER NOT NULL DEFAULT 0,
     result TEXT, error TEXT, output_ref TEXT, output_type TEXT);
   CREATE INDEX ${ine}jobs_account_status ON jobs(account_id, status);
   CREATE INDEX ${ine}jobs_open ON jobs(lease_until) WHERE status IN ('queued', 'running');
   CREATE INDEX ${ine}jobs_finished ON jobs(finished_at);`;
}
