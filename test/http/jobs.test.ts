// Asynchronous jobs (issue #33) on one server (SQLite), through the real server: `Prefer: respond-async` on
// a metered POST answers 202 with the job (Location, Preference-Applied), the job finishes with what the
// synchronous call would have answered (the JSON body, or the X- headers and the output at output_url) and
// counts one use; validation errors stay synchronous; another account's job is 404; DELETE cancels (not
// counted), a finished job's DELETE is 409; an Idempotency-Key replays the same job; the per-account cap
// is 429 too_many_jobs; callback_url needs the Prefer header and reaches the final-state hook once; and a
// job left running by a server that stopped resumes when a server starts on the same data directory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { InkprepError } from '@inkprep/engine';
import { ROUTES, createApiKey, defaultConfig, jobsOf, json, openStore, parsePreferences, postImageRoute, readPreferences, startServer, createLogger, type JobBody, type RouteDef } from '@inkprep/http';
import { form, get, startTestServer, tinyPng, until, type TestServer } from './harness.js';

/** The gated route: each call waits for the gate (opened by the test), reporting progress meanwhile. */
let entered = 0;
let openGate: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
function closeGate(): void {
  gate = new Promise((r) => (openGate = r));
}
const GATED: RouteDef = postImageRoute({
  path: '/test/gated', endpoint: 'gated', validate: () => ({}),
  async handle({ signal }) {
    entered++;
    await new Promise<void>((resolve, reject) => {
      void gate.then(resolve);
      signal.addEventListener('abort', () => reject(new InkprepError('aborted', 'stopped')), { once: true });
    });
    return json({ ok: true });
  },
});
const FAILING: RouteDef = postImageRoute({
  path: '/test/failing', endpoint: 'failing', validate: () => ({}),
  handle: async () => {
    throw new InkprepError('not_separable', 'nothing to separate here', { reason: 'test' });
  },
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, GATED, FAILING], config: { threads: 2, jobsMaxActive: 3 } });
}, 120_000);
afterAll(async () => {
  openGate();
  await t?.close();
});

interface Answer { status: number; headers: Headers; json: Record<string, unknown>; bytes: Buffer }

async function submit(p: string, body: FormData, headers: Record<string, string> = {}, key = t.key): Promise<Answer> {
  const res = await fetch(t.url + p, { method: 'POST', body, headers: { 'x-api-key': key, Prefer: 'respond-async', ...headers } });
  const bytes = Buffer.from(await res.arrayBuffer());
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    // binary
  }
  return { status: res.status, headers: res.headers, json: parsed, bytes };
}

async function job(id: string, key = t.key): Promise<JobBody> {
  const r = await get(t, `/api/v1/jobs/${id}`, key);
  expect(r.status).toBe(200);
  return r.json as unknown as JobBody;
}

async function final(id: string): Promise<JobBody> {
  let last: JobBody | null = null;
  await until(async () => {
    last = await job(id);
    return ['succeeded', 'failed', 'canceled'].includes(last.status);
  }, 60_000, `job ${id} final`);
  return last!;
}

const used = async (endpoint: string): Promise<number> => (await t.store.usage(t.account.id, t.clock.now(), 0)).perEndpoint[endpoint] ?? 0;

describe('Prefer header (RFC 7240)', () => {
  it('reads several preferences, parameters, quoted values, and the first of a repeated one', () => {
    expect(parsePreferences('Return=minimal, respond-async; foo=bar, wait="10", wait=99')).toEqual(new Map([['return', 'minimal'], ['respond-async', ''], ['wait', '10']]));
    expect(readPreferences('wait=5,respond-async')).toEqual({ respondAsync: true, waitSeconds: 5, strict: false });
    expect(readPreferences('handling=lenient')).toEqual({ respondAsync: false, waitSeconds: null, strict: false });
    expect(readPreferences('respond-async, wait=soon')).toEqual({ respondAsync: true, waitSeconds: null, strict: false });
    expect(readPreferences('')).toEqual({ respondAsync: false, waitSeconds: null, strict: false });
    expect(readPreferences('respond-async, Handling=STRICT')).toEqual({ respondAsync: true, waitSeconds: null, strict: true });
    expect(readPreferences('handling=lenient, handling=strict')).toMatchObject({ strict: false }); // the first one counts
  });
});

