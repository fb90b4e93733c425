// Asynchronous jobs on three `inkprep serve` processes sharing one PostgreSQL database (issue #33's done-when):
// 20 async vectorize jobs submitted round-robin to the three complete, each result (the job body and its
// output) readable from every process, 20 uses counted; a process killed (SIGKILL) while its job converts
// leaves no job stuck: another process takes it (same host: at once, its pid is gone; else after the lease)
// and it succeeds, counted once; and a cancel through one process stops a job held by another.
// Prints the measurement (wall time of the 20 jobs beside 20 synchronous calls in the same run, uses
// counted). Skipped, with the reason printed, when no PostgreSQL server answers.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason } from './pg.js';
import { discsPng, postImage, startProc, stopProc, type Proc } from './procs.js';

const pgReason = await pgUnavailableReason();
if (pgReason) console.warn(`[jobs] skipped: ${pgReason}`);

const BOOT_KEY = 'ink_live_' + 'J0bsTest'.repeat(4) + 'Key0';
// The default leases: a killed process on this host is seen at once (its pid is gone), not after a lease.
const ENV = { INKPREP_VECTORIZE_MAX_WAITING: '64', INKPREP_WARM_BLANKS: '0', INKPREP_JOBS_MAX_ACTIVE: '100' };
let db: { url: string; drop: () => Promise<void> } | null = null;
const procs: Proc[] = [];

interface Job { id: string; status: string; progress: { fraction: number; stage: string | null } | null; result?: { headers: Record<string, string>; output_url?: string }; error?: unknown }

async function submit(p: Proc, image: Blob, fields: Record<string, string> = {}): Promise<Job> {
  const f = new FormData();
  f.append('image', image, 'art.png');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  const res = await fetch(`${p.base}/api/v1/vectorize`, { method: 'POST', body: f, headers: { 'x-api-key': BOOT_KEY, Prefer: 'respond-async' } });
  const body = await res.text();
  expect(res.status, body).toBe(202);
  return JSON.parse(body) as Job;
}

/** A GET on the processes' kept-alive connections (Node's fetch: the servers' Keep-Alive hint retires them in time). */
function get(url: string): Promise<Response> {
  return fetch(url, { headers: { 'x-api-key': BOOT_KEY } });
}

