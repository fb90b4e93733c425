// What the deployment-wide vectorize line costs: the PostgreSQL line (queue/pg-line.ts) against the
// in-process line (the baseline) in one run, on a throwaway database.
// - acquire + release of a free slot (one join and one leave round trip through PostgreSQL);
// - a snapshot read (GET /api/v1/vectorize) with the line empty and with a conversion and waiters in it;
// - handover: one owner releases, a waiter of *another* owner gets its turn (NOTIFY wake-up), p50/p99;
// - a burst of 22 joins across two owners with one slot and max_waiting 8: how many are admitted.
// Skipped, with the reason printed, when no PostgreSQL server answers.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ConversionQueue, openPgLine, type PgLine, type QueueTurn } from '@inkprep/http';
import type { BenchContext, Row } from '../lib/harness.js';

const ADMIN_URL = process.env.INKPREP_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end().catch(() => undefined);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export default async function vectorizeLineSuite(ctx: BenchContext): Promise<void> {
  const name = `inkprep_bench_line_${randomBytes(5).toString('hex')}`;
  try {
    await adminQuery(`CREATE DATABASE ${name}`);
  } catch (err) {
    ctx.log(`skipped: no PostgreSQL at ${ADMIN_URL.replace(/:[^:@/]*@/, ':***@')} (${(err as Error).message})`);
    return;
  }
  const u = new URL(ADMIN_URL);
  u.pathname = '/' + name;
  const lines: PgLine[] = [];
  try {
    const a = await openPgLine({ connectionString: u.toString(), slots: 1, maxWaiting: 8 });
    const b = await openPgLine({ connectionString: u.toString(), slots: 1, maxWaiting: 8 });
    lines.push(a, b);
    const local = new ConversionQueue({ maxWaiting: 8, slots: 1 });

    const cycle = ctx.bench('vectorize line: acquire + release of a free slot');
    cycle.add('in-process line (baseline)', async () => {
      (await local.acquire()).release();
    });
    cycle.add('PostgreSQL line', async () => {
      (await a.acquire()).release();
    });
    await ctx.runBench(cycle, { baseline: 'in-process line (baseline)' });

    // Snapshots with the line busy read the same rows plus the owners' liveness (pg_locks).
    const reads = ctx.bench('vectorize line: snapshot (GET /api/v1/vectorize)');
    reads.add('in-process line (baseline)', () => {
      local.snapshot();
    });
    reads.add('PostgreSQL line, empty', async () => {
      await a.snapshot();
    });
    await ctx.runBench(reads, { baseline: 'in-process line (baseline)' });
    const held = await a.acquire();
    // Each waiter gives its turn back as soon as it gets it (they are served in join order).
    const waiters = Array.from({ length: 4 }, (_, i) => (i % 2 ? a : b).acquire().then((t) => t.release()));
    for (const w of waiters) w.catch(() => undefined); // a failure surfaces at the Promise.all below
    while ((await a.snapshot()).queue.waiting < 4) await new Promise((r) => setTimeout(r, 1));
    const busy = ctx.bench('vectorize line: snapshot with 1 converting and 4 waiting');
    busy.add('in-process line (baseline)', () => {
      local.snapshot();
    });
    busy.add('PostgreSQL line, busy', async () => {
      await b.snapshot();
    });
    await ctx.runBench(busy, { baseline: 'in-process line (baseline)' });
    held.release();
    await Promise.all(waiters);

    // Handover across owners: a releases, b's waiter is woken by NOTIFY.
    const rounds = ctx.short ? 20 : 60;
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const first = await a.acquire();
      const next = b.acquire();
      while ((await a.snapshot()).queue.waiting === 0) await new Promise((r) => setTimeout(r, 1));
      const t0 = performance.now();
      first.release();
      const turn: QueueTurn = await next;
      samples.push(performance.now() - t0);
      turn.release();
      while ((await a.snapshot()).queue.converting) await new Promise((r) => setTimeout(r, 1));
    }
    samples.sort((x, y) => x - y);
    ctx.table('vectorize line: handover to a waiter of another process (release -> turn)', [
      { line: 'PostgreSQL (NOTIFY)', rounds, 'p50 ms': percentile(samples, 50), 'p99 ms': percentile(samples, 99), 'max ms': samples[samples.length - 1]! },
    ]);

    // Admission under a burst: 1 slot + max_waiting 8 admit 9 of 22, split over two owners.
    const first = await a.acquire();
    let full = 0;
    const joins = Array.from({ length: 21 }, (_, i) => (i % 2 ? a : b).acquire().then((t) => {
      t.release();
      return true;
    }, () => {
      full++;
      return false;
    }));
    while (full + (await a.snapshot()).queue.waiting < 21) await new Promise((r) => setTimeout(r, 1));
    first.release();
    const admitted = 1 + (await Promise.all(joins)).filter(Boolean).length;
    const burstRows: Row[] = [{ line: 'PostgreSQL, 2 owners', requests: 22, admitted, queue_full: full }];
    ctx.table('vectorize line: burst of 22 joins, 1 slot, max_waiting 8', burstRows);
  } finally {
    for (const l of lines) await l.close();
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  }
}
