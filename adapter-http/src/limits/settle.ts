// Settling usage reservations when the store comes and goes. A request admitted while the store answered
// and whose work succeeded must be counted exactly once, even if the store is away when it finishes:
// - keep(): confirm at once when nothing is waiting; if the store is away (or confirmations are already
//   waiting), queue the confirmation in memory and let the reply go. The queue is retried in order, with
//   backoff (RETRY_MIN_MS doubling to RETRY_MAX_MS), until the store takes each one. Confirming is
//   idempotent by the reservation's event id (a retry after an ambiguous commit changes nothing).
// - A confirmation may carry a Settlement: a request with an Idempotency-Key confirms its use and stores
//   its answer in one store transaction (store/idempotency.ts), so the queue holds and retries that
//   transaction, answer included: once the store is back, the use is counted and a retry of the request
//   gets the answer, together (until then the key's claim stays this process's: a retry gets 409).
// - The queue is bounded (max entries, default CONFIRM_QUEUE_MAX, and maxBytes of queued answers, default
//   CONFIRM_QUEUE_MAX_BYTES): at a bound a new confirmation is dropped, logged at error level and counted
//   (dropped{reason="full"}); its use is then released, so it is not counted, and its answer is not stored
//   (the customer is never charged twice, at worst a use goes uncounted). A confirmation the store
//   refuses with something other than an outage (a bug) is tried MAX_FAILED_TRIES times, then dropped the
//   same way (reason="failed").
// - Releases and reservations whose answer was lost in an outage leave pending uses of this process that
//   no request holds; once the store answers again they are released here (store.releaseOwnPending), so
//   no restart or admin sweep is needed.
// - flush() on graceful shutdown tries to empty the queue before the store closes. On a crash, queued
//   confirmations are lost with the process: their uses stay pending and the store's sweep releases them
//   after the lease (not counted).
import type { Logger } from '../log.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { ReservedUse, ReserveRequest, ReserveResult, Store } from '../store/types.js';
import { eventIdsOf } from '../store/use.js';

/** Default bound of queued confirmations (each a few hundred bytes): far above what one process has in flight. */
export const CONFIRM_QUEUE_MAX = 10_000;
/** Default bound of the answer bytes queued confirmations hold (inline idempotent answers, up to 256 KB each). */
export const CONFIRM_QUEUE_MAX_BYTES = 64 * 1024 * 1024;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 2_000;
/** Confirmations sent to the store per retry round (the PostgreSQL store batches concurrent ones into one statement). */
const RETRY_BATCH = 200;
/** A confirmation failing for another reason than an outage is dropped after this many tries. */
const MAX_FAILED_TRIES = 5;

/** Counters of the settler, read by the metrics on each scrape. */
export interface SettleStats {
  /** Confirmations waiting for the store now. */
  queued: number;
  /** Confirmations ever queued (the store was away when their request finished). */
  queuedTotal: number;
  /** Queued confirmations the store later took. */
  confirmedLater: number;
  /** Confirmations given up: `full` (queue at its bound), `failed` (refused for another reason than an outage). */
  dropped: { full: number; failed: number };
  /** Pending uses of this process released after an outage (a lost release or reservation answer). */
  releasedLater: number;
}

/**
 * What must commit together with a use's confirmation (an idempotent answer), as the one store transaction
 * that does both. `commit` must confirm the use as Store.confirm does and be safe to run again.
 */
export interface Settlement {
  commit(): Promise<unknown>;
  /** Memory it holds while queued (an inline answer body), toward the queue's byte bound. */
  bytes: number;
  /** The settler gave it up (queue full, or refused repeatedly): neither the use nor the rest is stored. */
  dropped(): void;
}

interface Queued {
  use: ReservedUse;
  failures: number;
  with: Settlement | null;
}

export interface SettlerOptions {
  log: Logger;
  /** The clock reservations are stamped with (the app's). */
  clock: () => number;
  max?: number;
  maxBytes?: number;
  retryMinMs?: number;
  retryMaxMs?: number;
}

export class UsageSettler {
  /** Event ids this process still answers for: in a request, being confirmed, or queued. */
  private readonly held = new Set<number>();
  /** `now` of reservations on their way to the store (their event may exist before we learn its id). */
  private readonly reserving = new Map<number, number>();
  private nextToken = 0;
  private queue: Queued[] = [];
  /** Pending uses of this process may exist that no request holds (set by a failed release or reservation). */
  private unsettled = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private delay: number;
  private closed = false;
  private readonly max: number;
  private readonly maxBytes: number;
  private queuedBytes = 0;
  private readonly minMs: number;
  private readonly maxMs: number;
  private readonly counts = { queuedTotal: 0, confirmedLater: 0, full: 0, failed: 0, releasedLater: 0 };

  constructor(private readonly store: Store, private readonly opts: SettlerOptions) {
    this.max = opts.max ?? CONFIRM_QUEUE_MAX;
    this.maxBytes = opts.maxBytes ?? CONFIRM_QUEUE_MAX_BYTES;
    this.minMs = opts.retryMinMs ?? RETRY_MIN_MS;
    this.maxMs = opts.retryMaxMs ?? RETRY_MAX_MS;
    this.delay = this.minMs;
  }

  stats(): SettleStats {
    const c = this.counts;
    return { queued: this.queue.length, queuedTotal: c.queuedTotal, confirmedLater: c.confirmedLater, dropped: { full: c.full, failed: c.failed }, releasedLater: c.releasedLater };
  }

