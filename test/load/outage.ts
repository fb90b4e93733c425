// `npm run load:outage`: a PostgreSQL outage under steady traffic, measured for real (issue 30).
// 1. initdb a throwaway PostgreSQL into a temp dir (as the `postgres` user when run as root) and start it on
//    OUTAGE_PG_PORT (default 55432; never the machine's shared 5432);
// 2. start OUTAGE_PROCESSES (3) `inkprep serve` processes on it (own ports, INKPREP_BOOTSTRAP_KEY, metrics
//    token), all at once on the empty database;
// 3. steady keep-alive traffic from OUTAGE_CONCURRENCY (8) loops spread over the processes: scans and fixes
//    of a small PNG, status reads (GET /api/v1/vectorize), a few upscales;
// 4. after OUTAGE_BEFORE_S (10) seconds `pg_ctl -m immediate stop`, OUTAGE_SECONDS (20) seconds later start
//    it again, OUTAGE_AFTER_S (15) more seconds of traffic, then the loops stop;
// 5. with the processes still running: wait until every process's confirmation queue is empty and no use is
//    pending, and read the uses counted in the store.
// Prints the replies by status (500 must be 0), metered 2xx received vs uses counted (must be equal), the
// time from the restart to the first 2xx, to empty confirmation queues and (after the traffic) to no pending
// use, and each process's queue metrics; then stops
// exactly what it started (by pid) and removes the temp dir. Exit 1 when a check fails.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import sharp from 'sharp';

const env = (name: string, d: number): number => (process.env[name] ? Number(process.env[name]) : d);
const PG_BIN = process.env.OUTAGE_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const PG_PORT = env('OUTAGE_PG_PORT', 55432);
const PROCESSES = env('OUTAGE_PROCESSES', 3);
const CONCURRENCY = env('OUTAGE_CONCURRENCY', 8);
const BEFORE_S = env('OUTAGE_BEFORE_S', 10);
const OUTAGE_S = env('OUTAGE_SECONDS', 20);
const AFTER_S = env('OUTAGE_AFTER_S', 15);
const KEY = 'ink_live_outage_load_0123456789abcdef';
const TOKEN = 'outage-metrics-token-0123456789';
const MAIN = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));
const METERED = new Set(['scan', 'fix', 'upscale']);

const root = os.userInfo().uid === 0;
const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-outage-'));
const pgData = path.join(dir, 'pgdata');
if (root) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));