describe('Prefer: respond-async', () => {
  it('vectorize: 202 with the job, then the result the synchronous call gives, counted once', async () => {
    const png = await tinyPng();
    const sync = await fetch(t.url + '/api/v1/vectorize', { method: 'POST', body: form(png, { colors: '2' }), headers: { 'x-api-key': t.key } });
    expect(sync.status).toBe(200);
    const syncSvg = Buffer.from(await sync.arrayBuffer());
    const before = await used('vectorize');
    const a = await submit('/api/v1/vectorize', form(png, { colors: '2' }));
    expect(a.status, a.bytes.toString()).toBe(202);
    expect(a.headers.get('preference-applied')).toBe('respond-async');
    const id = a.json.id as string;
    expect(id).toMatch(/^job_[0-9a-f]{24}$/);
    expect(a.headers.get('location')).toBe(`/api/v1/jobs/${id}`);
    expect(a.json).toMatchObject({ operation: '/api/v1/vectorize', finished_at: null });
    expect(['queued', 'running', 'succeeded']).toContain(a.json.status);
    expect(a.headers.get('x-ratelimit-remaining')).toBeNull(); // nothing counted yet
    const done = await final(id);
    expect(done.status).toBe('succeeded');
    // done is done: the last stage written while running (throttled, often 'decode') is not left standing
    expect(done.progress).toEqual({ fraction: 1, stage: null });
    expect(done.started_at).not.toBeNull();
    expect(done.result).toMatchObject({ status: 200, content_type: sync.headers.get('content-type'), headers: { 'X-Paths': sync.headers.get('x-paths'), 'X-Colors-Used': sync.headers.get('x-colors-used') } });
    expect(done.result!.output_url).toBe(`/api/v1/jobs/${id}/output`);
    const out = await get(t, done.result!.output_url!);
    expect(out.status).toBe(200);
    expect(out.headers.get('content-type')).toBe(sync.headers.get('content-type'));
    expect(Buffer.from(out.bytes).equals(syncSvg)).toBe(true);
    expect(await used('vectorize')).toBe(before + 1);
  }, 120_000);

  it('a JSON answer (scan) is the result body itself; wait= holds the 202 until it is final', async () => {
    const png = await tinyPng();
    const sync = await fetch(t.url + '/api/v1/scan', { method: 'POST', body: form(png, { print_width_inches: '10' }), headers: { 'x-api-key': t.key } });
    const a = await submit('/api/v1/scan', form(png, { print_width_inches: '10' }), { Prefer: 'respond-async, wait=30' });
    expect(a.status).toBe(202);
    expect(a.headers.get('preference-applied')).toBe('respond-async, wait=30');
    expect(a.json.status).toBe('succeeded');
    expect((a.json.result as Record<string, unknown>).body).toEqual(await sync.json());
    expect((a.json.result as Record<string, unknown>).output_url).toBeUndefined();
    // the 202 has the shape GET shows: the same keys, webhooks included (empty without a callback_url)
    const got = await get(t, `/api/v1/jobs/${a.json.id as string}`);
    expect(a.json.webhooks).toEqual([]);
    expect(Object.keys(a.json).sort()).toEqual(Object.keys(got.json!).sort());
  }, 60_000);

  it('admission answers stay synchronous: 400, 401, 413-style checks come before any job', async () => {
    const png = await tinyPng();
    const bad = await submit('/api/v1/vectorize', form(png, { colors: 'lots' }));
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'invalid_option', field: 'colors' });
    expect((await submit('/api/v1/scan', form(null))).json).toMatchObject({ code: 'missing_image' });
    expect((await submit('/api/v1/scan', form(png), {}, 'ink_live_nope')).status).toBe(401);
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'binary');
    expect((await submit('/api/v1/scan', form(gif, {}, 'a.gif'))).json).toMatchObject({ code: 'unsupported_format' });
  });

  it('a failing job keeps the synchronous error (status and body), not counted', async () => {
    const before = await used('failing');
    const a = await submit('/test/failing', form(await tinyPng()));
    expect(a.status).toBe(202);
    const done = await final(a.json.id as string);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ status: 422, body: { code: 'not_separable', reason: 'test' } });
    expect(await used('failing')).toBe(before);
  });

  it('another account sees no job: GET, DELETE and output are 404 job_not_found', async () => {
    const a = await submit('/api/v1/scan', form(await tinyPng()), { Prefer: 'respond-async, wait=30' });
    const other = await t.newAccount('other');
    for (const p of [`/api/v1/jobs/${a.json.id as string}`, `/api/v1/jobs/${a.json.id as string}/output`, '/api/v1/jobs/job_000000000000000000000000', '/api/v1/jobs/nope']) {
      const r = await get(t, p, other.key);
      expect(r.status, p).toBe(404);
      expect(r.json).toMatchObject({ code: 'job_not_found' });
    }
    const del = await fetch(`${t.url}/api/v1/jobs/${a.json.id as string}`, { method: 'DELETE', headers: { 'x-api-key': other.key } });
    expect(del.status).toBe(404);
    expect((await job(a.json.id as string)).status).toBe('succeeded');
  });

  it('DELETE cancels a running job (its work stops, its use is released); a finished job is 409', async () => {
    closeGate();
    const before = await used('gated');
    const n = entered;
    const a = await submit('/test/gated', form(await tinyPng()));
    const id = a.json.id as string;
    await until(() => entered > n, 30_000, 'the gated job to start');
    await until(async () => (await job(id)).status === 'running', 30_000, 'running');
    const del = await fetch(`${t.url}/api/v1/jobs/${id}`, { method: 'DELETE', headers: { 'x-api-key': t.key } });
    expect(del.status).toBe(200);
    expect(await del.json()).toMatchObject({ id, status: 'canceled' });
    openGate();
    const again = await fetch(`${t.url}/api/v1/jobs/${id}`, { method: 'DELETE', headers: { 'x-api-key': t.key } });
    expect(await again.json()).toMatchObject({ status: 'canceled' });
    expect((await job(id)).status).toBe('canceled');
    expect(await used('gated')).toBe(before);
    const doneJob = await submit('/api/v1/scan', form(await tinyPng()), { Prefer: 'respond-async, wait=30' });
    const fin = await fetch(`${t.url}/api/v1/jobs/${doneJob.json.id as string}`, { method: 'DELETE', headers: { 'x-api-key': t.key } });
    expect(fin.status).toBe(409);
    expect(await fin.json()).toMatchObject({ code: 'job_finished', status: 'succeeded' });
  }, 60_000);

  it('an Idempotency-Key replays the 202: the same job, no second one', async () => {
    const key = 'jobs-' + randomBytes(8).toString('hex');
    const png = await tinyPng();
    const a = await submit('/api/v1/scan', form(png), { 'Idempotency-Key': key });
    const b = await submit('/api/v1/scan', form(png), { 'Idempotency-Key': key });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json.id).toBe(a.json.id);
    expect(b.headers.get('location')).toBe(a.headers.get('location'));
    await final(a.json.id as string);
  });

  it('the per-account cap of open jobs answers 429 too_many_jobs', async () => {
    closeGate();
    const { key } = await t.newAccount('capped');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await submit('/test/gated', form(await tinyPng()), {}, key);
      expect(a.status).toBe(202);
      ids.push(a.json.id as string);
    }
    const over = await submit('/test/gated', form(await tinyPng()), {}, key);
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({ code: 'too_many_jobs', limit: 3 });
    expect(over.headers.get('retry-after')).toBe('5');
    openGate();
    for (const id of ids) {
      await until(async () => (await get(t, `/api/v1/jobs/${id}`, key)).json?.status === 'succeeded', 30_000, 'capped jobs done');
    }
  }, 60_000);

  it('callback_url: 400 without Prefer; with it, stored and handed once to the final-state hook with the job body', async () => {
    const png = await tinyPng();
    const res = await fetch(t.url + '/api/v1/scan', { method: 'POST', body: form(png, { callback_url: 'https://hooks.example.invalid/hook' }), headers: { 'x-api-key': t.key } });
    expect(res.status).toBe(400);
    const refused = (await res.json()) as { error: string };
    expect(refused).toMatchObject({ code: 'invalid_option', field: 'callback_url' });
    expect(refused.error).toMatch(/Prefer: respond-async/);
    expect(refused.error).not.toMatch(/received/); // the URL is not what is wrong
    const seen: { job: JobBody; url: string | null }[] = [];
    jobsOf(t.server.services).hooks.onFinal.push((j, url) => void seen.push({ job: j, url }));
    const a = await submit('/api/v1/scan', form(png, { callback_url: 'https://hooks.example.invalid/hook' }));
    expect(a.status).toBe(202);
    await final(a.json.id as string);
    await until(() => seen.some((s) => s.job.id === a.json.id), 10_000, 'the hook');
    const mine = seen.filter((s) => s.job.id === a.json.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ url: 'https://hooks.example.invalid/hook', job: { status: 'succeeded', operation: '/api/v1/scan' } });
  });
});

