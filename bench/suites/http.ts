// HTTP throughput through the full stack on both transports (uWebSockets.js and node:http), beside bare
// hello-world servers of each, all measured in the same run.
// - targets run in their own child process (this file re-run with `--target bare-uws|bare-node|inkprep-uws|
//   inkprep-node`), so the load generator (autocannon, in this process) and the servers do not share an
//   event loop;
// - bare: `GET /` answering "ok" on the transport; inkprep: the real server with INKPREP_HTTP set (SQLite
//   store in a temp dir, info logs to stdout = /dev/null, one engine thread) with a Business key;
// - loads: authenticated GET /api/v1/vectorize (key check against the store + live queue snapshot) and a
//   small POST /api/v1/scan (32x32 PNG, multipart, metered, engine op on the pool);
// - the transport is a dimension: every load runs on each transport back to back inside each round, so
//   drifting background load hits both alike; each row also reports the server's resident memory (RSS)
//   after the load and its CPU per request;
// - baselines in the same run: the bare rate of the same transport, and for the POST the same scans called
//   on a one-thread engine pool directly (32 in flight, no HTTP), since the POST is bound by the engine;
// - reports requests/s, p50/p99 latency, the ratio to bare (target: authenticated GET >= 0.60), and node:http
//   against uWS per load. Where no uWS native build loads (Node 22/24 below glibc 2.38) only node:http runs;
//   a log line names the uWS build or why none loads.
// Short mode (BENCH_SHORT=1): 1 s per load instead of 2 s, 2 rounds instead of 5.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createEngine, type Engine } from '@inkprep/engine';
import type { BenchContext, Row } from '../lib/harness.js';

const SELF = fileURLToPath(import.meta.url);

/** The part of autocannon's API used here (the package ships no types). */
interface CannonResult {
  duration: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Cannon = (opts: { url: string; method: string; headers: Record<string, string>; body?: Buffer; connections: number; pipelining: number; duration?: number; amount?: number }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;
const KEY = 'ink_live_benchbenchbenchbenchbenchbenchbe';

interface Target {
  port: number;
  child: ChildProcess;
}

type TransportKind = 'uws' | 'node';
type TargetKind = `${'bare' | 'inkprep'}-${TransportKind}`;

/** CPU time (user + system, microseconds, all threads) the target process has used so far, and its RSS. */
function statsOf(t: Target): Promise<{ cpu: number; rss: number }> {
  return new Promise((resolve) => {
    t.child.once('message', (m) => resolve(m as { cpu: number; rss: number }));
    t.child.send('stats');
  });
}

/** Start a target server in a child process; resolves with its port. */
function startTarget(kind: TargetKind, dataDir: string): Promise<Target> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--target', kind], {
      env: { ...process.env, INKPREP_DATA_DIR: dataDir, INKPREP_BOOTSTRAP_KEY: KEY, INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', INKPREP_HTTP: kind.endsWith('uws') ? 'uws' : 'node' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.once('message', (m) => resolve({ port: (m as { port: number }).port, child }));
    child.once('exit', (code) => reject(new Error(`target ${kind} exited ${code}: ${err}`)));
  });
}

async function stopTarget(t: Target): Promise<void> {
  const done = new Promise((r) => t.child.once('exit', r));
  t.child.kill('SIGTERM');
  await done;
}

