// Webhooks (issue #33) as the store keeps them: each account's signing secret (and the previous one during a
// rotation's grace), and the deliveries, one row per (job, callback) with the next attempt's time, so any
// process sharing the store sends it and a restart loses none. A process takes a due delivery with a lease
// (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: a BEGIN IMMEDIATE transaction), so each attempt is made by
// exactly one process; a process that dies holding one leaves it to the next claim after the lease. Every
// attempt is recorded (time, status code or error, duration) for the job's answer. A job has at most one
// delivery (a unique index on its job id: a second enqueue is a no-op), and the outbox sweep (undelivered)
// finds the final jobs with a callback_url that have none, so a completion whose enqueue was lost (the
// process died after finishing the job, or the insert failed) is still delivered, once. Both SQL stores implement
// WebhookStore (webhooks-sqlite.ts, webhooks-pg.ts); sending, signing and the URL policy are webhooks/.

import type { JobRecord } from './jobs.js';

/** An account's signing secrets: `current` signs every delivery; `previous` also signs until `previousUntil`. */
export interface WebhookSecrets {
  accountId: string;
  current: string;
  /** The secret before the last rotation, or null. */
  previous: string | null;
  /** App-clock ms until which `previous` still signs (its grace), or null. */
  previousUntil: number | null;
  /** When `current` was made, ms. */
  createdAt: number;
}

/** Where a delivery stands: `pending` (an attempt is due or running), `delivered` (a 2xx), `failed` (gave up). */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One attempt as recorded: when, the receiver's status code or why there was none, how long it took. */
export interface DeliveryAttempt {
  /** 1, 2, ... */
  n: number;
  /** Start, app-clock ms. */
  at: number;
  /** The HTTP status the receiver answered, or null when there was no answer (see `error`). */
  statusCode: number | null;
  /** Why there was no 2xx answer without a status (`timeout`, `address_not_allowed: ...`, `connect ECONNREFUSED`), else null. */
  error: string | null;
  durationMs: number;
}

/** A delivery as stored. */
export interface Delivery {
  /** `whd_` + 24 hex digits: sent as `Inkprep-Webhook-Id`, the same on every attempt (receivers dedupe on it). */
  id: string;
  accountId: string;
  /** The job whose completion this delivers. */
  jobId: string;
  url: string;
  /** The JSON body sent, exactly (signed as is). */
  body: string;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  /** App-clock ms the next attempt is due (pending), else when it ended. */
  nextAt: number;
  /** No attempt starts after this (app-clock ms): the retry window's end. */
  giveUpAt: number;
  createdAt: number;
}

/** A delivery this process holds for one attempt: `token` tells its claim apart from a later one (after a takeover). */
export interface ClaimedDelivery extends Delivery {
  token: string;
}

/** What an attempt led to: done (2xx), another attempt at `nextAt`, or given up. */
export type AttemptOutcome = { state: 'delivered' } | { state: 'pending'; nextAt: number } | { state: 'failed' };

export interface WebhookStore {
  /** The account's secrets, making the first one with `make()` when it has none (atomic: two processes agree). */
  secrets(accountId: string, now: number, make: () => string): Promise<WebhookSecrets>;
  /** Replace the account's secret with `secret`; the old one keeps signing until `now + graceMs` (0: at once no more). */
  rotateSecret(accountId: string, secret: string, now: number, graceMs: number): Promise<WebhookSecrets>;
  /** Store a new delivery, due at once; false (nothing written) when the job already has one. */
  enqueue(d: { id: string; accountId: string; jobId: string; url: string; body: string; now: number; giveUpAt: number }): Promise<boolean>;
  /**
   * The outbox: up to `limit` final jobs with a callback_url, finished at or after `since`, that have no
   * delivery, oldest first.
   */
  undelivered(since: number, limit: number): Promise<JobRecord[]>;
  /**
   * Take up to `limit` pending deliveries due at `now` that no live claim holds, each for `leaseMs`: this
   * process makes their next attempt. Two processes never take the same delivery while the lease runs.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Record an attempt of a claimed delivery and its outcome; false when the claim was lost (taken over after its lease). */
  recordAttempt(d: ClaimedDelivery, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean>;
  /** The deliveries of a job with their attempts, oldest first (for the job's answer). */
  deliveriesOf(jobId: string): Promise<(Delivery & { attemptLog: DeliveryAttempt[] })[]>;
  /** The earliest `nextAt` of a pending delivery, or null: when the next poll is worth making. */
  nextDue(): Promise<number | null>;
  /** Delete the deliveries that ended (delivered or failed) and were made before `before`, with their attempts; returns how many. */
  prune(before: number): Promise<number>;
}

/** A stored attempt row (both dialects) as an attempt. */
export function attemptOf(r: { n: number; at: number | string; status_code: number | null; error: string | null; duration_ms: number | string }): DeliveryAttempt {
  return { n: Number(r.n), at: Number(r.at), statusCode: r.status_code === null ? null : Number(r.status_code), error: r.error, durationMs: Number(r.duration_ms) };
}

/** A stored delivery row (both dialects) as a delivery. */
export function deliveryOf(r: {
  id: string; account_id: string; job_id: string; url: string; body: string; state: string; attempts: number | string;
  next_at: number | string; give_up_at: number | string; created_at: number | string;
}): Delivery {
  return {
    id: r.id, accountId: r.account_id, jobId: r.job_id, url: r.url, body: r.body, state: r.state as DeliveryState,
    attempts: Number(r.attempts), nextAt: Number(r.next_at), giveUpAt: Number(r.give_up_at), createdAt: Number(r.created_at),
  };
}

/** A stored secrets row (both dialects) as secrets. */
export function secretsOf(r: { account_id: string; secret: string; previous_secret: string | null; previous_until: number | string | null; created_at: number | string }): WebhookSecrets {
  return {
    accountId: r.account_id, current: r.secret, previous: r.previous_secret,
    previousUntil: r.previous_until === null ? null : Number(r.previous_until), createdAt: Number(r.created_at),
  };
}
