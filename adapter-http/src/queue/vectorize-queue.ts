// The vectorize line in one process: `slots` conversions at a time (default 1, the spec's "one at a
// time"), a bounded FIFO of waiting callers. A caller whose signal aborts while waiting leaves the line at
// once; when the line is full, `acquire` rejects with 429 `queue_full` carrying the live snapshot. The
// GET /api/v1/vectorize status read and the 429 body both come from `snapshot()`.
// `VectorizeLine` is the interface the routes use; with a shared PostgreSQL store the server uses the
// cluster-wide line in pg-line.ts instead of this one.
import { InkprepError } from '@inkprep/engine';
import { grantTurn, type QueueTurn } from './turn.js';
import { ServiceError } from '../errors/registry.js';

/** Spec 2.1. */
export interface QueueSnapshot {
  queue: { converting: boolean; waiting: number; max_waiting: number };
}


/** Slots in use and callers waiting. */
export interface LineCounts {
  converting: number;
  waiting: number;
}

/** What the routes, /metrics and the status read need from a vectorize line (in-process or cluster-wide). */
export interface VectorizeLine {
  /** Conversions allowed at once (INKPREP_VECTORIZE_SLOTS). */
  readonly slots: number;
  /** Callers allowed to wait beside the running conversions (INKPREP_VECTORIZE_MAX_WAITING). */
  readonly maxWaiting: number;
  /**
   * Take a conversion slot, waiting in line if all are busy.
   * `placed` is called once the caller has its place (a slot, or a waiting place), before any wait: an
   * asynchronous job answers its 202 then, so a full line is still its 429 `queue_full` at submission.
   * @throws ServiceError `queue_full` (with `queue`) when the line is full; InkprepError `aborted` when `signal` aborts first.
   */
  acquire(signal?: AbortSignal, placed?: () => void): Promise<QueueTurn>;
  /** Live state; synchronous for the in-process line (hot path without a promise hop). */
  snapshot(): QueueSnapshot | Promise<QueueSnapshot>;
  /** Conversions running and callers waiting now (for /metrics: `converting` counts slots in use). */
  counts(): LineCounts | Promise<LineCounts>;
  /** Leave for good: drop connections, free places. */
  close(): Promise<void>;
}

interface Waiter {
  resolve(turn: QueueTurn): void;
  reject(err: unknown): void;
  enqueuedAt: number;
  onAbort: (() => void) | null;
  signal: AbortSignal | undefined;
}

/** Default waiting-line length (INKPREP_VECTORIZE_MAX_WAITING). */
export const DEFAULT_MAX_WAITING = 8;
/** Default conversions at once (INKPREP_VECTORIZE_SLOTS): the spec's "one at a time". */
export const DEFAULT_SLOTS = 1;

export interface ConversionQueueOptions {
  /** Callers allowed to wait beside the running conversions (0 = none wait); default 8. */
  maxWaiting?: number;
  /** Conversions at once; default 1. */
  slots?: number;
  /** Clock for `waitedMs` (ms); default performance.now. */
  now?: () => number;
}

/** Throws a RangeError unless `n` is an integer >= `min` (constructor arguments, checked once). */
export function checkCount(name: string, n: number, min: number): number {
  if (!Number.isInteger(n) || n < min) throw new RangeError(`Expected an integer >= ${min} for ${name} but received ${n}`);
  return n;
}

export class ConversionQueue implements VectorizeLine {
  readonly maxWaiting: number;
  readonly slots: number;
  private running = 0;
  private readonly waiters: Waiter[] = [];
  private readonly now: () => number;

  /**
   * @param opts options, or (older form) the `maxWaiting` number
   * @param now clock for `waitedMs` with the number form
   * @example new ConversionQueue({ maxWaiting: 8, slots: 1 })
   */
  constructor(opts: ConversionQueueOptions | number = {}, now?: () => number) {
    const o: ConversionQueueOptions = typeof opts === 'number' ? { maxWaiting: opts, now } : opts;
    this.maxWaiting = checkCount('maxWaiting', o.maxWaiting ?? DEFAULT_MAX_WAITING, 0);
    this.slots = checkCount('slots', o.slots ?? DEFAULT_SLOTS, 1);
    this.now = o.now ?? (() => performance.now());
  }

  /** Live state (spec 2.1 `{ queue: { converting, waiting, max_waiting } }`). */
  snapshot(): QueueSnapshot {
    return { queue: { converting: this.running > 0, waiting: this.waiters.length, max_waiting: this.maxWaiting } };
  }

  counts(): LineCounts {
    return { converting: this.running, waiting: this.waiters.length };
  }

  acquire(signal?: AbortSignal, placed?: () => void): Promise<QueueTurn> {
    if (signal?.aborted) return Promise.reject(new InkprepError('aborted', 'The caller left before its turn'));
    const start = this.now();
    if (this.running < this.slots) {
      this.running++;
      placed?.();
      return Promise.resolve(this.turn(null));
    }
    if (this.waiters.length >= this.maxWaiting) {
      const snap = this.snapshot();
      return Promise.reject(new ServiceError('queue_full', `The vectorize line is full (${snap.queue.waiting} waiting); try again shortly`, { queue: snap.queue }));
    }
    return new Promise<QueueTurn>((resolve, reject) => {
      const w: Waiter = { resolve, reject, enqueuedAt: start, onAbort: null, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new InkprepError('aborted', 'The caller left the line'));
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.waiters.push(w);
      placed?.();
    });
  }

  async close(): Promise<void> {
    // Nothing outlives the process.
  }

  private turn(enqueuedAt: number | null): QueueTurn {
    return grantTurn(enqueuedAt, this.now, () => this.next());
  }

  /** A slot was freed: hand it to the oldest waiter, or mark it free. */
  private next(): void {
    const w = this.waiters.shift();
    if (!w) {
      this.running--;
      return;
    }
    if (w.onAbort && w.signal) w.signal.removeEventListener('abort', w.onAbort);
    w.resolve(this.turn(w.enqueuedAt));
  }
}
