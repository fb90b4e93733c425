// The deployment-wide vectorize line in PostgreSQL, through its public interface: two PgLine instances
// (two owners, each with its own session, as two processes would have) on one throwaway database share
// one line: slots across both, one bounded FIFO, the same snapshot from either, an aborted waiter leaves,
// and an owner whose session ends or whose lease lapses loses its places so the next waiter gets the slot.
// The end-to-end version with real `inkprep serve` processes is test/scale/vectorize-line.test.ts.
// Skipped, with the reason printed, when no PostgreSQL server answers.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LINE_LOCK_NS, ServiceError, openPgLine, type PgLine, type PgLineOptions, type QueueTurn } from '@inkprep/http';
import { createTestDatabase, pgUnavailableReason } from './pg.js';

const pgReason = await pgUnavailableReason();
if (pgReason) console.warn(`[pg-line] skipped: ${pgReason}`);

let db: { url: string; drop: () => Promise<void> } | null = null;
const open: PgLine[] = [];

async function line(opts: Partial<PgLineOptions> = {}): Promise<PgLine> {
  const l = await openPgLine({ connectionString: db!.url, slots: 1, maxWaiting: 4, log: process.env.LINE_DEBUG ? ({ info: console.log, warn: console.log, error: console.log, debug: console.log } as never) : undefined, ...opts });
  open.push(l);
  return l;
}

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: db!.url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** expect.poll with room for a busy machine (the default 1 s is not): a hang guard, as MIN_WAIT_MS in test/http/harness.ts. */
function poll<T>(fn: () => T | Promise<T>): ReturnType<typeof expect.poll<T>> {
  return expect.poll(fn, { timeout: 60_000 });
}

/** Resolves to the turn, or to 'pending' if it has not arrived within `ms`. */
async function within(p: Promise<QueueTurn>, ms: number): Promise<QueueTurn | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}

