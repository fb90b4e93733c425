// The vectorize line: one conversion at a time per server, a bounded FIFO of waiting callers.
// A caller whose signal aborts while waiting leaves the line at once; when the line is full, `acquire`
// rejects with 429 `queue_full` carrying the live snapshot. The GET /api/v1/vectorize status read and the
// 429 body both come from `snapshot()`.
import { InkprepError } from '@inkprep/engine';

/** Spec 2.1. */
export interface QueueSnapshot {
  queue: { converting: boolean; waiting: number; max_waiting: number };
}

/** A held turn: call `release()` exactly once when the conversion ends (extra calls are ignored). */
export interface QueueTurn {
  /** Milliseconds spent waiting in line (0 when the slot was free). */
  waitedMs: number;
  release(): void;
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

export class ConversionQueue {
  readonly maxWaiting: number;
  private converting = false;
  private readonly waiters: Waiter[] = [];
  private readonly now: () => number;

  /** @param maxWaiting callers allowed to wait beside the running conversion (0 = none wait). */
  constructor(maxWaiting: number = DEFAULT_MAX_WAITING, now: () => number = () => performance.now()) {
    if (!Number.isInteger(maxWaiting) || maxWaiting < 0) throw new RangeError(`Expected an integer >= 0 for maxWaiting but received ${maxWaiting}`);
    this.maxWaiting = maxWaiting;
    this.now = now;
  }

  /** Live state (spec 2.1 `{ queue: { converting, waiting, max_waiting } }`). */
  snapshot(): QueueSnapshot {
    return { queue: { converting: this.converting, waiting: this.waiters.length, max_waiting: this.maxWaiting } };
  }

  /**
   * Take the conversion slot, waiting in line if it is busy.
   * @throws InkprepError `queue_full` (with `queue`) when the line is full; `aborted` when `signal` aborts first.
   */
  acquire(signal?: AbortSignal): Promise<QueueTurn> {
    if (signal?.aborted) return Promise.reject(new InkprepError('aborted', 'The caller left before its turn'));
    const start = this.now();
    if (!this.converting) {
      this.converting = true;
      return Promise.resolve(this.turn(null));
    }
    if (this.waiters.length >= this.maxWaiting) {
      const snap = this.snapshot();
      return Promise.reject(new InkprepError('queue_full', `The vectorize line is full (${snap.queue.waiting} waiting); try again shortly`, { queue: snap.queue }));
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
    });
  }

  private turn(enqueuedAt: number | null): QueueTurn {
    let released = false;
    return {
      waitedMs: enqueuedAt === null ? 0 : Math.max(0, this.now() - enqueuedAt),
      release: () => {
        if (released) return;
        released = true;
        this.next();
      },
    };
  }

  private next(): void {
    const w = this.waiters.shift();
    if (!w) {
      this.converting = false;
      return;
    }
    if (w.onAbort && w.signal) w.signal.removeEventListener('abort', w.onAbort);
    w.resolve(this.turn(w.enqueuedAt));
  }
}