async function read(p: Proc, id: string): Promise<Job> {
  const res = await get(`${p.base}/api/v1/jobs/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Job;
}

async function untilFinal(p: Proc, id: string, ms = 300_000): Promise<Job> {
  const end = Date.now() + ms;
  for (;;) {
    const j = await read(p, id);
    if (['succeeded', 'failed', 'canceled'].includes(j.status)) return j;
    if (Date.now() > end) throw new Error(`job ${id} still ${j.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function uses(): Promise<number> {
  const c = new pg.Client({ connectionString: db!.url });
  await c.connect();
  try {
    // confirmed uses only (instance_id NULL): what the account is charged
    const { rows } = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_events WHERE endpoint = 'vectorize' AND instance_id IS NULL");
    return rows[0]!.n;
  } finally {
    await c.end();
  }
}

describe.skipIf(pgReason !== null)('jobs on three processes sharing PostgreSQL', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    // one at a time: the first creates the schema and the boot key
    for (let i = 0; i < 3; i++) procs.push(await startProc({ dbUrl: db.url, bootstrapKey: BOOT_KEY, env: ENV }));
  }, 180_000);
  afterAll(async () => {
    for (const p of procs) await stopProc(p, 'SIGKILL');
    await db?.drop();
  });

  it('20 async vectorize jobs complete, every result readable from every process, 20 uses counted', async () => {
    const image = await discsPng(400, 150);
    // Baseline in the same run: 20 synchronous calls, round-robin, three clients at a time (one per process;
    // the line converts one at a time whatever the number of clients).
    const base0 = await uses();
    let t0 = performance.now();
    const syncs: { status: number; svg: string }[] = [];
    for (let i = 0; i < 20; i += 3) {
      const batch = Array.from({ length: Math.min(3, 20 - i) }, (_, k) => postImage(procs[(i + k) % 3]!.base, '/api/v1/vectorize', BOOT_KEY, image, { colors: '8' }).then(async (r) => ({ status: r.status, svg: await r.text() })));
      syncs.push(...(await Promise.all(batch)));
    }
    const syncMs = performance.now() - t0;
    expect(syncs.every((s) => s.status === 200)).toBe(true);
    expect(await uses()).toBe(base0 + 20);

    t0 = performance.now();
    const jobs = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(procs[i % 3]!, image, { colors: '8' })));
    const acceptMs = performance.now() - t0;
    const done = await Promise.all(jobs.map((j, i) => untilFinal(procs[(i + 1) % 3]!, j.id)));
    const jobsMs = performance.now() - t0;
    expect(done.map((d) => d.status)).toEqual(Array(20).fill('succeeded'));
    // the PostgreSQL store ends a succeeded job's progress as SQLite's does: share 1, no stage left standing
    expect(done.map((d) => d.progress)).toEqual(Array(20).fill({ fraction: 1, stage: null }));
    for (const d of done) {
      for (const p of procs) {
        const again = await read(p, d.id);
        expect(again.result!.headers['X-Paths']).toBe(d.result!.headers['X-Paths']);
        const out = await get(`${p.base}${d.result!.output_url!}`);
        expect(out.status).toBe(200);
        expect(await out.text()).toBe(syncs[0]!.svg);
      }
    }
    const counted = (await uses()) - base0 - 20;
    expect(counted).toBe(20);
    console.log(`[jobs] 20 vectorize on 3 processes: synchronous ${Math.round(syncMs)} ms; async: 20 accepted in ${Math.round(acceptMs)} ms, all final in ${Math.round(jobsMs)} ms (${(jobsMs / syncMs).toFixed(2)}x the synchronous run); uses counted ${counted}`);
  }, 600_000);

  it('a process killed mid-job leaves no job stuck: another one runs it, counted once', async () => {
    const big = await discsPng(3000, 9000);
    const victim = procs[2]!;
    const before = await uses();
    const job = await submit(victim, big);
    // running and past its first progress write on the victim
    const end = Date.now() + 300_000;
    for (;;) {
      const j = await read(procs[0]!, job.id);
      if (j.status === 'running' && (j.progress?.fraction ?? 0) > 0) break;
      if (j.status !== 'queued' && j.status !== 'running') throw new Error(`job ended before the kill: ${j.status}`);
      if (Date.now() > end) throw new Error('the job never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    await stopProc(victim, 'SIGKILL');
    procs.splice(2, 1);
    const done = await untilFinal(procs[0]!, job.id, 600_000);
    expect(done.status).toBe('succeeded');
    // counted once, whichever process confirmed it; nothing left open
    expect((await uses()) - before).toBe(1);
    const c = new pg.Client({ connectionString: db!.url });
    await c.connect();
    const { rows } = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running')");
    const attempts = await c.query<{ attempts: number }>('SELECT attempts FROM jobs WHERE id = $1', [job.id]);
    await c.end();
    expect(rows[0]!.n).toBe(0);
    expect(attempts.rows[0]!.attempts).toBe(2);
  }, 900_000);

  it('DELETE through one process cancels a job another process runs; it is not counted', async () => {
    const big = await discsPng(3000, 9000);
    const before = await uses();
    const job = await submit(procs[1]!, big);
    const end = Date.now() + 300_000;
    while ((await read(procs[0]!, job.id)).status !== 'running') {
      if (Date.now() > end) throw new Error('the job never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    const del = await fetch(`${procs[0]!.base}/api/v1/jobs/${job.id}`, { method: 'DELETE', headers: { 'x-api-key': BOOT_KEY } });
    expect(del.status).toBe(200);
    expect(((await del.json()) as Job).status).toBe('canceled');
    // the line frees: a small job after it completes (the canceled conversion was stopped, not run out)
    const next = await submit(procs[0]!, await discsPng(48, 3));
    expect((await untilFinal(procs[0]!, next.id)).status).toBe('succeeded');
    expect((await read(procs[1]!, job.id)).status).toBe('canceled');
    expect((await uses()) - before).toBe(1);
  }, 600_000);
});
