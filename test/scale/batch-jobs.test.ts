// A mockup batch run as a job counts all of its N uses exactly once whichever process finishes it: its
// first holder is killed (SIGKILL) right after the 202, and the job is finished by another process sharing
// PostgreSQL, or (SQLite) by the server started again on the same data directory. The uses counted are read
// from the store itself: N confirmed events, none pending and none twice. PostgreSQL part skipped, with the
// reason printed, when no server answers.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason } from './pg.js';
import { discsPng, startProc, stopProc, type Proc } from './procs.js';

const pgReason = await pgUnavailableReason();
if (pgReason) console.warn(`[batch-jobs] PostgreSQL part skipped: ${pgReason}`);

const KEY = 'ink_live_' + 'BatchUse'.repeat(4) + 'Key0';
const ENV = { INKPREP_WARM_BLANKS: '0' };
const N = 6;
// Six 3000 px mockups on one engine thread: seconds of work, so the job is far from done when its holder dies.
const FIELDS = { style: 'own:classic-tee', output_size: '3000', items: JSON.stringify(Array.from({ length: N }, (_, i) => ({ color: ['black', 'red', 'navy', 'sand', 'white', 'maroon'][i] }))) };

interface Job { id: string; status: string; attempts?: number; result?: { body: { count: number } } }

async function call(base: string, method: string, route: string, body?: FormData, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(base + route, { method, body, headers: { 'x-api-key': KEY, connection: 'close', ...headers } });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) as unknown : null };
}

async function submitBatch(p: Proc): Promise<Job> {
  const f = new FormData();
  f.append('image', await discsPng(1200, 40), 'art.png');
  for (const [k, v] of Object.entries(FIELDS)) f.append(k, v);
  const res = await call(p.base, 'POST', '/api/v1/mockup/batch', f, { Prefer: 'respond-async' });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const job = res.json as Job;
  expect(['queued', 'running']).toContain(job.status);
  return job;
}

async function untilFinal(p: Proc, id: string, ms = 600_000): Promise<Job> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await call(p.base, 'GET', `/api/v1/jobs/${id}`);
    expect(r.status).toBe(200);
    const j = r.json as Job;
    if (['succeeded', 'failed', 'canceled'].includes(j.status)) return j;
    if (Date.now() > end) throw new Error(`job ${id} still ${j.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** SIGKILL the holder while the job is still open (checked through the API just before). */
async function killHolder(p: Proc, id: string): Promise<void> {
  const r = await call(p.base, 'GET', `/api/v1/jobs/${id}`);
  expect(['queued', 'running']).toContain((r.json as Job).status);
  await new Promise<void>((resolve) => {
    p.child.once('exit', () => resolve());
    p.child.kill('SIGKILL');
  });
}

const started: Proc[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const p of started) await stopProc(p, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a mockup batch job whose first holder is killed counts its N uses once', () => {
  it.skipIf(pgReason !== null)('PostgreSQL: another process takes the job over and counts all N', async () => {
    const db = await createTestDatabase();
    try {
      const victim = await startProc({ dbUrl: db.url, bootstrapKey: KEY, env: ENV });
      started.push(victim);
      const survivor = await startProc({ dbUrl: db.url, bootstrapKey: KEY, env: ENV });
      started.push(survivor);
      const job = await submitBatch(victim);
      await killHolder(victim, job.id);
      const done = await untilFinal(survivor, job.id);
      expect(done.status).toBe('succeeded');
      expect(done.result!.body.count).toBe(N);
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        const { rows } = await c.query<{ confirmed: number; pending: number }>(
          "SELECT count(*) FILTER (WHERE instance_id IS NULL)::int AS confirmed, count(*) FILTER (WHERE instance_id IS NOT NULL)::int AS pending FROM usage_events WHERE endpoint = 'mockup-batch'");
        expect(rows[0]).toEqual({ confirmed: N, pending: 0 });
        const { rows: jobs } = await c.query<{ attempts: number }>('SELECT attempts FROM jobs WHERE id = $1', [job.id]);
        expect(jobs[0]!.attempts).toBeGreaterThanOrEqual(1);
      } finally {
        await c.end();
      }
    } finally {
      for (const p of started.splice(0)) await stopProc(p, 'SIGKILL');
      await db.drop();
    }
  }, 900_000);

  it('SQLite: the server started again on the same data directory finishes the job and counts all N', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-batch-use-'));
    dirs.push(dataDir);
    const env = { ...ENV, INKPREP_DATA_DIR: dataDir };
    const first = await startProc({ dbUrl: '', bootstrapKey: KEY, env });
    started.push(first);
    const job = await submitBatch(first);
    await killHolder(first, job.id);
    const again = await startProc({ dbUrl: '', bootstrapKey: KEY, env });
    started.push(again);
    const done = await untilFinal(again, job.id);
    expect(done.status).toBe('succeeded');
    expect(done.result!.body.count).toBe(N);
    for (const p of started.splice(0)) await stopProc(p, 'SIGTERM');
    const db = new Database(path.join(dataDir, 'inkprep.db'), { readonly: true });
    try {
      const row = db.prepare("SELECT sum(instance_id IS NULL) AS confirmed, sum(instance_id IS NOT NULL) AS pending FROM usage_events WHERE endpoint = 'mockup-batch'").get() as { confirmed: number; pending: number };
      expect(row).toEqual({ confirmed: N, pending: 0 });
    } finally {
      db.close();
    }
  }, 900_000);
});