describe('jobs survive a restart (SQLite)', () => {
  it('a job stopped by a server closing resumes on the next start on the same data directory, counted once', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-jobs-'));
    const start = async () => {
      const store = openStore({ dataDir: dir });
      const server = await startServer({ config: defaultConfig({ dataDir: dir, threads: 1 }), store, routes: [...ROUTES, GATED], log: createLogger('warn', () => {}), jobPollMs: 100 });
      return { store, server, url: `http://127.0.0.1:${server.port}` };
    };
    try {
      closeGate();
      const a = await start();
      const account = await a.store.createAccount({ name: 'r', plan: 'business', now: Date.now() });
      const { secret } = await createApiKey(a.store, account.id, Date.now());
      const n = entered;
      const res = await fetch(a.url + '/test/gated', { method: 'POST', body: form(await tinyPng()), headers: { 'x-api-key': secret, Prefer: 'respond-async' } });
      expect(res.status).toBe(202);
      const id = ((await res.json()) as { id: string }).id;
      await until(() => entered > n, 30_000, 'the job to start');
      await a.server.close(200); // the job is still held at the gate: stopped and left in the store
      const b = await start();
      try {
        openGate();
        let body: JobBody | null = null;
        await until(async () => {
          const r = await fetch(`${b.url}/api/v1/jobs/${id}`, { headers: { 'x-api-key': secret } });
          body = (await r.json()) as JobBody;
          return body.status === 'succeeded';
        }, 60_000, 'the resumed job');
        expect(body!.result).toMatchObject({ body: { ok: true } });
        expect((await b.store.usage(account.id, Date.now(), 0)).perEndpoint.gated).toBe(1);
      } finally {
        await b.server.close(1000);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
