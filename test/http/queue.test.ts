// Unit tests of the vectorize line: one at a time, bounded FIFO, queue_full with the snapshot, leaving on abort.
import { describe, expect, it } from 'vitest';
import { ConversionQueue, ServiceError, statusOf } from '@inkprep/http';

describe('ConversionQueue', () => {
  it('runs one at a time and serves waiters in arrival order', async () => {
    const q = new ConversionQueue(3);
    const first = await q.acquire();
    expect(q.snapshot()).toEqual({ queue: { converting: true, waiting: 0, max_waiting: 3 } });
    const order: number[] = [];
    const p2 = q.acquire().then((t) => (order.push(2), t));
    const p3 = q.acquire().then((t) => (order.push(3), t));
    expect(q.snapshot().queue.waiting).toBe(2);
    first.release();
    const t2 = await p2;
    expect(order).toEqual([2]);
    expect(q.snapshot().queue).toEqual({ converting: true, waiting: 1, max_waiting: 3 });
    t2.release();
    t2.release(); // a second release must not free a second slot
    const t3 = await p3;
    expect(order).toEqual([2, 3]);
    t3.release();
    expect(q.snapshot().queue).toEqual({ converting: false, waiting: 0, max_waiting: 3 });
  });

  it('rejects with queue_full and the live snapshot when the line is full', async () => {
    const q = new ConversionQueue(1);
    const t = await q.acquire();
    const waiting = q.acquire();
    const err = await q.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('queue_full');
    expect(statusOf((err as ServiceError).code)).toBe(429);
    expect((err as ServiceError).details.queue).toEqual({ converting: true, waiting: 1, max_waiting: 1 });
    t.release();
    (await waiting).release();
  });

  it('max_waiting 0 admits only the running conversion', async () => {
    const q = new ConversionQueue(0);
    const t = await q.acquire();
    await expect(q.acquire()).rejects.toMatchObject({ code: 'queue_full' });
    t.release();
    (await q.acquire()).release();
  });

  it('a waiter whose signal aborts leaves the line at once', async () => {
    const q = new ConversionQueue(2);
    const t = await q.acquire();
    const ac = new AbortController();
    const gone = q.acquire(ac.signal);
    const stays = q.acquire();
    expect(q.snapshot().queue.waiting).toBe(2);
    ac.abort();
    await expect(gone).rejects.toMatchObject({ code: 'aborted' });
    expect(q.snapshot().queue.waiting).toBe(1);
    t.release();
    const t2 = await stays;
    expect(q.snapshot().queue).toEqual({ converting: true, waiting: 0, max_waiting: 2 });
    t2.release();
    expect(q.snapshot().queue.converting).toBe(false);
  });

  it('measures the time spent waiting with the injected clock', async () => {
    let now = 1000;
    const q = new ConversionQueue(1, () => now);
    const t = await q.acquire();
    expect(t.waitedMs).toBe(0);
    const p = q.acquire();
    now += 250;
    t.release();
    const t2 = await p;
    expect(t2.waitedMs).toBe(250);
    t2.release();
  });

  it('an already aborted signal never joins', async () => {
    const q = new ConversionQueue(1);
    const ac = new AbortController();
    ac.abort();
    await expect(q.acquire(ac.signal)).rejects.toMatchObject({ code: 'aborted' });
    expect(q.snapshot().queue).toEqual({ converting: false, waiting: 0, max_waiting: 1 });
  });

  it('with several slots, that many convert at once and the rest wait in order', async () => {
    const q = new ConversionQueue({ maxWaiting: 1, slots: 2 });
    expect(q.slots).toBe(2);
    const t1 = await q.acquire();
    const t2 = await q.acquire();
    expect(q.counts()).toEqual({ converting: 2, waiting: 0 });
    const p3 = q.acquire();
    await expect(q.acquire()).rejects.toMatchObject({ code: 'queue_full', details: { queue: { converting: true, waiting: 1, max_waiting: 1 } } });
    t1.release();
    const t3 = await p3;
    expect(q.counts()).toEqual({ converting: 2, waiting: 0 });
    t2.release();
    t3.release();
    expect(q.counts()).toEqual({ converting: 0, waiting: 0 });
    expect(() => new ConversionQueue({ slots: 0 })).toThrow(RangeError);
  });
});
