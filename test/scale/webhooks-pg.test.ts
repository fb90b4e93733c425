// Webhook deliveries shared by the processes of a PostgreSQL deployment (issue #33): three servers on one
// database (in this process, each with its own store and pool), 20 completions enqueued across them, and a
// local receiver. Each completion arrives exactly once with one recorded attempt, whichever process sent it;
// a receiver that fails twice gets it on the third attempt (three attempts recorded). The claim itself, on
// both stores: a delivery a process took and never finished (it died) is taken by another after the lease,
// never before, and the first process's late record is refused; housekeeping deletes ended deliveries only; the
// outbox (final jobs with a callback_url and no delivery) and one delivery per job, on both stores. Skipped with the reason printed when no
// PostgreSQL answers.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '@inkprep/engine';
import { createLogger, defaultConfig, openPostgresStore, openSqliteStore, signPayload, startServer, type InkprepServer, type Store } from '@inkprep/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../http/harness.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { createTestDatabase, pgUnavailableReason } from './pg.js';

const reason = await pgUnavailableReason();
if (reason) console.log(`webhooks-pg: skipped: ${reason}`);

describe.skipIf(reason !== null)('webhooks on PostgreSQL, three processes', () => {
  const engine = createEngine({ threads: 0 });
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let receiver: Receiver;
  const servers: { server: InkprepServer; store: Store; logs: Record<string, unknown>[] }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await startReceiver({ '/flaky': [500, 500] });
    for (let i = 0; i < 3; i++) {
      const store = await openPostgresStore({ connectionString: db.url, max: 4, cacheKeys: false });
      const logs: Record<string, unknown>[] = [];
      const base = defaultConfig().webhooks;
      const server = await startServer({
        config: defaultConfig({ dataDir: ':memory:', threads: 1, webhooks: { ...base, allowHosts: ['127.0.0.1'], firstDelayMs: 100, maxDelayMs: 400, timeoutMs: 5000, pollMs: 100 } }),
        store, engine, log: createLogger('info', (l) => logs.push(JSON.parse(l) as Record<string, unknown>)),
      });
      servers.push({ server, store, logs });
    }
  });
  afterAll(async () => {
    for (const s of servers) await s.server.close(1000);
    await receiver?.close();
    await engine.close();
    await db?.drop();
  });

  it('20 completions enqueued across three processes each arrive once, signed; a receiver failing twice gets it on the third', async () => {
    const store = servers[0]!.store;
    const account = await store.createAccount({ name: 'hooks', plan: 'business', now: Date.now() });
    const url = `http://127.0.0.1:${receiver.port}/pg`;
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => servers[i % 3]!.server.services.webhooks.enqueue({ accountId: account.id, jobId: `job_pg_${i}`, callbackUrl: url, body: { id: `job_pg_${i}` } })));
    const flaky = await servers[1]!.server.services.webhooks.enqueue({ accountId: account.id, jobId: 'job_pg_flaky', callbackUrl: `http://127.0.0.1:${receiver.port}/flaky`, body: {} });
    const all = async () => (await Promise.all([...ids.map((_, i) => `job_pg_${i}`), 'job_pg_flaky'].map((j) => store.webhooks.deliveriesOf(j)))).flat();
    await until(async () => (await all()).every((d) => d.state === 'delivered'), 60_000, 'every delivery');
    const secret = (await store.webhooks.secrets(account.id, Date.now(), () => 'unused')).current;
    for (const [i, id] of ids.entries()) {
      const got = receiver.byId(id);
      expect(got, `job_pg_${i}`).toHaveLength(1);
      const [t, v1] = String(got[0]!.headers['inkprep-signature']).split(',').map((f) => f.split('=')[1]!);
      expect(v1).toBe(signPayload(secret, Number(t), got[0]!.body));
    }
    for (const d of await all()) expect(d.attemptLog, d.jobId).toHaveLength(d.jobId === 'job_pg_flaky' ? 3 : 1);
    expect((await store.webhooks.deliveriesOf('job_pg_flaky'))[0]!.attemptLog.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(receiver.byId(flaky)).toHaveLength(3);
    // the processes shared the work (each logs what it delivered); together exactly once each
    const delivered = servers.map((s) => s.logs.filter((l) => l.msg === 'webhook delivered').length);
    expect(delivered.reduce((a, b) => a + b, 0)).toBe(21);
  });
});