  /** store.reserve, noting the reservation while it travels and the event it returns as held. */
  async reserve(req: ReserveRequest): Promise<ReserveResult> {
    const token = this.nextToken++;
    this.reserving.set(token, req.now);
    try {
      const r = await this.store.reserve(req);
      if (r.ok) this.held.add(r.eventId);
      return r;
    } catch (err) {
      // The store may have committed the reservation before the answer was lost: settle later.
      this.markUnsettled();
      throw err;
    } finally {
      this.reserving.delete(token);
    }
  }

  /**
   * Make a use final, alone or (`with`) in one transaction with what must commit beside it. Resolves once
   * the store has it, or once it is queued because the store is away (the reply need not wait for an
   * outage). Rejects only for a failure that is not an outage (then nothing was stored).
   */
  async keep(use: ReservedUse, with_: Settlement | null = null): Promise<void> {
    if (this.queue.length > 0) {
      this.enqueue(use, with_); // keep the order: earlier confirmations are still waiting
      return;
    }
    try {
      await (with_ ? with_.commit() : this.store.confirm(use));
      this.unhold(use);
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      this.opts.log.warn('store away: usage confirmation queued', { event: use.eventId, ...(with_ ? { with_answer: true } : {}), err: String(err) });
      this.enqueue(use, with_);
    }
  }

  /** Give a use back. A release the store cannot take now is done later by releaseOwnPending (never thrown for an outage). */
  async release(eventId: number): Promise<void> {
    this.held.delete(eventId);
    try {
      await this.store.release(eventId);
    } catch (err) {
      this.markUnsettled();
      if (!isStoreUnavailable(err)) throw err;
    }
  }

  /** Try to empty the queue and settle this process's pending uses, for at most `timeoutMs` (graceful shutdown). */
  async flush(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.queue.length > 0 || this.unsettled) && Date.now() < deadline) {
      await this.round();
      if (this.queue.length > 0 || this.unsettled) await new Promise((r) => setTimeout(r, Math.min(this.delay, Math.max(0, deadline - Date.now()))));
    }
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length > 0) {
      // Lost with this process: their uses stay pending and the store's sweep releases them after the lease.
      this.opts.log.error('usage confirmations not flushed at shutdown: those uses will not be counted', { queued: this.queue.length });
    }
  }

  private enqueue(use: ReservedUse, with_: Settlement | null): void {
    const bytes = with_?.bytes ?? 0;
    if (this.queue.length >= this.max || (bytes > 0 && this.queuedBytes + bytes > this.maxBytes)) {
      this.counts.full++;
      this.unhold(use); // released by releaseOwnPending: uncounted rather than counted twice
      this.markUnsettled();
      this.opts.log.error('usage confirmation queue full: use dropped (not counted)', { event: use.eventId, max: this.max, queued_bytes: this.queuedBytes, max_bytes: this.maxBytes });
      with_?.dropped();
      return;
    }
    this.counts.queuedTotal++;
    this.queuedBytes += bytes;
    this.queue.push({ use, failures: 0, with: with_ });
    this.schedule();
  }

  /** This process no longer answers for the use's events (all of a batch's). */
  private unhold(use: ReservedUse): void {
    for (const id of eventIdsOf(use)) this.held.delete(id);
  }

  private markUnsettled(): void {
    this.unsettled = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.round().then(() => {
        if (this.queue.length > 0 || this.unsettled) this.schedule();
      });
    }, this.delay);
    this.timer.unref();
  }

  /** One retry round: the head of the queue in order, then (queue empty) this process's unheld pending uses. */
  private round(): Promise<void> {
    return (this.running ??= this.roundOnce().finally(() => {
      this.running = null;
    }));
  }

  private async roundOnce(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, RETRY_BATCH);
      const results = await Promise.allSettled(batch.map((q) => (q.with ? q.with.commit() : this.store.confirm(q.use))));
      let done = 0;
      let away = false;
      for (let i = 0; i < batch.length; i++) {
        const r = results[i]!;
        const q = batch[i]!;
        if (r.status === 'fulfilled') {
          this.unhold(q.use);
          this.counts.confirmedLater++;
          done++;
        } else if (isStoreUnavailable(r.reason)) {
          away = true;
          break; // in order: the rest waits behind the first one the store did not take
        } else if (++q.failures >= MAX_FAILED_TRIES) {
          this.unhold(q.use);
          this.counts.failed++;
          this.markUnsettled(); // its pending use is released by releaseOwnPending
          this.opts.log.error('usage confirmation failed repeatedly: dropped (not counted)', { event: q.use.eventId, err: String(r.reason) });
          q.with?.dropped();
          done++;
        } else {
          break;
        }
      }
      // Every confirmation of the batch ran; those after the first failure are retried (idempotent).
      for (const q of this.queue.splice(0, done)) this.queuedBytes -= q.with?.bytes ?? 0;
      if (done < batch.length) {
        this.delay = Math.min(this.maxMs, this.delay * 2);
        if (!away) this.opts.log.warn('usage confirmation failed; retrying', { event: batch[done]?.use.eventId });
        return;
      }
      this.delay = this.minMs;
      if (this.queue.length === 0) this.opts.log.info('queued usage confirmations all taken by the store', { confirmed_later: this.counts.confirmedLater });
    }
    if (!this.unsettled) return;
    try {
      const inFlight = [...this.reserving.values()];
      const before = Math.min(this.opts.clock(), ...inFlight);
      this.unsettled = false; // a failure from here on sets it again
      const n = await this.store.releaseOwnPending(new Set(this.held), before);
      this.counts.releasedLater += n;
      if (n > 0) this.opts.log.info('released pending usage left by the store outage', { released: n });
      this.delay = this.minMs;
    } catch (err) {
      this.unsettled = true;
      this.delay = Math.min(this.maxMs, this.delay * 2);
      if (!isStoreUnavailable(err)) this.opts.log.error('releasing leftover pending usage failed', { err: String(err) });
    }
  }
}