/** Run a PostgreSQL binary (as the postgres user when we are root: initdb refuses root). */
function pgRun(bin: string, args: string[]): void {
  const cmd = [path.join(PG_BIN, bin), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  if (root) execFileSync('su', ['postgres', '-c', cmd], { stdio: ['ignore', 'ignore', 'inherit'] });
  else execFileSync('sh', ['-c', cmd], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const pgStart = (): void => pgRun('pg_ctl', ['-D', pgData, '-w', '-l', path.join(dir, 'pg.log'), '-o', `-p ${PG_PORT} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`, 'start']);
const pgStop = (mode: 'immediate' | 'fast'): void => pgRun('pg_ctl', ['-D', pgData, '-m', mode, 'stop']);

interface Proc { child: ChildProcess; port: number }
const procs: Proc[] = [];
let pgUp = false;

function serve(url: string, i: number): Promise<Proc> {
  const data = path.join(dir, `serve-${i}`);
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: {
      ...process.env, PORT: '0', HOST: '127.0.0.1', INKPREP_DATA_DIR: data, INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0',
      DATABASE_URL: url, INKPREP_BOOTSTRAP_KEY: KEY, INKPREP_METRICS_TOKEN: TOKEN, INKPREP_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on http:\/\/[^:/\s]+:(\d+)\/api\/v1/.exec(err);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`serve ${i} exited ${code}: ${err}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

function request(port: number, method: string, p: string, body?: { bytes: Buffer; type: string }, headers: Record<string, string> = { 'x-api-key': KEY }): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1', port, method, path: p, agent, timeout: 120_000,
      headers: { ...headers, ...(body ? { 'content-type': body.type, 'content-length': String(body.bytes.length) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', () => resolve({ status: -1, text: '' }));
    });
    req.on('error', () => resolve({ status: -1, text: '' })); // -1: no HTTP answer (connection error)
    req.on('timeout', () => req.destroy());
    req.end(body?.bytes);
  });
}

async function multipart(png: Buffer, fields: Record<string, string> = {}): Promise<{ bytes: Buffer; type: string }> {
  const f = new FormData();
  f.append('image', new Blob([new Uint8Array(png)]), 'art.png');
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  const r = new Response(f);
  return { bytes: Buffer.from(await r.arrayBuffer()), type: r.headers.get('content-type')! };
}

async function metricsOf(port: number): Promise<Record<string, number>> {
  const r = await request(port, 'GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}` });
  const out: Record<string, number> = {};
  for (const line of r.text.split('\n')) {
    const m = /^(inkprep_usage_[a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

async function main(): Promise<number> {
  console.log(`outage load: PostgreSQL on 127.0.0.1:${PG_PORT} in ${dir}; ${PROCESSES} serve processes; ${CONCURRENCY} loops; ${BEFORE_S} s, outage ${OUTAGE_S} s, ${AFTER_S} s; ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  pgRun('initdb', ['-D', pgData, '-A', 'trust', '-U', 'postgres']);
  pgStart();
  pgUp = true;
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${PG_PORT}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE inkprep_outage');
  await admin.end();
  const url = `postgres://postgres@127.0.0.1:${PG_PORT}/inkprep_outage`;
  procs.push(...(await Promise.all(Array.from({ length: PROCESSES }, (_, i) => serve(url, i)))));
  console.log(`serve processes up: ports ${procs.map((p) => p.port).join(', ')}`);

  const png = await sharp({ create: { width: 96, height: 96, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 48, height: 48, channels: 4, background: { r: 220, g: 20, b: 20, alpha: 1 } } }, left: 24, top: 24 }]).png().toBuffer();
  const small = await sharp({ create: { width: 48, height: 48, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 24, height: 24, channels: 4, background: { r: 20, g: 20, b: 220, alpha: 1 } } }, left: 12, top: 12 }]).png().toBuffer();
  const bodies = { scan: await multipart(png), fix: await multipart(png), upscale: await multipart(small) };

  const counts = new Map<string, number>(); // "endpoint status"
  const samples500: string[] = [];
  let metered2xx = 0;
  let t0 = 0;
  let stoppedAt = 0;
  let startedAt = 0;
  let first2xxAfter: number | null = null;
  let running = true;
  let n = 0;
  const loop = async (w: number): Promise<void> => {
    while (running) {
      const port = procs[(n++ + w) % procs.length]!.port;
      const roll = n % 20;
      const ep = roll < 9 ? 'scan' : roll < 15 ? 'fix' : roll < 19 ? 'status' : 'upscale';
      const r = ep === 'status' ? await request(port, 'GET', '/api/v1/vectorize') : await request(port, 'POST', `/api/v1/${ep}`, bodies[ep]);
      const code = r.status >= 400 ? (/"code":"([a-z_]+)"/.exec(r.text)?.[1] ?? '?') : '';
      const k = `${ep} ${r.status}${code ? ' ' + code : ''}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
      if (r.status >= 200 && r.status < 300 && METERED.has(ep)) metered2xx++;
      if (r.status >= 500 && r.status !== 503 && samples500.length < 5) samples500.push(`${ep} ${r.status} ${r.text.slice(0, 200)}`);
      if (r.status === 200 && startedAt && first2xxAfter === null) first2xxAfter = Date.now() - startedAt;
    }
  };
  t0 = Date.now();
  const loops = Array.from({ length: CONCURRENCY }, (_, w) => loop(w));
  await new Promise((r) => setTimeout(r, BEFORE_S * 1000));
  pgStop('immediate');
  pgUp = false;
  stoppedAt = Date.now();
  console.log(`+${((stoppedAt - t0) / 1000).toFixed(1)} s: pg_ctl -m immediate stop`);
  await new Promise((r) => setTimeout(r, OUTAGE_S * 1000));
  pgStart();
  pgUp = true;
  startedAt = Date.now();
  console.log(`+${((startedAt - t0) / 1000).toFixed(1)} s: PostgreSQL started again (down ${((startedAt - stoppedAt) / 1000).toFixed(1)} s)`);
  // While traffic goes on: when every process's confirmation queue is empty again.
  let drainedAt: number | null = null;
  const afterEnd = Date.now() + AFTER_S * 1000;
  while (Date.now() < afterEnd) {
    if (drainedAt === null) {
      const queued = (await Promise.all(procs.map((p) => metricsOf(p.port)))).reduce((s, m) => s + (m.inkprep_usage_confirmations_queued ?? 0), 0);
      if (queued === 0) drainedAt = Date.now();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  running = false;
  await Promise.all(loops);
  const loadEnd = Date.now();

  // Settled: no confirmation waiting in any process and no pending use in the store (processes still running).
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  let settledAt: number | null = null;
  while (Date.now() - loadEnd < 120_000) {
    const queued = (await Promise.all(procs.map((p) => metricsOf(p.port)))).reduce((s, m) => s + (m.inkprep_usage_confirmations_queued ?? 0), 0);
    const pending = Number((await db.query('SELECT count(*) AS n FROM usage_events WHERE instance_id IS NOT NULL')).rows[0].n);
    if (queued === 0 && pending === 0) {
      settledAt = Date.now();
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const counted = Number((await db.query("SELECT count(*) AS n FROM usage_events WHERE instance_id IS NULL AND endpoint IN ('scan', 'fix', 'upscale')")).rows[0].n);
  const accounts = Number((await db.query('SELECT count(*) AS n FROM accounts')).rows[0].n);
  await db.end();
  const metrics = await Promise.all(procs.map((p) => metricsOf(p.port)));

  const by = (pred: (status: number) => boolean): number => [...counts].filter(([k]) => pred(Number(k.split(' ')[1]))).reduce((s, [, v]) => s + v, 0);
  const total = by(() => true);
  const s500 = by((s) => s >= 500 && s !== 503);
  const summary = {
    date: new Date().toISOString(), host: os.hostname(), cores: os.cpus().length, load: os.loadavg().map((l) => Number(l.toFixed(1))),
    processes: PROCESSES, concurrency: CONCURRENCY, outage_s: Number(((startedAt - stoppedAt) / 1000).toFixed(1)),
    requests: total, ok_2xx: by((s) => s >= 200 && s < 300), s503: by((s) => s === 503), s5xx_not_503: s500, other: by((s) => s < 200 || (s >= 300 && s < 500) || s === -1),
    metered_2xx: metered2xx, counted_in_store: counted, bootstrap_accounts: accounts,
    first_2xx_after_restart_s: first2xxAfter === null ? null : Number((first2xxAfter / 1000).toFixed(2)),
    queues_drained_after_restart_s: drainedAt === null ? null : Number(((drainedAt - startedAt) / 1000).toFixed(2)),
    settled_after_load_end_s: settledAt === null ? null : Number(((settledAt - loadEnd) / 1000).toFixed(2)),
    by_endpoint_status: Object.fromEntries([...counts].sort()),
    per_process_metrics: metrics,
  };
  console.log(JSON.stringify(summary, null, 2));
  if (samples500.length) console.log('5xx other than 503:\n' + samples500.join('\n'));
  const ok = s500 === 0 && counted === metered2xx && settledAt !== null && accounts === 1;
  console.log(ok ? 'outage load: PASS (no 500, uses counted = metered 2xx, settled)' : 'outage load: FAIL');
  return ok ? 0 : 1;
}

async function cleanup(): Promise<void> {
  agent.destroy();
  await Promise.all(procs.map((p) => new Promise<void>((r) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return r();
    p.child.once('exit', () => r());
    p.child.kill('SIGTERM');
  })));
  if (pgUp) {
    try {
      pgStop('fast');
    } catch { /* already down */ }
  }
  rmSync(dir, { recursive: true, force: true });
}

main().then(async (code) => {
  await cleanup();
  process.exit(code);
}, async (err: unknown) => {
  console.error(err);
  await cleanup();
  process.exit(1);
});