/** A delivery taken and never finished is taken by another claimant after the lease, not before; the late record is refused. */
function claimSuite(kind: string, open: () => Promise<{ a: Store; b: Store; cleanup: () => Promise<void> } | string>): void {
  describe(`webhook claims on ${kind}`, () => {
    let s: { a: Store; b: Store; cleanup: () => Promise<void> } | null = null;
    let skip: string | null = null;
    beforeAll(async () => {
      const r = await open();
      if (typeof r === 'string') skip = r;
      else s = r;
    });
    afterAll(async () => {
      await s?.cleanup();
    });
    it('lease: one claimant at a time; the first one\'s late record is refused', async (ctx) => {
      if (skip) {
        console.log(`webhook claims on ${kind}: skipped: ${skip}`);
        ctx.skip();
      }
      const { a, b } = s!;
      const now = Date.now();
      await a.webhooks.enqueue({ id: 'whd_lease', accountId: 'acc_x', jobId: 'job_lease', url: 'https://example.com/h', body: '{}', now, giveUpAt: now + 60_000 });
      const [taken] = await a.webhooks.claimDue(Date.now(), 10, 1500);
      expect(taken).toMatchObject({ id: 'whd_lease', attempts: 0 });
      expect(await b.webhooks.claimDue(Date.now(), 10, 1500)).toEqual([]);
      expect(await b.webhooks.nextDue()).toBeGreaterThan(now);
      await until(async () => (await b.webhooks.claimDue(Date.now(), 10, 1500)).length === 1 ? true : false, 30_000, 'the lease to run out');
      // b holds it now (token changed): a's record is refused, nothing is recorded
      expect(await a.webhooks.recordAttempt(taken!, { n: 1, at: now, statusCode: 200, error: null, durationMs: 5 }, { state: 'delivered' })).toBe(false);
      expect((await b.webhooks.deliveriesOf('job_lease'))[0]).toMatchObject({ state: 'pending', attempts: 0, attemptLog: [] });
      // housekeeping removes ended deliveries with their attempts, never a pending one
      expect(await b.webhooks.prune(Date.now() + 1)).toBe(0);
      const [held] = await b.webhooks.claimDue(Date.now() + 60_000, 10, 1500);
      expect(await b.webhooks.recordAttempt(held!, { n: 1, at: Date.now(), statusCode: 204, error: null, durationMs: 3 }, { state: 'delivered' })).toBe(true);
      expect((await a.webhooks.deliveriesOf('job_lease'))[0]).toMatchObject({ state: 'delivered', attempts: 1, attemptLog: [{ n: 1, statusCode: 204 }] });
      expect(await a.webhooks.prune(now)).toBe(0);
      expect(await a.webhooks.prune(Date.now() + 1)).toBe(1);
      expect(await b.webhooks.deliveriesOf('job_lease')).toEqual([]);
    });

    it('outbox: final jobs with a callback_url and no delivery are found (finished, failed, canceled); one delivery per job', async (ctx) => {
      if (skip) {
        console.log(`webhook outbox on ${kind}: skipped: ${skip}`);
        ctx.skip();
      }
      const { a, b } = s!;
      const now = Date.now();
      const account = await a.createAccount({ name: 'outbox', plan: 'business', now });
      const job = (id: string, callbackUrl: string | null) => ({ id, accountId: account.id, keyId: 'key_x', operation: '/api/v1/scan', createdAt: now, requestRef: null, callbackUrl, use: null });
      const end = (status: 'succeeded' | 'failed', at: number) => ({ status, finishedAt: at, result: status === 'succeeded' ? '{}' : null, error: status === 'failed' ? '{}' : null, outputRef: null, outputType: null });
      for (const [id, url] of [['job_ob_ok', 'https://example.com/a'], ['job_ob_fail', 'https://example.com/b'], ['job_ob_cancel', 'https://example.com/c'],
        ['job_ob_none', null], ['job_ob_open', 'https://example.com/d'], ['job_ob_old', 'https://example.com/e']] as const) {
        expect(await a.jobs.create(job(id, url), 100)).toBe(true);
      }
      expect(await a.jobs.finish('job_ob_ok', end('succeeded', now))).toBe(true);
      expect(await a.jobs.finish('job_ob_fail', end('failed', now + 1))).toBe(true);
      expect((await b.jobs.cancel('job_ob_cancel', account.id, now + 2))?.canceled).toBe(true);
      expect(await a.jobs.finish('job_ob_none', end('succeeded', now))).toBe(true);
      expect(await a.jobs.finish('job_ob_old', end('succeeded', now - 10_000))).toBe(true);
      // job_ob_open is still running; job_ob_none has no callback; job_ob_old finished before the window
      expect((await b.webhooks.undelivered(now - 5_000, 10)).map((j) => j.id)).toEqual(['job_ob_ok', 'job_ob_fail', 'job_ob_cancel']);
      expect((await b.webhooks.undelivered(now - 5_000, 1)).map((j) => j.id)).toEqual(['job_ob_ok']);
      const d = (id: string, jobId: string) => ({ id, accountId: account.id, jobId, url: 'https://example.com/a', body: '{}', now, giveUpAt: now + 60_000 });
      // two processes enqueueing the same job's completion (the hook and a sweep): one delivery, the second is a no-op
      const both = await Promise.all([a.webhooks.enqueue(d('whd_ob_1', 'job_ob_ok')), b.webhooks.enqueue(d('whd_ob_2', 'job_ob_ok'))]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await a.webhooks.enqueue(d('whd_ob_3', 'job_ob_ok'))).toBe(false);
      expect(await b.webhooks.deliveriesOf('job_ob_ok')).toHaveLength(1);
      expect(await a.webhooks.enqueue(d('whd_ob_4', 'job_ob_cancel'))).toBe(true);
      expect((await a.webhooks.undelivered(now - 5_000, 10)).map((j) => j.id)).toEqual(['job_ob_fail']);
    });
  });
}

claimSuite('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-wh-claim-'));
  const a = openSqliteStore(dir);
  const b = openSqliteStore(dir);
  return { a, b, cleanup: async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  } };
});

claimSuite('postgres', async () => {
  const why = await pgUnavailableReason();
  if (why) return why;
  const d = await createTestDatabase();
  const a = await openPostgresStore({ connectionString: d.url, max: 2, cacheKeys: false });
  const b = await openPostgresStore({ connectionString: d.url, max: 2, cacheKeys: false });
  return { a, b, cleanup: async () => {
    await a.close();
    await b.close();
    await d.drop();
  } };
});
