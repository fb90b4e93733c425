// Idempotency keys (issue #30): what the store keeps so a retried metered POST (same `Idempotency-Key`,
// same request) is answered with the first answer on any process sharing the store, without running or
// counting again. One row per (account, key): a claim while the first request runs (owned by a process,
// with a lease the owner renews, so a crashed process never blocks the key for long), then the answer.
// Both SQL stores implement IdempotencyStore (idempotency-sqlite.ts, idempotency-pg.ts); the HTTP side
// (what is stored, how it is replayed) is routes/idempotency.ts. The answer of a metered request is stored
// in the same transaction that confirms its use: a process that dies in between cannot leave a use counted
// whose answer a retry would not find (and would run, and count, again).
import type { ReservedUse } from './use.js';

/** How long a key is remembered, from its first request: 24 hours (Stripe's convention). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** An answer as stored: replayed exactly. The body is inline, or in the result storage under `bodyRef`. */
export interface StoredAnswer {
  status: number;
  contentType: string;
  /** The reply's own headers (contract X- headers, X-RateLimit-*, Retry-After...). */
  headers: Record<string, string>;
  /** Inline body, or null when it lives in the result storage. */
  body: Uint8Array | null;
  /** Result storage key of a large body (routes/idempotency.ts INLINE_MAX_BYTES), or null. */
  bodyRef: string | null;
  /** App-clock ms after which the answer is no longer replayed (it points at a result that expires), or null: the key's 24 hours. */
  expiresAt: number | null;
}

/** Which request: the account (keys are per account), the key as sent, the request's hash, the app clock's now. */
export interface IdempotencyRequest {
  accountId: string;
  key: string;
  /** SHA-256 hex of method, path, account, every form field and the file's bytes. */
  requestHash: string;
  now: number;
}

/** A claim this process holds: `token` tells it apart from a later claim of the same key (after a takeover). */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  token: string;
}

export type ClaimResult =
  /** This request runs. `staleBodyRef`: the result storage object of an expired answer it replaced (delete it). */
  | { kind: 'claimed'; claim: IdempotencyClaim; staleBodyRef: string | null }
  /** The same request was answered: replay this. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used with a different request within the window. */
  | { kind: 'mismatch' }
  /** The same request is running (a live claim of another request). */
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  /**
   * Atomically look the key up and, when it is free (never seen, expired, or claimed by a process whose
   * lease ran out or that ended), claim it for this request. A live claim is renewed by its process
   * until `complete` or `abandon`.
   */
  claim(req: IdempotencyRequest): Promise<ClaimResult>;
  /**
   * Store the answer of a claim and, in the same transaction, confirm `use` (the request's reservation,
   * as Store.confirm does; null when there is none): both happen or neither. Resolves false when the claim
   * was lost meanwhile (taken over after a stall): the use is still confirmed, the work succeeded. Safe to
   * call again after an ambiguous failure (a lost commit): the use is confirmed once, the answer kept.
   * Keeps renewing the claim's lease while it fails because the store is away (the settler retries it).
   */
  complete(claim: IdempotencyClaim, answer: StoredAnswer, use: ReservedUse | null): Promise<boolean>;
  /** Drop a claim without an answer (the request failed in a way worth retrying): the key is free again. */
  abandon(claim: IdempotencyClaim): Promise<void>;
  /** Delete keys past their 24 hours or their answer's expiry at `now`; returns how many and the result storage objects they referenced. */
  sweep(now: number): Promise<{ removed: number; bodyRefs: string[] }>;
  /** Stop the lease renewal (the store closes). */
  close(): void;
}

/** A stored row's answer columns (both dialects), as an answer. */
export function answerOf(r: { status: number; content_type: string; headers: string; body: Uint8Array | null; body_ref: string | null; expires_at: number | string | null }): StoredAnswer {
  return {
    status: r.status, contentType: r.content_type, headers: JSON.parse(r.headers) as Record<string, string>,
    body: r.body === null ? null : new Uint8Array(r.body.buffer, r.body.byteOffset, r.body.byteLength), bodyRef: r.body_ref,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  };
}

/** Whether a stored row still holds the key at `now`: within its 24 hours and before its answer's expiry. */
export function isLive(r: { created_at: number | string; expires_at: number | string | null }, now: number): boolean {
  return Number(r.created_at) > now - IDEMPOTENCY_WINDOW_MS && (r.expires_at === null || Number(r.expires_at) > now);
}

/**
 * Renews the leases of this process's running rows, every third of the lease, only while it holds some.
 * `renew` updates every running row of this process's owner id. (The jobs store's; idempotency claims use
 * ClaimRenewal, held per claim.)
 */
export class LeaseRenewal {
  private live = 0;
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly everyMs: number, private readonly renew: () => unknown) {}

  hold(): void {
    if (this.live++ === 0 && !this.timer) {
      this.timer = setInterval(() => {
        try {
          Promise.resolve(this.renew()).catch(() => undefined);
        } catch {
          // busy: the next tick renews; the lease is three ticks long
        }
      }, this.everyMs);
      this.timer.unref();
    }
  }

  drop(): void {
    if (this.live > 0 && --this.live === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * Renews the leases of this process's running claims, every third of the lease, only while it holds some.
 * `renew(tokens)` updates the running rows of this process's owner id with those claim tokens. Held by
 * token, so dropping a claim twice (stored, then abandoned after a failure) never stops another's renewal,
 * and a claim whose abandon failed (the store away) is no longer renewed: its key frees itself after the lease.
 */
export class ClaimRenewal {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly everyMs: number, private readonly renew: (tokens: readonly string[]) => unknown) {}

  hold(token: string): void {
    this.held.add(token);
    if (!this.timer) {
      this.timer = setInterval(() => {
        try {
          Promise.resolve(this.renew([...this.held])).catch(() => undefined);
        } catch {
          // busy: the next tick renews; the lease is three ticks long
        }
      }, this.everyMs);
      this.timer.unref();
    }
  }

  drop(token: string): void {
    if (this.held.delete(token) && this.held.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
