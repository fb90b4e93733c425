// The request log as an operator reads it (issue 17), on real server processes: `npm start --silent` writes nothing
// but JSON lines to stdout (no npm banner; the first key once, on stderr, never in the log); every line
// carries the pid; a request line has req, client, method, route, status, ms and the key id (never the
// secret); the client is the socket peer, or the right-most untrusted X-Forwarded-For hop when the peer
// is a trusted proxy (INKPREP_TRUSTED_PROXY); /healthz lines are debug (hidden at the default level);
// the drain-time 503 shutting_down is info, not error; a bug's 500 stays error. Runs once per transport.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, postImageRoute, type RouteDef } from '@inkprep/http';
import { form, get, post, startTestServer, tinyPng, until, type TestServer } from './harness.js';
import { startServe, type ServeProcess } from './serve-process.js';

type Line = Record<string, unknown>;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every stdout line parsed as JSON (throws on a line that is not). */
function jsonLines(text: string): Line[] {
  return text.split('\n').filter((l) => l !== '').map((l) => {
    try {
      return JSON.parse(l) as Line;
    } catch {
      throw new Error(`stdout line is not JSON: ${JSON.stringify(l)}`);
    }
  });
}

const requestLines = (s: ServeProcess): Line[] => jsonLines(s.stdout()).filter((l) => l.msg === 'request');

/** Wait for the request line of `req` (lines are flushed once per event-loop turn). */
async function lineOf(s: ServeProcess, req: string): Promise<Line> {
  await until(() => requestLines(s).some((l) => l.req === req), 10_000, `request line ${req}`);
  return requestLines(s).find((l) => l.req === req)!;
}

/** Raw HTTP/1.1 on an open socket: `interim` resolves on a 100 Continue, `final` with the final status and body. */
function readResponse(sock: net.Socket): { interim: Promise<void>; final: Promise<{ status: number; body: string }> } {
  let gotInterim: () => void = () => {};
  const interim = new Promise<void>((r) => (gotInterim = r));
  const final = new Promise<{ status: number; body: string }>((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = Number(buf.slice(9, 12));
        if (status === 100) {
          buf = buf.slice(end + 4);
          gotInterim();
          continue;
        }
        const len = Number(/content-length:\s*(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        sock.off('data', onData);
        resolve({ status, body: buf.slice(end + 4, end + 4 + len) });
        return;
      }
    };
    sock.on('data', onData);
    sock.once('error', reject);
  });
  return { interim, final };
}

