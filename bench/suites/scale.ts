// Scale-out throughput: real `inkprep serve` processes, measured in one run with autocannon in this process:
// - baseline: 1 process on the embedded SQLite store;
// - 1 process on PostgreSQL (DATABASE_URL);
// - 2 processes on PostgreSQL sharing one port (SO_REUSEPORT, as `inkprep cluster` runs them).
// Loads: authenticated GET /api/v1/vectorize (key + live account state from the store) and a small
// metered POST /api/v1/scan (32x32 PNG; one usage reservation in the store per request).
// PostgreSQL rows are skipped with the reason printed when no server answers.
// Note: this machine has 2 cores shared by the load generator, the servers and PostgreSQL, so the
// 2-process figure shows contention as much as scaling; on a larger host each process adds a core.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import pg from 'pg';
import type { BenchContext, Row } from '../lib/harness.js';
import { REPO_ROOT } from '../lib/harness.js';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Cannon = (opts: { url: string; method: string; headers: Record<string, string>; body?: Buffer; connections: number; pipelining: number; duration: number }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

const MAIN = path.join(REPO_ROOT, 'adapter-http/dist/cli/main.js');
const KEY = 'ink_live_' + 'scalebench'.repeat(4);
const ADMIN_URL = process.env.INKPREP_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function serve(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', INKPREP_LOG_LEVEL: 'error', INKPREP_BOOTSTRAP_KEY: KEY, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('listening on')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

async function stop(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
  })));
}

async function pgReady(): Promise<string | null> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function scanBody(): Promise<{ body: Buffer; type: string }> {
  const png = await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } }).png().toBuffer();
  const b = 'inkprepscale';
  return {
    type: `multipart/form-data; boundary=${b}`,
    body: Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]),
  };
}

export default async function scaleSuite(ctx: BenchContext): Promise<void> {
  const seconds = ctx.short ? 1 : 4;
  const scan = await scanBody();
  const loads = [
    { name: 'GET /api/v1/vectorize (auth)', method: 'GET', path: '/api/v1/vectorize', headers: { 'x-api-key': KEY } as Record<string, string> },
    { name: 'POST /api/v1/scan 32x32 (metered)', method: 'POST', path: '/api/v1/scan', headers: { 'x-api-key': KEY, 'content-type': scan.type }, body: scan.body },
  ];
  const reason = await pgReady();
  if (reason) ctx.log(`PostgreSQL rows skipped: no server at ${ADMIN_URL} (${reason})`);

  const setups: { name: string; processes: number; db: 'sqlite' | 'postgres' }[] = [
    { name: '1 process, SQLite (baseline)', processes: 1, db: 'sqlite' },
    ...(reason ? [] : [
      { name: '1 process, PostgreSQL', processes: 1, db: 'postgres' as const },
      { name: '2 processes, PostgreSQL, one port', processes: 2, db: 'postgres' as const },
    ]),
  ];
  const rows: Row[] = [];
  for (const setup of setups) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-scale-'));
    let dbName: string | null = null;
    const env: Record<string, string> = { INKPREP_DATA_DIR: dataDir };
    if (setup.db === 'postgres') {
      dbName = `inkprep_bench_${randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      await admin.end();
      const u = new URL(ADMIN_URL);
      u.pathname = '/' + dbName;
      env.DATABASE_URL = u.toString();
    }
    const port = await freePort();
    const children: ChildProcess[] = [];
    try {
      // The first process bootstraps the store; the second starts once the account exists.
      for (let i = 0; i < setup.processes; i++) children.push(await serve(port, env));
      for (const load of loads) {
        const opts = { url: `http://127.0.0.1:${port}${load.path}`, method: load.method, headers: load.headers, ...(load.body ? { body: load.body } : {}), connections: 32, pipelining: 1 };
        await autocannon({ ...opts, duration: 1 }); // warm-up
        const r = await autocannon({ ...opts, duration: seconds });
        rows.push({ setup: setup.name, load: load.name, 'req/s': r.requests.total / seconds, 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, 'non-2xx': r.non2xx, errors: r.errors + r.timeouts });
      }
    } finally {
      await stop(children);
      rmSync(dataDir, { recursive: true, force: true });
      if (dbName) {
        const admin = new pg.Client({ connectionString: ADMIN_URL });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await admin.end();
      }
    }
  }
  for (const load of loads) {
    const mine = rows.filter((r) => r.load === load.name);
    const base = Number(mine.find((r) => String(r.setup).includes('baseline'))!['req/s']);
    for (const r of mine) r['x SQLite 1 process'] = Number(r['req/s']) / base;
  }
  ctx.table(`scale-out: ${seconds} s per load, 32 connections, autocannon in the bench process`, rows);
  for (const r of rows) if (Number(r.errors) > 0 || Number(r['non-2xx']) > 0) throw new Error(`${r.setup} / ${r.load}: ${r['non-2xx']} non-2xx, ${r.errors} errors`);
}
