// The HTTP transport as an operator meets it: INKPREP_HTTP picks uWebSockets.js or node:http (auto: uWS
// where its @btc-vision build loads, never the trufflesuite build, whose silent close on malformed framing
// `uws` names in a start-up warning), the choice is one JSON log line, stdout carries nothing but JSON (no
// uWS "not compatible" banner on Node 22/24), INKPREP_HTTP=node never loads the uWS binary, a busy PORT
// makes `serve` fail with a clear message and a non-zero exit (uWS alone would share it through
// SO_REUSEPORT), and only `inkprep cluster` shares a port on purpose.
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUws } from '../../adapter-http/src/transport/uws-load.js';
import { nodeCanSharePort } from '../../adapter-http/src/transport/node.js';
import { startTestServer, type TestServer } from './harness.js';
import { MAIN, expectedTransport, serveFails, startServe } from './serve-process.js';

const uwsLoads = loadUws('uws').ok;
const autoPicksUws = loadUws('auto').ok;
const want = expectedTransport();
const resolved = want === 'auto' ? (autoPicksUws ? 'uws' : 'node') : want;
/** The build INKPREP_HTTP=uws runs on here is the trufflesuite one (Node 20 on glibc < 2.38). */
const trufflesuite = (() => {
  const l = loadUws('uws');
  return l.ok && l.build.startsWith('@trufflesuite/');
})();
const FRAMING_WARNING = 'http transport: malformed requests are closed without an answer';

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A port P with P + 1 also free (the metrics ports of a two-process cluster). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const p = await freePort();
    const next = net.createServer();
    const ok = await new Promise<boolean>((r) => {
      next.once('error', () => r(false));
      next.listen(p + 1, '127.0.0.1', () => r(true));
    });
    if (ok) {
      await new Promise<void>((r) => next.close(() => r()));
      return p;
    }
  }
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe(`transport selection (this run: INKPREP_HTTP=${want})`, () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { logLevel: 'info' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('the server runs on the chosen transport and says so once, as a JSON log line', () => {
    expect(t.server.transport).toBe(resolved);
    const lines = t.logs.filter((l) => l.msg === 'http transport');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ transport: resolved, node: process.version });
    expect(typeof lines[0]!.reason).toBe('string');
    expect(t.logs.find((l) => l.msg === 'listening')).toMatchObject({ transport: resolved, port: t.server.port });
  });

  it('a start-up warning names the silent close of malformed requests exactly when the server runs on the trufflesuite build', () => {
    const warnings = t.logs.filter((l) => l.msg === FRAMING_WARNING);
    if (resolved === 'uws' && trufflesuite) {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 'warn', transport: 'uws' });
      expect(String(warnings[0]!.detail)).toMatch(/^@trufflesuite\/uws-js-unofficial 20\.30\.\S+ closes the connection without any response to a Content-Length .*"Malformed requests"$/);
    } else {
      expect(warnings).toEqual([]);
    }
  });

  it('INKPREP_HTTP=auto picks uWS only where the @btc-vision build loads, never the trufflesuite build', async () => {
    const s = await startServe({ INKPREP_HTTP: 'auto', INKPREP_BOOTSTRAP_KEY: 'ink_live_' + 'AutoPick'.repeat(5) });
    try {
      // The child's exit can be seen before the last of its stdout: wait for the line while it runs.
      const end = Date.now() + 30_000;
      while (!s.stdout().includes('"msg":"listening"') && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await s.stop();
    }
    const lines = jsonLines(s.stdout());
    const line = lines.find((l) => l.msg === 'http transport')!;
    expect(line.transport).toBe(autoPicksUws ? 'uws' : 'node');
    expect(lines.filter((l) => l.msg === FRAMING_WARNING)).toEqual([]);
    if (autoPicksUws) expect(line.reason).toMatch(/^@btc-vision\/uwebsockets\.js 20\.57\.0 native build loaded/);
    else expect(line.reason).toMatch(/^no uWebSockets\.js build that auto picks loads: .*; auto never picks the trufflesuite build/);
  });

  it('serve writes only JSON lines to stdout and names its transport', async () => {
    const s = await startServe({ INKPREP_BOOTSTRAP_KEY: 'ink_live_' + 'Transp0rt'.repeat(4) });
    try {
      const res = await fetch(`${s.base}/healthz`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      await s.stop();
    }
    const lines = jsonLines(s.stdout()); // throws on any non-JSON line (e.g. a uWS banner)
    expect(lines.filter((l) => l.msg === 'http transport')).toEqual([expect.objectContaining({ transport: resolved })]);
  });

  it('INKPREP_HTTP=node serves without ever loading the uWS native module', () => {
    const script = `
      const http = await import(${JSON.stringify(new URL('../../adapter-http/dist/index.js', import.meta.url).href)});
      const store = http.openStore({ dataDir: ':memory:' });
      const server = await http.startServer({ config: http.defaultConfig({ dataDir: ':memory:', threads: 1, http: 'node' }), store });
      const res = await fetch('http://127.0.0.1:' + server.port + '/healthz');
      const uws = process.report.getReport().sharedObjects.filter((o) => /uws_/.test(o));
      console.log(JSON.stringify({ status: res.status, transport: server.transport, uws }));
      await server.close(100);
      process.exit(0);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual({ status: 200, transport: 'node', uws: [] });
  });

  it('an unknown INKPREP_HTTP is a usage error naming the variable', async () => {
    const r = await serveFails({ INKPREP_HTTP: 'fast', PORT: '0' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/INKPREP_HTTP/);
  });

  it.skipIf(uwsLoads)('INKPREP_HTTP=uws where no uWS native build loads fails at start, saying why for each build', async () => {
    const r = await serveFails({ INKPREP_HTTP: 'uws', PORT: '0' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/INKPREP_HTTP=uws, but no uWebSockets\.js native build loads: .*has no native build for Node/);
  });
  if (uwsLoads) console.warn(`[transport] the "INKPREP_HTTP=uws without a native build" case runs only where no uWS build loads (here ${process.version} loads one)`);
});

describe('a busy port', () => {
  it('a second serve on the same port fails with a clear message and exit 1; the first keeps serving', async () => {
    const port = await freePort();
    const first = await startServe({ PORT: String(port), INKPREP_BOOTSTRAP_KEY: 'ink_live_' + 'FirstServe'.repeat(3) + 'Key1' });
    try {
      const second = await serveFails({ PORT: String(port) });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(JSON.parse(second.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'port_in_use', port, host: '127.0.0.1' });
      const res = await fetch(`${first.base}/api/v1/vectorize`, { headers: { 'x-api-key': 'ink_live_' + 'FirstServe'.repeat(3) + 'Key1' } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      await first.stop();
    }
  });

  it('a port held by another program is refused the same way', async () => {
    const other = net.createServer();
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as net.AddressInfo).port;
    try {
      const r = await serveFails({ PORT: String(port) });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/already in use/);
    } finally {
      await new Promise<void>((r) => other.close(() => r()));
    }
  });

  const canShare = resolved === 'uws' || nodeCanSharePort();
  it.skipIf(!canShare)('inkprep cluster shares its port on purpose: two processes answer on one port; each has its metrics on INKPREP_METRICS_PORT + N', async () => {
    const port = await freePort();
    const metricsPort = await freePortPair();
    const dataDir = (await import('node:fs')).mkdtempSync((await import('node:path')).join((await import('node:os')).tmpdir(), 'inkprep-cl-'));
    const child = spawn(process.execPath, [MAIN, 'cluster', '--processes', '2'], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', INKPREP_DATA_DIR: dataDir, INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', INKPREP_LOG_LEVEL: 'info', INKPREP_METRICS_PORT: String(metricsPort), INKPREP_BOOTSTRAP_KEY: 'ink_live_' + 'ClusterKey'.repeat(3) + 'Key2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    try {
      const end = Date.now() + 45_000;
      while ((out.match(/"msg":"listening"/g) ?? []).length < 2) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`cluster did not start: ${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(err).not.toMatch(/already in use|exited/);
      // The processes share stdout: each line says which process wrote it.
      const logPids = new Set(jsonLines(out).filter((l) => l.msg === 'listening').map((l) => l.pid));
      expect(logPids.size).toBe(2);
      for (const pid of logPids) expect(Number.isInteger(pid) && pid !== child.pid).toBe(true);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      // Per-process metrics: process 0 on the port, process 1 on the port + 1, each its own process.
      const ports = jsonLines(out).filter((l) => l.msg === 'metrics listening').map((l) => l.port).sort();
      expect(ports).toEqual([metricsPort, metricsPort + 1]);
      const pids = new Set<string>();
      for (const p of ports) {
        const m = await fetch(`http://127.0.0.1:${p as number}/metrics`);
        expect(m.status).toBe(200);
        const text = await m.text();
        expect(text).toMatch(/^# TYPE inkprep_http_requests_total counter$/m);
        pids.add(/^inkprep_process_info\{pid="(\d+)",transport="\w+"\} 1$/m.exec(text)?.[1] ?? '');
      }
      expect(pids.size).toBe(2);
      expect(pids.has('')).toBe(false);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      (await import('node:fs')).rmSync(dataDir, { recursive: true, force: true });
    }
  });
  if (!canShare) console.warn(`[transport] cluster port sharing skipped: node:http shares a port only from Node 22.12 (this is ${process.version})`);
});

