// Webhook deliveries (issue #33) through the server's public pieces, on the SQLite store: a real server
// (startServer) whose webhook sender posts a job's completion to a local receiver. The receiver's host is
// allowed over plain http by the test configuration (INKPREP_WEBHOOK_ALLOW_HOSTS' config field), with short
// retry delays. Checked: each completion arrives once, signed, and the README's verification snippet verifies
// it with the secret the admin CLI shows (rotation: both secrets sign during the grace, then only the new);
// a receiver failing twice (500, then a redirect, which is not followed) gets it on the third attempt and the
// three attempts are recorded; a hung receiver times out and is retried; a big answer is not read whole; a
// delivery gives up at the window's end; 127.0.0.1 without the allow list is refused at submission; a name
// resolving to a private address is refused at delivery, an allowed name is connected to at the checked
// address; a pending delivery survives a restart, and so does a completion whose delivery was never stored
// (the process died first: the outbox sweep of the next one sends it, once). PostgreSQL (two processes, SKIP LOCKED): test/scale/webhooks-pg.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '@inkprep/engine';
import {
  createLogger, defaultConfig, deliveryJson, openSqliteStore, ServiceError, signatureHeader, startServer,
  type InkprepServer, type Store, type WebhookConfig,
} from '@inkprep/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../http/harness.js';
import { readmeVerifier, startReceiver, type Receiver } from './receiver.js';

const MAIN = fileURLToPath(new URL('../../adapter-http/dist/cli/main.js', import.meta.url));
const engine = createEngine({ threads: 0 });
const dirs: string[] = [];