describe('npm start --silent', () => {
  it('writes only JSON lines to stdout, each with the pid; the first key is printed once on stderr and never logged', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-npmstart-'));
    const npm = spawn('npm', ['start', '--silent'], { // --silent: npm prints no run-script banner on stdout
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', INKPREP_DATA_DIR: dataDir, INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', INKPREP_FETCH_MODEL: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => npm.once('exit', (code) => r(code)));
    let serverPid = 0;
    try {
      await until(() => /listening on http:\/\/[^\s]+:\d+\/api\/v1/.test(err) || npm.exitCode !== null, 120_000, 'npm start to listen');
      const port = Number(/listening on http:\/\/[^:/\s]+:(\d+)\/api\/v1/.exec(err)?.[1]);
      expect(port, err).toBeGreaterThan(0);
      const secret = /^\s+(ink_live_\w+)\s*$/m.exec(err)?.[1];
      expect(secret, err).toBeDefined();
      expect(err.split(secret!).length - 1).toBe(1); // printed once
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/vectorize`, { headers: { 'x-api-key': secret!, 'x-request-id': 'npm-start-1' } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      await until(() => out.includes('"req":"npm-start-1"'), 10_000, 'the request line');
      const lines = jsonLines(out);
      serverPid = lines[0]!.pid as number;
      expect(Number.isInteger(serverPid) && serverPid !== npm.pid).toBe(true); // the server's pid, not npm's
      for (const l of lines) expect(l).toMatchObject({ time: expect.any(String), level: expect.any(String), msg: expect.any(String), pid: serverPid });
      expect(lines.find((l) => l.msg === 'created local business account')).toMatchObject({ key: expect.stringMatching(/^key_/) });
      expect(out).not.toContain(secret!);
      expect(out).not.toMatch(/^>|inkprep@/m);
    } finally {
      npm.kill('SIGTERM'); // npm forwards it to the server, which drains and exits
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
      if (npm.exitCode === null) npm.kill('SIGKILL');
      if (serverPid) {
        try {
          process.kill(serverPid, 0);
          process.kill(serverPid, 'SIGKILL'); // only if npm did not pass the signal on
        } catch { /* gone */ }
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(jsonLines(out).map((l) => l.msg)).toContain('stopped');
  });
});

describe('request lines of `inkprep serve`', () => {
  const key = 'ink_live_' + 'LogLines0'.repeat(4);
  let s: ServeProcess;
  beforeAll(async () => {
    s = await startServe({ INKPREP_BOOTSTRAP_KEY: key, INKPREP_TRUSTED_PROXY: '127.0.0.1, ::1, 10.0.0.0/8' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('carry pid, req, client, method, route, status, ms and the key id; /healthz is not logged at info', async () => {
    for (let i = 0; i < 2; i++) expect((await fetch(`${s.base}/healthz`)).status).toBe(200);
    const res = await fetch(`${s.base}/api/v1/vectorize`, { headers: { 'x-api-key': key, 'x-request-id': 'logs-1' } });
    expect(res.status).toBe(200);
    const l = await lineOf(s, 'logs-1');
    const pid = jsonLines(s.stdout()).find((x) => x.msg === 'listening')!.pid;
    expect(pid).toBe(s.child.pid);
    expect(l).toMatchObject({
      level: 'info', pid, req: 'logs-1', client: '127.0.0.1', method: 'get', route: '/api/v1/vectorize', path: '/api/v1/vectorize',
      status: 200, ms: expect.any(Number), key: expect.stringMatching(/^key_[0-9a-f]{16}$/), account: expect.stringMatching(/^acc_/),
    });
    expect(requestLines(s).filter((x) => x.route === '/healthz')).toEqual([]);
    expect(s.stdout()).not.toContain(key);
    const unauth = await fetch(`${s.base}/api/v1/scan`, { method: 'POST', headers: { 'x-request-id': 'logs-401' }, body: form(await tinyPng()) });
    expect(unauth.status).toBe(401);
    expect(await lineOf(s, 'logs-401')).toMatchObject({ level: 'info', status: 401, code: 'unauthorized', route: '/api/v1/scan', method: 'post' });
  });

  it('behind a trusted proxy the client is the right-most untrusted X-Forwarded-For hop', async () => {
    const cases: [string, string, string][] = [
      ['xff-1', '198.51.100.23, 203.0.113.7', '203.0.113.7'], // the proxy appended the client; left of it is the client's claim
      ['xff-2', '203.0.113.7, 10.1.2.3', '203.0.113.7'], // a second trusted proxy hop is skipped
      ['xff-3', 'not-an-address, 10.1.2.3', '10.1.2.3'], // garbage ends the walk at the last good hop
    ];
    for (const [req, xff, client] of cases) {
      const r = await fetch(`${s.base}/api/v1/vectorize`, { headers: { 'x-api-key': key, 'x-request-id': req, 'x-forwarded-for': xff } });
      expect(r.status).toBe(200);
      expect((await lineOf(s, req)).client, `${xff}`).toBe(client);
    }
  });

  it('the drain-time 503 shutting_down is an info line, and nothing is logged at error', async () => {
    // An upload in flight keeps the server draining; a request that arrives meanwhile on an open connection
    // (its headers begun before SIGTERM, finished after) gets 503 shutting_down.
    const png = Buffer.from(await tinyPng());
    const body = Buffer.concat([
      Buffer.from('--Z\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'), png, Buffer.from('\r\n--Z--\r\n'),
    ]);
    const upload = net.connect(s.port, '127.0.0.1');
    const late = net.connect(s.port, '127.0.0.1');
    await Promise.all([upload, late].map((c) => new Promise((r) => c.once('connect', r))));
    const uploaded = readResponse(upload);
    // Expect: 100-continue makes both transports say when they have the request's headers (it is in flight).
    upload.write(`POST /api/v1/scan HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nx-request-id: drain-upload\r\nExpect: 100-continue\r\n`
      + `Content-Type: multipart/form-data; boundary=Z\r\nContent-Length: ${body.length}\r\n\r\n`);
    await uploaded.interim;
    upload.write(body.subarray(0, 50));
    const refused = readResponse(late);
    late.write('GET /api/v1/vectorize HTTP/1.1\r\nHost: x\r\nx-request-id: drain-late\r\n');
    s.child.kill('SIGTERM');
    await until(() => s.stdout().includes('"msg":"shutting down"'), 20_000, 'the drain to begin');
    late.write(`x-api-key: ${key}\r\n\r\n`);
    const r = await refused.final;
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'shutting_down' });
    upload.write(body.subarray(50));
    expect((await uploaded.final).status).toBe(200);
    upload.destroy();
    late.destroy();
    await new Promise<void>((res) => (s.child.exitCode !== null ? res() : s.child.once('exit', () => res())));
    expect(await lineOf(s, 'drain-late')).toMatchObject({ level: 'info', status: 503, code: 'shutting_down' });
    expect(jsonLines(s.stdout()).filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('INKPREP_LOG_LEVEL=debug', () => {
  it('shows the /healthz lines, at debug; without a trusted proxy X-Forwarded-For is ignored', async () => {
    const s = await startServe({ INKPREP_LOG_LEVEL: 'debug' });
    try {
      const res = await fetch(`${s.base}/healthz`, { headers: { 'x-request-id': 'probe-1', 'x-forwarded-for': '203.0.113.7' } });
      expect(res.status).toBe(200);
      expect(await lineOf(s, 'probe-1')).toMatchObject({ level: 'debug', route: '/healthz', status: 200, client: '127.0.0.1' });
    } finally {
      await s.stop();
    }
  });
});

describe('levels of request lines (in-process server)', () => {
  const failing: RouteDef[] = [
    postImageRoute({ path: '/test/bug', validate: () => ({}), handle: async () => { throw new TypeError('a bug'); } }),
  ];
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ routes: [...ROUTES, ...failing], config: { vectorizeMaxWaiting: 0 }, logLevel: 'debug' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a bug 500 is error; a 429 is info; /healthz is debug', async () => {
    const png = await tinyPng();
    expect((await post(t, '/test/bug', form(png))).status).toBe(500);
    expect((await get(t, '/healthz', null)).status).toBe(200);
    await t.store.updateAccount(t.account.id, { dailyLimit: 0 });
    expect((await post(t, '/api/v1/scan', form(png))).status).toBe(429);
    await t.store.updateAccount(t.account.id, { dailyLimit: 999_999 });
    await until(() => t.logs.filter((l) => l.msg === 'request').length >= 3, 10_000, 'three request lines');
    const byRoute = (route: string): Line | undefined => t.logs.find((l) => l.msg === 'request' && l.route === route);
    expect(byRoute('/test/bug')).toMatchObject({ level: 'error', status: 500, code: 'internal_error' });
    expect(byRoute('/healthz')).toMatchObject({ level: 'debug', status: 200 });
    expect(byRoute('/api/v1/scan')).toMatchObject({ level: 'info', status: 429, code: 'daily_limit_exceeded' });
  });
});