describe.skipIf(pgReason !== null)('PgLine: one vectorize line in PostgreSQL', () => {
  // A fresh database per test: a failed test cannot leave places behind for the next one.
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
    await db?.drop();
  });

  it('one slot across two owners: the second waits, both see the same snapshot, release hands over', async () => {
    const [a, b] = [await line(), await line()];
    const t1 = await a.acquire();
    expect(t1.waitedMs).toBe(0);
    const p2 = b.acquire();
    expect(await within(p2, 300)).toBe('pending');
    expect(await a.snapshot()).toEqual({ queue: { converting: true, waiting: 1, max_waiting: 4 } });
    expect(await b.snapshot()).toEqual(await a.snapshot());
    t1.release();
    const t2 = await p2;
    expect(t2.waitedMs).toBeGreaterThan(0);
    expect(await b.snapshot()).toEqual({ queue: { converting: true, waiting: 0, max_waiting: 4 } });
    t2.release();
    t2.release(); // a second release frees nothing more
    await poll(async () => (await a.snapshot()).queue.converting).toBe(false);
    const t3 = await a.acquire();
    expect(t3.waitedMs).toBe(0);
    t3.release();
    await poll(async () => (await a.snapshot()).queue.converting).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it('the waiting line is bounded across owners; queue_full carries the shared snapshot', async () => {
    const [a, b] = [await line({ maxWaiting: 2 }), await line({ maxWaiting: 2 })];
    const t1 = await a.acquire();
    const w1 = b.acquire();
    const w2 = a.acquire();
    await poll(async () => (await b.snapshot()).queue.waiting).toBe(2);
    const err = await b.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'queue_full', details: { queue: { converting: true, waiting: 2, max_waiting: 2 } } });
    await expect(a.acquire()).rejects.toMatchObject({ code: 'queue_full' });
    t1.release();
    // w1 and w2 joined concurrently, so either may be first: release each when it gets its turn.
    await Promise.all([w1, w2].map((w) => w.then((t) => t.release())));
    await Promise.all([a.close(), b.close()]);
  });

  it('turns go out first come, first served across owners', async () => {
    const owners = [await line({ maxWaiting: 6 }), await line({ maxWaiting: 6 }), await line({ maxWaiting: 6 })];
    const first = await owners[0]!.acquire();
    const order: number[] = [];
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) {
      const p = owners[(i * 2 + 1) % 3]!.acquire();
      // Join one at a time so the arrival order is known.
      await poll(async () => (await owners[0]!.snapshot()).queue.waiting).toBe(i + 1);
      waits.push(p.then((t) => {
        order.push(i);
        setTimeout(() => t.release(), 20);
      }));
    }
    first.release();
    await Promise.all(waits);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    await Promise.all(owners.map((o) => o.close()));
  });

  it('a waiter whose signal aborts leaves the line for every owner at once', async () => {
    const [a, b] = [await line(), await line()];
    const t1 = await a.acquire();
    const ac = new AbortController();
    const gone = b.acquire(ac.signal);
    const stays = a.acquire();
    await poll(async () => (await a.snapshot()).queue.waiting).toBe(2);
    ac.abort();
    await expect(gone).rejects.toMatchObject({ code: 'aborted' });
    await poll(async () => (await a.snapshot()).queue.waiting).toBe(1);
    t1.release();
    (await stays).release();
    await Promise.all([a.close(), b.close()]);
  });

  it('an owner whose session ends (as on kill -9) frees its slot and places; the next waiter gets the turn', async () => {
    const [a, b] = [await line({ recheckMs: 200 }), await line({ recheckMs: 200 })];
    await a.acquire(); // never released: its owner's session is about to end
    a.acquire().catch(() => undefined); // a waiting place of the same owner
    const next = b.acquire();
    await poll(async () => (await b.snapshot()).queue.waiting).toBe(2);
    const owner = a.ownerId;
    // pg_locks covers every database on the server: only this test database's owner.
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, [LINE_LOCK_NS, owner]);
    const started = Date.now();
    const turn = await next;
    expect(Date.now() - started).toBeLessThan(10_000); // the documented default lease; the ended session is seen at once
    expect(await b.snapshot()).toEqual({ queue: { converting: true, waiting: 0, max_waiting: 4 } });
    turn.release();
    await Promise.all([a.close(), b.close()]);
  });

  it('an owner whose lease lapses loses its places even while its session stays open (a vanished host)', async () => {
    // A ghost owner as a host that went away without closing its socket would leave it: the session
    // (and its advisory lock) is still there, but nobody renews the lease (5 s from now: long enough for
    // the first checks below even on a loaded machine).
    const ghost = new pg.Client({ connectionString: db!.url });
    await ghost.connect();
    try {
      const b = await line({ recheckMs: 200 }); // creates the tables
      const id = (await ghost.query<{ id: number }>("SELECT nextval('inkprep_line_owner_seq')::INTEGER AS id")).rows[0]!.id;
      await ghost.query('SELECT pg_advisory_lock($1, $2)', [LINE_LOCK_NS, id]);
      await ghost.query("INSERT INTO inkprep_line_owners (id, lease_until, host, pid, slots, max_waiting) VALUES ($1, clock_timestamp() + interval '5 seconds', 'gone', 0, 1, 4)", [id]);
      await ghost.query('INSERT INTO inkprep_line_places (owner, converting, granted_at) VALUES ($1, true, clock_timestamp())', [id]);
      const next = b.acquire();
      expect(await within(next, 500)).toBe('pending');
      expect(await b.snapshot()).toEqual({ queue: { converting: true, waiting: 1, max_waiting: 4 } });
      const turn = await next; // the lease lapses, the re-check reaps the ghost and hands over the slot
      expect((await ghost.query('SELECT count(*)::INTEGER AS n FROM pg_locks WHERE locktype = $1 AND classid = $2 AND objid = $3 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())', ['advisory', LINE_LOCK_NS, id])).rows[0].n).toBe(1);
      expect(await b.snapshot()).toEqual({ queue: { converting: true, waiting: 0, max_waiting: 4 } });
      turn.release();
    } finally {
      await ghost.end();
    }
  });

  it('an owner reaped while alive notices at its next renewal, registers again and the line goes on', async () => {
    const a = await line({ leaseMs: 1000 });
    const owner = a.ownerId;
    await sql('DELETE FROM inkprep_line_owners WHERE id = $1', [owner]);
    await poll(() => a.ownerId !== null && a.ownerId !== owner).toBe(true);
    const t = await a.acquire();
    expect(t.waitedMs).toBe(0);
    expect(await a.snapshot()).toEqual({ queue: { converting: true, waiting: 0, max_waiting: 4 } });
    t.release();
  });

  it('several slots: that many convert at once across owners, the rest wait', async () => {
    const [a, b] = [await line({ slots: 2, maxWaiting: 1 }), await line({ slots: 2, maxWaiting: 1 })];
    const t1 = await a.acquire();
    const t2 = await b.acquire();
    const w = a.acquire();
    await poll(async () => (await b.snapshot()).queue).toEqual({ converting: true, waiting: 1, max_waiting: 1 });
    expect(await b.counts()).toEqual({ converting: 2, waiting: 1 });
    await expect(b.acquire()).rejects.toMatchObject({ code: 'queue_full' });
    t2.release();
    const t3 = await w;
    t1.release();
    t3.release();
    await poll(() => b.counts()).toEqual({ converting: 0, waiting: 0 });
    await Promise.all([a.close(), b.close()]);
  });
});