interface Load {
  name: string;
  /** Send exactly this many requests instead of running for a duration (no request is cut off at the end). */
  amount?: number;
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

interface Sample {
  /** Server CPU microseconds per request (null for the engine-direct baseline). */
  cpuUs: number | null;
  /** Server resident set size after the load, bytes (null for the engine-direct baseline). */
  rss: number | null;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function measure(target: Target, load: Load, seconds: number): Promise<Sample> {
  const cpu0 = (await statsOf(target)).cpu;
  const r = await autocannon({
    url: `http://127.0.0.1:${target.port}${load.path}`,
    method: load.method ?? 'GET',
    headers: load.headers ?? {},
    ...(load.body ? { body: load.body } : {}),
    connections: 32,
    pipelining: 1,
    ...(load.amount ? { amount: load.amount } : { duration: seconds }),
  });
  const after = await statsOf(target);
  return { cpuUs: r.requests.total > 0 ? (after.cpu - cpu0) / r.requests.total : null, rss: after.rss, rps: r.requests.total / Math.max(r.duration, 1e-3), p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

/** The same scan on a one-thread engine pool, 32 calls in flight, no HTTP: what the POST row is bounded by. */
async function measureEngineDirect(engine: Engine, png: Uint8Array, seconds: number): Promise<Sample> {
  const end = performance.now() + seconds * 1000;
  const lat: number[] = [];
  let errors = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await engine.scan(png.slice(), { print_width_inches: 10 });
      } catch {
        errors++;
      }
      lat.push(performance.now() - t0);
    }
  }));
  lat.sort((a, b) => a - b);
  return { cpuUs: null, rss: null, rps: lat.length / seconds, p50: lat[Math.floor(lat.length * 0.5)] ?? 0, p99: lat[Math.floor(lat.length * 0.99)] ?? 0, requests: lat.length, non2xx: 0, errors };
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function multipartScanBody(): Promise<{ body: Buffer; type: string; png: Uint8Array }> {
  const png = await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } }).png().toBuffer();
  const b = 'inkprepbench';
  const body = Buffer.concat([
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${b}\r\nContent-Disposition: form-data; name="print_width_inches"\r\n\r\n10\r\n--${b}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${b}`, png: new Uint8Array(png) };
}

export default async function httpSuite(ctx: BenchContext): Promise<void> {
  // The machine is shared and noisy: all servers run side by side and the loads alternate in short windows
  // over several rounds (each load on every transport back to back), so drifting background load hits the
  // baselines, uWS and node:http alike.
  const rounds = ctx.short ? 2 : 5;
  const seconds = ctx.short ? 1 : 2;
  const { loadUws } = await import('../../adapter-http/src/transport/uws-load.js');
  const uwsFound = loadUws();
  const transports: TransportKind[] = uwsFound.ok ? ['uws', 'node'] : ['node'];
  ctx.log(uwsFound.ok ? `Node ${process.version}: uWS rows on ${uwsFound.reason}` : `Node ${process.version}: uWS rows skipped: ${uwsFound.reason}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-bench-http-'));
  const samples = new Map<string, Sample[]>();
  const started: Target[] = [];
  try {
    const targets = new Map<TargetKind, Target>();
    for (const tr of transports) {
      for (const kind of [`bare-${tr}`, `inkprep-${tr}`] as const) {
        // One data dir per inkprep server: two SQLite writers on one file would measure lock waits.
        const t = await startTarget(kind, kind.startsWith('inkprep') ? mkdtempSync(path.join(dir, `${kind}-`)) : dir);
        targets.set(kind, t);
        started.push(t);
      }
    }
    const engine = createEngine({ threads: 1 });
    try {
      const scan = await multipartScanBody();
      const auth = { 'x-api-key': KEY };
      const loadsOf = (tr: TransportKind): [Target, Load][] => {
        const bare = targets.get(`bare-${tr}`)!;
        const ink = targets.get(`inkprep-${tr}`)!;
        return [
          [bare, { name: row(tr, BASE), path: '/' }],
          [ink, { name: row(tr, 'inkprep GET /healthz (no auth)'), path: '/healthz' }],
          [ink, { name: row(tr, AUTH_GET), path: '/api/v1/vectorize', headers: auth }],
          [ink, { name: row(tr, 'inkprep GET /api/v1/upscale (Bearer, settings)'), path: '/api/v1/upscale', headers: { authorization: `Bearer ${KEY}` } }],
          // A fixed count, not a duration: requests cut off at the end of a window would be client aborts, and
          // an aborted running engine task stops its worker (a restart reloads every op module, seconds of CPU).
          [ink, { name: row(tr, POST_SCAN), amount: ctx.short ? 100 : 400, method: 'POST', path: '/api/v1/scan', headers: { ...auth, 'content-type': scan.type }, body: scan.body }],
        ];
      };
      // Interleaved: load i on uWS, then load i on node:http, then load i+1 ...
      const perTransport = transports.map(loadsOf);
      const loads: [Target, Load][] = perTransport[0]!.flatMap((_, i) => perTransport.map((l) => l[i]!));
      // The engine worker loads every op module on start (seconds of CPU): wait until a scan has gone through
      // so that start-up work is not billed to the first measured loads.
      // A first concurrent burst also pays a one-time cost of many seconds here, so warm up with bursts too.
      for (const tr of transports) {
        const ink = targets.get(`inkprep-${tr}`)!;
        const postOnce = async (): Promise<number> => {
          const res = await fetch(`http://127.0.0.1:${ink.port}/api/v1/scan`, { method: 'POST', headers: { ...auth, 'content-type': scan.type }, body: scan.body });
          await res.arrayBuffer();
          return res.status;
        };
        for (let ok = 0; ok < 3;) if ((await postOnce()) === 200) ok++;
        for (let i = 0; i < 2; i++) await Promise.all(Array.from({ length: 32 }, postOnce));
      }
      for (const [t, load] of loads) await measure(t, load, 1); // warm up JIT, pool, store
      await measureEngineDirect(engine, scan.png, 1);
      for (let r = 0; r < rounds; r++) {
        for (const [t, load] of loads) {
          const s = await measure(t, load, seconds);
          samples.set(load.name, [...(samples.get(load.name) ?? []), s]);
        }
        samples.set(ENGINE_DIRECT, [...(samples.get(ENGINE_DIRECT) ?? []), await measureEngineDirect(engine, scan.png, seconds)]);
      }
    } finally {
      await engine.close();
      for (const t of started) await stopTarget(t);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const rows: Row[] = [...samples].map(([name, ss]) => ({
    name,
    'req/s': ss.reduce((a, s) => a + s.requests, 0) / ss.reduce((a, s) => a + s.requests / Math.max(s.rps, 1e-9), 0),
    'p50 ms': median(ss.map((s) => s.p50)),
    'p99 ms': median(ss.map((s) => s.p99)),
    'server CPU us/req': ss[0]!.cpuUs === null ? null : median(ss.map((s) => s.cpuUs ?? 0)),
    'server RSS MB': ss[0]!.rss === null ? null : Math.max(...ss.map((s) => s.rss ?? 0)) / (1024 * 1024),
    requests: ss.reduce((a, s) => a + s.requests, 0),
    'non-2xx': ss.reduce((a, s) => a + s.non2xx, 0),
    errors: ss.reduce((a, s) => a + s.errors, 0),
  }));
  const find = (name: string): Row | undefined => rows.find((r) => r.name === name);
  // Two views: the measured rate (bounded by the load generator sharing this machine) and the server's own
  // CPU per request (what one server core can sustain: bare CPU / inkprep CPU), each against the bare
  // server of the same transport.
  const shown: Row[] = rows.map((r) => {
    const tr = transports.find((t) => String(r.name).startsWith(`[${t}]`));
    const bare = tr ? find(row(tr, BASE)) : undefined;
    return {
      ...r,
      'x bare rate': bare ? Number(r['req/s']) / Number(bare['req/s']) : null,
      'x bare capacity': bare && r['server CPU us/req'] !== null ? Number(bare['server CPU us/req']) / Number(r['server CPU us/req']) : null,
    };
  });
  ctx.table(`HTTP requests/s by transport: ${rounds} alternating rounds x ${seconds} s per load, 32 connections (autocannon in the parent, servers in children)`, shown);
  const direct = find(ENGINE_DIRECT)!;
  for (const tr of transports) {
    const authGet = shown.find((r) => r.name === row(tr, AUTH_GET))!;
    const post = find(row(tr, POST_SCAN))!;
    ctx.log(`[${tr}] POST /api/v1/scan = ${((Number(post['req/s']) / Number(direct['req/s'])) * 100).toFixed(0)}% of the same scans on the engine pool without HTTP`);
    ctx.log(`[${tr}] authenticated GET /api/v1/vectorize = ${(Number(authGet['x bare rate']) * 100).toFixed(0)}% of the bare ${tr} rate measured, ${(Number(authGet['x bare capacity']) * 100).toFixed(0)}% of its per-core capacity (server CPU per request) (target >= 60%)`);
  }
  if (transports.length === 2) {
    const vs: Row[] = perLoadNames().map((n) => {
      const u = find(row('uws', n))!;
      const nd = find(row('node', n))!;
      return { load: n, 'uws req/s': u['req/s'], 'node req/s': nd['req/s'], 'node / uws rate': Number(nd['req/s']) / Number(u['req/s']), 'uws RSS MB': u['server RSS MB'], 'node RSS MB': nd['server RSS MB'], 'uws CPU us/req': u['server CPU us/req'], 'node CPU us/req': nd['server CPU us/req'] };
    });
    ctx.table('node:http against uWebSockets.js, same loads, same run', vs);
  }
  for (const r of shown) {
    if (Number(r['non-2xx']) > 0) throw new Error(`${r.name}: ${r['non-2xx']} non-2xx responses`);
    // Timeouts are reported, not thrown: they are a finding (see the log line), not a crash of the suite.
    if (Number(r.errors) > 0) ctx.log(`WARNING ${r.name}: ${r.errors} requests timed out (10 s) or failed; its rate is not meaningful`);
  }
}

const BASE = 'bare GET / (baseline)';
const AUTH_GET = 'inkprep GET /api/v1/vectorize (x-api-key)';
const POST_SCAN = 'inkprep POST /api/v1/scan 32x32 PNG';
const ENGINE_DIRECT = 'engine.scan same PNG, 1-thread pool, no HTTP (POST baseline)';
/** Row name of a load on a transport. */
function row(tr: TransportKind, name: string): string {
  return `[${tr}] ${name}`;
}
function perLoadNames(): string[] {
  return [BASE, 'inkprep GET /healthz (no auth)', AUTH_GET, 'inkprep GET /api/v1/upscale (Bearer, settings)', POST_SCAN];
}

// ---- child-process targets -------------------------------------------------------------------------
function answerStats(): void {
  process.on('message', (m) => {
    if (m !== 'stats') return;
    const u = process.cpuUsage();
    process.send!({ cpu: u.user + u.system, rss: process.memoryUsage.rss() });
  });
}

async function runTarget(kind: string): Promise<void> {
  if (kind === 'bare-uws') {
    const { loadUws } = await import('../../adapter-http/src/transport/uws-load.js');
    const load = loadUws();
    if (!load.ok) throw new Error(load.reason);
    const uWS = load.uws;
    const app = uWS.App().get('/', (res) => {
      res.end('ok');
    });
    app.listen('127.0.0.1', 0, (s) => {
      if (!s) process.exit(1);
      process.send!({ port: uWS.us_socket_local_port(s) });
      answerStats();
      process.once('SIGTERM', () => {
        uWS.us_listen_socket_close(s);
        process.exit(0);
      });
    });
    return;
  }
  if (kind === 'bare-node') {
    const http = await import('node:http');
    const server = http.createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
      res.writeHead(200, { 'Content-Length': 2 });
      res.end('ok');
    });
    server.listen(0, '127.0.0.1', () => {
      process.send!({ port: (server.address() as { port: number }).port });
      answerStats();
      process.once('SIGTERM', () => process.exit(0));
    });
    return;
  }
  const http = await import('../../adapter-http/dist/index.js');
  const config = { ...http.configFromEnv(), host: '127.0.0.1', port: 0, threads: 1 };
  const store = http.openStore({ dataDir: config.dataDir });
  await http.bootstrapStore(store, KEY, Date.now());
  // Default logger: JSON request lines on stdout (batched), which the parent sends to /dev/null.
  const server = await http.startServer({ config, store, log: http.createLogger('info') });
  process.send!({ port: server.port });
  answerStats();
  process.once('SIGTERM', () => void server.close(2000).then(() => process.exit(0)));
}

const targetArg = process.argv.indexOf('--target');
if (targetArg > 0 && process.argv[1] && path.resolve(process.argv[1]) === SELF) await runTarget(process.argv[targetArg + 1]!);