interface Running {
  server: InkprepServer;
  store: Store;
  dir: string;
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

/** A server on a SQLite store in `dir` (a new one by default) with these webhook settings (short delays). */
async function serve(webhooks: Partial<WebhookConfig>, o: { dir?: string; resolve?: Record<string, string> } = {}): Promise<Running> {
  const dir = o.dir ?? mkdtempSync(path.join(os.tmpdir(), 'inkprep-webhooks-'));
  dirs.push(dir);
  const store = openSqliteStore(dir);
  const logs: Record<string, unknown>[] = [];
  const base = defaultConfig().webhooks;
  const server = await startServer({
    config: defaultConfig({ dataDir: dir, threads: 1, webhooks: { ...base, firstDelayMs: 100, maxDelayMs: 400, timeoutMs: 2000, pollMs: 200, ...webhooks } }),
    store, engine, log: createLogger('info', (l) => logs.push(JSON.parse(l) as Record<string, unknown>)),
    ...(o.resolve ? { webhookResolver: async (h: string) => (o.resolve![h] ? [{ address: o.resolve![h]!, family: 4 }] : []) } : {}),
  });
  return { server, store, dir, logs, close: () => server.close(1000) };
}

function cli(dir: string, args: string[]): Record<string, unknown> {
  const r = spawnSync(process.execPath, [MAIN, 'admin', ...args, '--json'], { env: { ...process.env, INKPREP_DATA_DIR: dir }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** The job's deliveries once every one of them is no longer pending. */
async function settled(store: Store, jobId: string) {
  await until(async () => {
    const ds = await store.webhooks.deliveriesOf(jobId);
    return ds.length > 0 && ds.every((d) => d.state !== 'pending');
  }, 30_000, `the deliveries of ${jobId} to settle`);
  return store.webhooks.deliveriesOf(jobId);
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver({ '/flaky': [500, 302], '/slow': ['hang'], '/big': ['big'], '/restart': [503], '/down': Array<number>(100).fill(500) });
});
afterAll(async () => {
  await receiver.close();
  await engine.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('webhook deliveries (SQLite)', () => {
  it('each completion arrives once, signed: the README snippet verifies it with the secret the admin CLI shows; rotation', async () => {
    const verify = await readmeVerifier();
    const s = await serve({ allowHosts: ['127.0.0.1'] });
    try {
      const account = await s.store.createAccount({ name: 'hooks', plan: 'business', now: Date.now() });
      const url = `http://127.0.0.1:${receiver.port}/once`;
      s.server.services.webhooks.check(url);
      const jobs = ['job_a1', 'job_a2', 'job_a3'];
      const ids = await Promise.all(jobs.map((jobId, i) => s.server.services.webhooks.enqueue({
        accountId: account.id, jobId, callbackUrl: url, body: { id: jobId, status: 'succeeded', result: { n: i, text: 'ünïcode ✓' } },
      })));
      for (const j of jobs) expect((await settled(s.store, j))[0]).toMatchObject({ state: 'delivered', attempts: 1 });
      const secret = String(cli(s.dir, ['webhook-secret', 'show', account.id]).secret);
      expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      for (const [i, id] of ids.entries()) {
        const got = receiver.byId(id);
        expect(got, `delivery ${id}`).toHaveLength(1);
        const r = got[0]!;
        expect(JSON.parse(r.body)).toEqual({ id: jobs[i], status: 'succeeded', result: { n: i, text: 'ünïcode ✓' } });
        expect(r.headers).toMatchObject({ 'content-type': 'application/json', 'inkprep-webhook-attempt': '1' });
        const sig = String(r.headers['inkprep-signature']);
        expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
        expect(verify(r.body, sig, secret)).toBe(true);
        expect(verify(Buffer.from(r.body), sig, secret)).toBe(true);
        expect(verify(r.body + ' ', sig, secret)).toBe(false);
        expect(verify(r.body, sig, 'whsec_' + '0'.repeat(64))).toBe(false);
        expect(verify(r.body, sig.replace(/v1=./, 'v1=Z'), secret)).toBe(false);
        // an old timestamp, properly signed, is refused by the tolerance (a replay)
        expect(verify(r.body, signatureHeader([secret], Date.now() - 3_600_000, r.body), secret)).toBe(false);
      }

      // rotate with a grace: both secrets sign; the receiver still holding the old one verifies
      const rotated = cli(s.dir, ['webhook-secret', 'rotate', account.id, '--grace-hours', '1']);
      expect(rotated.secret).not.toBe(secret);
      expect(rotated.previous_secret).toBe(secret);
      const during = await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_b', callbackUrl: url, body: { id: 'job_b' } });
      await settled(s.store, 'job_b');
      const b = receiver.byId(during)[0]!;
      expect(String(b.headers['inkprep-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(verify(b.body, String(b.headers['inkprep-signature']), secret)).toBe(true);
      expect(verify(b.body, String(b.headers['inkprep-signature']), String(rotated.secret))).toBe(true);
      // rotate with no grace: only the newest signs
      const now = cli(s.dir, ['webhook-secret', 'rotate', account.id, '--grace-hours', '0']);
      expect(now.previous_secret).toBeNull();
      const after = await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_c', callbackUrl: url, body: { id: 'job_c' } });
      await settled(s.store, 'job_c');
      const c = receiver.byId(after)[0]!;
      expect(verify(c.body, String(c.headers['inkprep-signature']), String(now.secret))).toBe(true);
      expect(verify(c.body, String(c.headers['inkprep-signature']), String(rotated.secret))).toBe(false);
      expect(verify(c.body, String(c.headers['inkprep-signature']), secret)).toBe(false);
      expect(cli(s.dir, ['webhook-secret', 'show', account.id]).secret).toBe(now.secret);
    } finally {
      await s.close();
    }
  });

  it('a receiver that fails twice (500, then a redirect, not followed) gets it on the third try; the job shows three attempts', async () => {
    const s = await serve({ allowHosts: ['127.0.0.1'] });
    try {
      const account = await s.store.createAccount({ name: 'hooks', plan: 'business', now: Date.now() });
      const id = await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_flaky', callbackUrl: `http://127.0.0.1:${receiver.port}/flaky`, body: { id: 'job_flaky' } });
      const [d] = await settled(s.store, 'job_flaky');
      expect(d).toMatchObject({ id, state: 'delivered', attempts: 3 });
      expect(d!.attemptLog.map((a) => [a.n, a.statusCode, a.error])).toEqual([[1, 500, null], [2, 302, null], [3, 200, null]]);
      // backoff: the second attempt waited at least half the first delay (100 ms), the third at least half of twice that
      expect(d!.attemptLog[1]!.at - d!.attemptLog[0]!.at).toBeGreaterThanOrEqual(50);
      expect(d!.attemptLog[2]!.at - d!.attemptLog[1]!.at).toBeGreaterThanOrEqual(100);
      const got = receiver.byId(id);
      expect(got.map((r) => [r.path, r.headers['inkprep-webhook-attempt']])).toEqual([['/flaky', '1'], ['/flaky', '2'], ['/flaky', '3']]);
      expect(receiver.received.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
      const view = deliveryJson(d!);
      expect(view).toMatchObject({ id, url: `http://127.0.0.1:${receiver.port}/flaky`, state: 'delivered', next_attempt_at: null });
      expect(view.attempts.map((a) => a.status_code)).toEqual([500, 302, 200]);
      expect(view.attempts[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(view.attempts.every((a) => a.duration_ms >= 0)).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('a hung receiver times out and is retried; a big answer is not read whole', async () => {
    const s = await serve({ allowHosts: ['127.0.0.1'], timeoutMs: 1000 });
    try {
      const account = await s.store.createAccount({ name: 'hooks', plan: 'business', now: Date.now() });
      await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_slow', callbackUrl: `http://127.0.0.1:${receiver.port}/slow`, body: {} });
      await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_big', callbackUrl: `http://127.0.0.1:${receiver.port}/big`, body: {} });
      const [slow] = await settled(s.store, 'job_slow');
      expect(slow!.attemptLog.map((a) => [a.statusCode, a.error])).toEqual([[null, 'timeout after 1000 ms'], [200, null]]);
      expect(slow!.attemptLog[0]!.durationMs).toBeGreaterThanOrEqual(1000);
      const [big] = await settled(s.store, 'job_big');
      expect(big).toMatchObject({ state: 'delivered', attempts: 1 });
    } finally {
      await s.close();
    }
  });

  it('http://127.0.0.1 without the allow list is 400 at submission; a name resolving to a private address is refused at delivery; a delivery gives up at the window\'s end', async () => {
    // receiver.test is allowed (and resolves, through the test's resolver, to the receiver): the connection
    // goes to the checked address, since the system resolver knows no such name.
    const s = await serve({ allowHosts: ['receiver.test'], retryForMs: 700 }, { resolve: { 'receiver.test': '127.0.0.1', 'hooks.example.test': '127.0.0.1' } });
    try {
      const account = await s.store.createAccount({ name: 'hooks', plan: 'business', now: Date.now() });
      for (const u of [`http://127.0.0.1:${receiver.port}/x`, `https://127.0.0.1:${receiver.port}/x`, `https://localhost:${receiver.port}/x`, 'https://[::ffff:7f00:1]/x', 'http://hooks.example.test/x']) {
        let err: unknown = null;
        try {
          s.server.services.webhooks.check(u);
        } catch (e) {
          err = e;
        }
        expect(err, u).toBeInstanceOf(ServiceError);
        expect(err).toMatchObject({ code: 'invalid_callback_url', details: { field: 'callback_url' } });
      }
      // a public-looking name passes submission, then resolves to 127.0.0.1: refused, not retried, nothing sent
      const sneaky = `https://hooks.example.test:${receiver.port}/sneaky`;
      s.server.services.webhooks.check(sneaky);
      await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_sneaky', callbackUrl: sneaky, body: {} });
      const [d] = await settled(s.store, 'job_sneaky');
      expect(d).toMatchObject({ state: 'failed', attempts: 1 });
      expect(d!.attemptLog[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/^address_not_allowed: .*127\.0\.0\.1/) });
      expect(receiver.received.filter((r) => r.path === '/sneaky')).toHaveLength(0);

      // the allowed name: delivered over plain http to the checked address; a receiver that keeps failing: given up
      const ok = `http://receiver.test:${receiver.port}/pinned`;
      s.server.services.webhooks.check(ok);
      const pinned = await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_pinned', callbackUrl: ok, body: {} });
      await s.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_down', callbackUrl: `http://receiver.test:${receiver.port}/down`, body: {} });
      expect((await settled(s.store, 'job_pinned'))[0]).toMatchObject({ state: 'delivered' });
      expect(receiver.byId(pinned)[0]!.headers.host).toBe(`receiver.test:${receiver.port}`);
      const [down] = await settled(s.store, 'job_down');
      expect(down!.state).toBe('failed');
      expect(down!.attempts).toBeGreaterThanOrEqual(2);
      expect(down!.attemptLog.every((a) => a.statusCode === 500)).toBe(true);
      // Retries are scheduled inside the window only (were they not, the delivery would never settle as failed
      // above). The last one, due inside it, starts when the dispatcher wakes, which on a loaded CI machine was
      // 7 ms past the end: its start is checked against the window with room for a late wake, not to the ms.
      expect(down!.attemptLog.at(-1)!.at).toBeLessThanOrEqual(down!.giveUpAt + 1_000);
      expect(deliveryJson(down!).next_attempt_at).toBeNull();
    } finally {
      await s.close();
    }
  });

  it('a process that died between finishing a job and storing its delivery: the next process on the store sends it, once', async () => {
    // The dead process's last write: the job final with a callback_url, no delivery (its hook never ran).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-webhooks-'));
    dirs.push(dir);
    const dead = openSqliteStore(dir);
    const now = Date.now();
    const account = await dead.createAccount({ name: 'hooks', plan: 'business', now });
    const url = `http://127.0.0.1:${receiver.port}/crashed`;
    await dead.jobs.create({ id: 'job_crashed', accountId: account.id, keyId: 'key_x', operation: '/api/v1/scan', createdAt: now, requestRef: null, callbackUrl: url, use: null }, 10);
    await dead.jobs.cancel('job_crashed', account.id, now + 1);
    await dead.close();
    const next = await serve({ allowHosts: ['127.0.0.1'] }, { dir });
    try {
      const [d, more] = await settled(next.store, 'job_crashed');
      expect(more).toBeUndefined();
      expect(d).toMatchObject({ url, state: 'delivered', attemptLog: [{ statusCode: 200 }] });
      // the late hook of the dead process, had it run: the same delivery, nothing new
      expect(await next.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_crashed', callbackUrl: url, body: {} })).toBe(d!.id);
      await new Promise((r) => setTimeout(r, 1000)); // a few more sweeps (every 200 ms): nothing stored or sent again
      expect(await next.store.webhooks.deliveriesOf('job_crashed')).toHaveLength(1);
      const got = receiver.received.filter((r) => r.path === '/crashed');
      expect(got).toHaveLength(1);
      expect(JSON.parse(got[0]!.body)).toMatchObject({ id: 'job_crashed', status: 'canceled' });
    } finally {
      await next.close();
    }
  });

  it('a pending delivery survives a restart: the next process on the store delivers it', async () => {
    const first = await serve({ allowHosts: ['127.0.0.1'], firstDelayMs: 1500, maxDelayMs: 1500 });
    const account = await first.store.createAccount({ name: 'hooks', plan: 'business', now: Date.now() });
    const id = await first.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_restart', callbackUrl: `http://127.0.0.1:${receiver.port}/restart`, body: { id: 'job_restart' } });
    await until(async () => (await first.store.webhooks.deliveriesOf('job_restart'))[0]?.attempts === 1, 30_000, 'the first attempt');
    await first.close();
    const second = await serve({ allowHosts: ['127.0.0.1'], firstDelayMs: 1500, maxDelayMs: 1500 }, { dir: first.dir });
    try {
      const [d] = await settled(second.store, 'job_restart');
      expect(d!.attemptLog.map((a) => a.statusCode)).toEqual([503, 200]);
      expect(second.logs.some((l) => l.msg === 'webhook delivered' && l.delivery === id)).toBe(true);
      expect(receiver.byId(id)).toHaveLength(2);
    } finally {
      await second.close();
    }
  });
});
