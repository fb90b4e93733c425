// `inkprep serve` as a child process (on the transport of the run) with the admin CLI beside it: the
// bootstrap key of INKPREP_BOOTSTRAP_KEY on an empty store, keys the CLI made work and revoking is live,
// and a graceful SIGTERM that finishes an in-flight request. The admin commands themselves: test/cli/admin.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tinyPng, until } from './harness.js';

const MAIN = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));

/**
 * The CLI as a child process without blocking this process's event loop. Used while a server is being
 * fetched from: spawnSync would freeze the loop for the whole CLI run (seconds under load), the server's
 * idle timer then closes the pooled keep-alive socket unseen, and the next fetch fails on it.
 */
function cliAsync(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string; json: () => any }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err, json: () => JSON.parse(out) }));
  });
}

describe('inkprep serve with the admin CLI', () => {
  it('serve: bootstrap key on an empty store, CLI-made keys work, revoke is live, SIGTERM finishes in-flight work', async () => {
    const serveDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-serve-'));
    const boot = 'ink_live_bootstrapbootstrapbootstrap1';
    // The metrics token lets the test see the upload in flight (GET /metrics) instead of sleeping.
    const metricsToken = 'metrics-token-admin-cli-test';
    const child = spawn(process.execPath, [MAIN, 'serve'], { env: { ...process.env, INKPREP_DATA_DIR: serveDir, PORT: '0', HOST: '127.0.0.1', INKPREP_BOOTSTRAP_KEY: boot, INKPREP_THREADS: '1', INKPREP_METRICS_TOKEN: metricsToken }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /"msg":"listening".*?"port":(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(base + '/api/v1/vectorize', { headers: { authorization: `Bearer ${boot}` } })).status).toBe(200);
      // the CLI works on the running server's store; changes are live
      const acc = (await cliAsync(['admin', 'account', 'list', '--json'], { INKPREP_DATA_DIR: serveDir })).json().accounts;
      expect(acc).toHaveLength(1);
      const k2 = (await cliAsync(['admin', 'key', 'create', acc[0].id], { INKPREP_DATA_DIR: serveDir })).out.trim();
      expect((await fetch(base + '/api/v1/upscale', { headers: { 'x-api-key': k2 } })).status).toBe(200);
      await cliAsync(['admin', 'key', 'revoke', k2], { INKPREP_DATA_DIR: serveDir });
      expect((await fetch(base + '/api/v1/upscale', { headers: { 'x-api-key': k2 } })).status).toBe(401);
      await cliAsync(['admin', 'account', 'set', acc[0].id, '--status', 'suspended'], { INKPREP_DATA_DIR: serveDir });
      expect((await fetch(base + '/api/v1/upscale', { headers: { 'x-api-key': boot } })).status).toBe(403);
      await cliAsync(['admin', 'account', 'set', acc[0].id, '--status', 'active'], { INKPREP_DATA_DIR: serveDir });
      // an upload in progress when SIGTERM arrives still completes; the process then exits 0
      const png = Buffer.from(await tinyPng());
      const head = Buffer.from('--Z\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n');
      const tail = Buffer.from('\r\n--Z--\r\n');
      const body = Buffer.concat([head, png, tail]);
      const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/scan', method: 'POST', headers: { 'x-api-key': boot, 'content-type': 'multipart/form-data; boundary=Z', 'content-length': body.length } });
      const response = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
      });
      // Requests in flight as the server counts them (the scrape itself is one of them).
      const inFlight = async (): Promise<number> => {
        const text = await (await fetch(base + '/metrics', { headers: { authorization: `Bearer ${metricsToken}` } })).text();
        return Number(/^inkprep_http_requests_in_flight (\d+)$/m.exec(text)?.[1] ?? NaN);
      };
      expect(await inFlight()).toBe(1);
      req.write(body.subarray(0, 50));
      await until(async () => (await inFlight()) >= 2, 60_000, 'the upload to be in flight');
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      await until(() => out.includes('"msg":"shutting down"'), 60_000, 'the server to start shutting down');
      expect(out).toMatch(/"msg":"shutting down".*"in_flight":1/);
      req.end(body.subarray(50));
      expect(await response).toBe(200);
      expect(await exited).toBe(0);
      expect(out).toContain('"msg":"shutting down"');
      expect(out).toContain('"msg":"stopped"');
      expect(out).not.toContain(boot);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(serveDir, { recursive: true, force: true });
    }
  });
});
