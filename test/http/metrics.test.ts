// Metrics and readiness over real HTTP, on both transports: the exposition on INKPREP_METRICS_PORT read
// with a real Prometheus text-format parser (HELP/TYPE for every family, histogram buckets/sum/count), the
// counters moved by requests made here (route pattern + status, engine op, vectorize wait, reservations,
// 429 limit rejections, store latency), process defaults; /metrics on the API port only with the token;
// GET /readyz: 200 with its checks, 503 `store_unavailable` when the store cannot answer (a closed SQLite
// handle; a PostgreSQL database whose connections are cut and refused), 503 `shutting_down` while draining.
import net from 'node:net';
import { getMetricsFromIterator, type PromHistogramData, type PromMetric, type PromMetrics } from 'prom2javascript';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '@inkprep/engine';
import { ROUTES, createLogger, defaultConfig, getRoute, json, openPostgresStore, parseTransportChoice, startServer, type RouteDef } from '@inkprep/http';
import { form, get, post, startTestServer, tinyPng, until, type TestServer } from './harness.js';
import { createTestDatabase, pgUnavailableReason } from '../scale/pg.js';
import { serveFails, startServe } from './serve-process.js';

const TOKEN = 'metrics-token-0123456789';

let gate: (() => void) | null = null;
let entered = 0;
const slowRoute: RouteDef = getRoute({
  path: '/test/hold', auth: false,
  handle: () => new Promise((resolve) => {
    entered++;
    gate = () => resolve(json({ held: true }));
  }),
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ routes: [...ROUTES, slowRoute], config: { metricsPort: 0, metricsToken: TOKEN } });
});
afterAll(async () => {
  await t?.close();
});

async function scrape(port: number, path = '/metrics', headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/**
 * The exposition through prom2javascript (throws on a line it cannot parse). It reads no NaN sample, which
 * the format allows and Prometheus reads (any case): prom-client writes `Nan` for the event-loop lag
 * statistics before the loop monitor's first sample. Only those may be NaN; they are read as -1 here.
 */
function parse(text: string): Promise<PromMetrics> {
  const lines = text.split('\n').map((l) => {
    if (!/ Nan$/i.test(l)) return l;
    expect(l, 'only event-loop lag statistics may be NaN').toMatch(/^nodejs_eventloop_lag_\w+ Nan$/i);
    return l.replace(/ Nan$/i, ' -1');
  });
  return getMetricsFromIterator(lines[Symbol.iterator]());
}

async function families(): Promise<Map<string, PromMetric>> {
  const { status, text } = await scrape(t.server.metricsPort!);
  expect(status).toBe(200);
  return new Map(Object.entries(await parse(text)));
}

type Sample = { labels: Record<string, string>; value?: number; count?: number; sum?: number; buckets?: Record<string, number> };

function sample(f: PromMetric | undefined, labels: Record<string, string>): Sample | undefined {
  return (f?.data as Sample[] | undefined)?.find((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));
}

/** A counter's or gauge's value, a histogram's count (0 when the series does not exist yet). */
function count(f: PromMetric | undefined, labels: Record<string, string> = {}): number {
  const s = sample(f, labels);
  return s === undefined ? 0 : Number(s.count ?? s.value);
}

describe('metrics exposition (INKPREP_METRICS_PORT)', () => {
  it('is Prometheus text that a real parser reads: HELP and TYPE for every family, histograms with buckets, sum and count', async () => {
    await get(t, '/api/v1/vectorize');
    const { status, type, text } = await scrape(t.server.metricsPort!);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const parsed = Object.entries(await parse(text)).map(([name, f]) => ({ name, ...f }));
    const names = new Set(parsed.map((f) => f.name));
    // Every family the text declares reaches the parser with its HELP and TYPE.
    const declared = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]!);
    const helped = new Set([...text.matchAll(/^# HELP (\S+) /gm)].map((m) => m[1]!));
    expect(declared.length).toBeGreaterThan(30);
    for (const name of declared) expect(helped.has(name), `HELP for ${name}`).toBe(true);
    for (const f of parsed) {
      expect(f.help, `help of ${f.name}`).not.toBe('');
      expect(['counter', 'gauge', 'histogram', 'summary']).toContain(f.type);
      if (f.name.startsWith('inkprep_')) expect(f.name).toMatch(/_(total|seconds|bytes)$|_(in_flight|running|queued|threads|converting|waiting|slots|max_waiting|info)$/);
      if (f.type !== 'histogram') continue;
      for (const m of f.data as PromHistogramData[]) {
        expect(m.buckets['+Inf'], `${f.name} +Inf bucket`).toBe(m.count);
        expect(m.sum).toBeGreaterThanOrEqual(0);
        const bounds = Object.keys(m.buckets).map((b) => (b === '+Inf' ? Infinity : Number(b))).sort((a, b) => a - b);
        expect(bounds.length).toBeGreaterThan(5);
        for (let i = 1; i < bounds.length; i++) {
          const at = (b: number): number => m.buckets[b === Infinity ? '+Inf' : String(b)]!;
          expect(at(bounds[i]!)).toBeGreaterThanOrEqual(at(bounds[i - 1]!));
        }
      }
    }
    // Process and event-loop defaults (prom-client).
    for (const n of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds']) {
      expect(names.has(n), n).toBe(true);
    }
    const byName = new Map(parsed.map((f) => [f.name, f]));
    expect(byName.get('inkprep_http_request_duration_seconds')?.type).toBe('histogram');
    expect(count(byName.get('inkprep_http_requests_total'), { route: '/api/v1/vectorize', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(Number(sample(byName.get('inkprep_vectorize_waiting'), {})?.value)).toBe(0);
    expect(Number(sample(byName.get('inkprep_vectorize_slots'), {})?.value)).toBe(1);
    expect(Number(sample(byName.get('inkprep_engine_threads'), {})?.value)).toBe(1);
    expect(sample(byName.get('inkprep_process_info'), { pid: String(process.pid), transport: t.server.transport })?.value).toBe(1);
  });

  it('counts a request by route pattern and status in the request counter and histogram; unknown paths share one label', async () => {
    const before = await families();
    const labels = { route: '/api/v1/scan', method: 'POST', status: '200' };
    const bad = { route: '/api/v1/scan', method: 'POST', status: '401' };
    expect((await post(t, '/api/v1/scan', form(await tinyPng()))).status).toBe(200);
    expect((await post(t, '/api/v1/scan', form(await tinyPng()), 'ink_live_wrong')).status).toBe(401);
    await get(t, '/no/such/path/' + Math.random().toString(36).slice(2), null);
    await until(() => t.server.inFlight() === 0, 5000, 'requests settled');
    const after = await families();
    for (const [name, l] of [['inkprep_http_requests_total', labels], ['inkprep_http_request_duration_seconds', labels], ['inkprep_http_requests_total', bad]] as const) {
      expect(count(after.get(name), l) - count(before.get(name), l), `${name} ${JSON.stringify(l)}`).toBe(1);
    }
    const h = sample(after.get('inkprep_http_request_duration_seconds'), labels)!;
    expect(Number(h.sum)).toBeGreaterThan(0);
    expect(Number(h.buckets!['+Inf'])).toBe(Number(h.count));
    expect(count(after.get('inkprep_http_requests_total'), { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // The raw path never becomes a label value.
    expect((after.get('inkprep_http_requests_total')!.data as Sample[]).every((m) => !m.labels.route!.startsWith('/no/'))).toBe(true);
    // Engine task time by op, and store latency by operation (the key lookup and the reservation).
    expect(count(after.get('inkprep_engine_task_duration_seconds'), { op: 'scan', outcome: 'ok' }) - count(before.get('inkprep_engine_task_duration_seconds'), { op: 'scan', outcome: 'ok' })).toBe(1);
    const store = after.get('inkprep_store_operation_duration_seconds');
    expect(store?.type).toBe('histogram');
    expect(count(store, { op: 'reserve', outcome: 'ok' }) - count(before.get('inkprep_store_operation_duration_seconds'), { op: 'reserve', outcome: 'ok' })).toBe(1);
    expect(count(store, { op: 'confirm', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(count(after.get('inkprep_reservations_total'), { endpoint: 'scan' }) - count(before.get('inkprep_reservations_total'), { endpoint: 'scan' })).toBe(1);
    expect(count(after.get('inkprep_reservation_outcomes_total'), { outcome: 'kept' }) - count(before.get('inkprep_reservation_outcomes_total'), { outcome: 'kept' })).toBe(1);
  });

  it('times the vectorize line wait after a vectorize', async () => {
    const before = await families();
    const r = await post(t, '/api/v1/vectorize', form(await tinyPng()));
    expect(r.status).toBe(200);
    await until(() => t.server.inFlight() === 0, 5000, 'requests settled');
    const after = await families();
    const wait = after.get('inkprep_vectorize_queue_wait_seconds');
    expect(wait?.type).toBe('histogram');
    expect(count(wait) - count(before.get('inkprep_vectorize_queue_wait_seconds'))).toBe(1);
    expect(count(after.get('inkprep_engine_task_duration_seconds'), { op: 'vectorize', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(count(after.get('inkprep_http_requests_total'), { route: '/api/v1/vectorize', method: 'POST', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  it('counts the reservation and the 429 limit rejection by endpoint and limit', async () => {
    const other = await t.newAccount('limited');
    await t.store.updateAccount(other.account.id, { dailyLimit: 1 });
    const before = await families();
    expect((await post(t, '/api/v1/scan', form(await tinyPng()), other.key)).status).toBe(200);
    const refused = await post(t, '/api/v1/scan', form(await tinyPng()), other.key);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: 'daily_limit_exceeded' });
    await until(() => t.server.inFlight() === 0, 5000, 'requests settled');
    const after = await families();
    const rej = { endpoint: 'scan', limit: 'daily' };
    expect(count(after.get('inkprep_limit_rejections_total'), rej) - count(before.get('inkprep_limit_rejections_total'), rej)).toBe(1);
    expect(count(after.get('inkprep_reservations_total'), { endpoint: 'scan' }) - count(before.get('inkprep_reservations_total'), { endpoint: 'scan' })).toBe(1);
    expect(count(after.get('inkprep_http_requests_total'), { route: '/api/v1/scan', method: 'POST', status: '429' }) - count(before.get('inkprep_http_requests_total'), { route: '/api/v1/scan', method: 'POST', status: '429' })).toBe(1);
  });

  it('the metrics port serves nothing else', async () => {
    const r = await scrape(t.server.metricsPort!, '/api/v1/vectorize');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text)).toMatchObject({ code: 'not_found' });
  });
});

describe('GET /metrics on the API port', () => {
  it('answers only the INKPREP_METRICS_TOKEN bearer (401 otherwise), with the same exposition', async () => {
    expect((await scrape(t.server.port)).status).toBe(401);
    const wrong = await scrape(t.server.port, '/metrics', { authorization: `Bearer ${TOKEN.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toMatchObject({ code: 'unauthorized' });
    // An API key is not the metrics token.
    expect((await scrape(t.server.port, '/metrics', { authorization: `Bearer ${t.key}` })).status).toBe(401);
    const ok = await scrape(t.server.port, '/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    const names = Object.keys(await parse(ok.text));
    expect(names).toContain('inkprep_http_requests_total');
    expect(names).toContain('nodejs_eventloop_lag_seconds');
  });

  it('without a token and without a metrics port there is no /metrics at all (404), and no listener', async () => {
    const bare = await startTestServer();
    try {
      expect(bare.server.metricsPort).toBeNull();
      const r = await scrape(bare.server.port);
      expect(r.status).toBe(404);
      expect((await get(bare, '/healthz', null)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

/** A raw HTTP/1.1 connection: bytes are written as given; complete responses are collected in order. */
function rawConnection(port: number): { write(text: string): void; responses(): { status: number; body: string }[]; end(): void } {
  const sock = net.connect(port, '127.0.0.1');
  let buf = '';
  sock.on('data', (c: Buffer) => (buf += c.toString('latin1')));
  sock.on('error', () => undefined);
  return {
    write: (text) => void sock.write(text),
    responses() {
      const out: { status: number; body: string }[] = [];
      let rest = buf;
      for (;;) {
        const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(rest);
        if (!m) break;
        const len = Number(/content-length: *(\d+)/i.exec(m[2]!)?.[1] ?? NaN);
        const start = m[0].length;
        if (!Number.isFinite(len) || rest.length < start + len) break;
        out.push({ status: Number(m[1]), body: rest.slice(start, start + len) });
        rest = rest.slice(start + len);
      }
      return out;
    },
    end: () => void sock.destroy(),
  };
}

const request = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

describe('GET /readyz', () => {
  it('200 with the store and engine checks, no key needed', async () => {
    const r = await get(t, '/readyz', null);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'ready', store: { ok: true }, engine: { ok: true, threads: 1, queued: 0, max_queue: 256 } });
    expect(typeof (r.json!.store as { ms: number }).ms).toBe('number');
  });

  it('503 store_unavailable when the store cannot answer (closed SQLite handle); /healthz stays 200', async () => {
    const s = await startTestServer();
    try {
      expect((await get(s, '/readyz', null)).status).toBe(200);
      await s.store.close();
      const r = await get(s, '/readyz', null);
      expect(r.status).toBe(503);
      expect(r.json).toMatchObject({ code: 'store_unavailable', store: { ok: false }, engine: { ok: true } });
      expect(typeof r.json!.error).toBe('string');
      expect((await get(s, '/healthz', null)).status).toBe(200);
      expect(s.logs.some((l) => l.msg === 'readiness: store check failed')).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('503 shutting_down when the engine pool it was given is closed (not accepting work)', async () => {
    const engine = createEngine({ threads: 1 });
    const s = await startTestServer({ engine });
    try {
      expect((await get(s, '/readyz', null)).status).toBe(200);
      await engine.close();
      const r = await get(s, '/readyz', null);
      expect(r.status).toBe(503);
      expect(r.json).toMatchObject({ code: 'shutting_down', store: { ok: true }, engine: { ok: false } });
    } finally {
      await s.close();
    }
  });

  it('503 shutting_down while the server drains, on a connection opened before', async () => {
    const s = await startTestServer({ routes: [...ROUTES, slowRoute] });
    const held = rawConnection(s.server.port);
    const probe = rawConnection(s.server.port);
    try {
      probe.write(request('/readyz'));
      await until(() => probe.responses().length === 1, 10_000, 'first readyz');
      expect(probe.responses()[0]!.status).toBe(200);
      const start = entered;
      gate = null;
      held.write(request('/test/hold'));
      await until(() => entered > start && gate !== null, 10_000, 'held request running');
      // The probe's next request has begun when shutdown starts (node:http closes connections that are idle
      // at that moment; a load balancer's probe on a fresh connection is refused, which is also not ready).
      probe.write('GET /readyz HTTP/1.1\r\n');
      await new Promise((r) => setTimeout(r, 100)); // the server (this process) reads those bytes first
      const closing = s.server.close(10_000);
      expect(s.server.services.draining()).toBe(true);
      probe.write('Host: 127.0.0.1\r\n\r\n');
      await until(() => probe.responses().length === 2, 10_000, 'readyz during drain');
      const ready = probe.responses()[1]!;
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body)).toMatchObject({ code: 'shutting_down' });
      gate!();
      gate = null;
      await until(() => held.responses().length === 1, 10_000, 'held reply');
      expect(held.responses()[0]!.status).toBe(200);
      await closing;
    } finally {
      held.end();
      probe.end();
      await s.close();
    }
  });
});

describe('GET /readyz on PostgreSQL', async () => {
  const reason = await pgUnavailableReason();
  if (reason) console.warn(`skipping PostgreSQL readiness: ${reason}`);
  it.skipIf(reason !== null)('503 store_unavailable while the database refuses connections (backends terminated), 200 again once it accepts them', async () => {
    const db = await createTestDatabase();
    const name = new URL(db.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: db.url.replace(`/${name}`, '/postgres') });
    await admin.connect();
    const store = await openPostgresStore({ connectionString: db.url, max: 4 });
    const engine = createEngine({ threads: 1 });
    const logs: Record<string, unknown>[] = [];
    const server = await startServer({
      config: defaultConfig({ dataDir: ':memory:', threads: 1, http: parseTransportChoice(process.env.INKPREP_HTTP) }),
      store, engine, log: createLogger('info', (l) => logs.push(JSON.parse(l) as Record<string, unknown>)),
    });
    const url = `http://127.0.0.1:${server.port}/readyz`;
    try {
      expect((await fetch(url)).status).toBe(200);
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
      const down = await fetch(url);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ code: 'store_unavailable', store: { ok: false }, engine: { ok: true } });
      // The driver's message (host names) stays in the log, out of the unauthenticated reply.
      expect(logs.some((l) => l.msg === 'readiness: store check failed' && typeof l.err === 'string')).toBe(true);
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await until(async () => (await fetch(url)).status === 200, 10_000, 'ready again');
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await server.close(5_000);
      await engine.close();
      await admin.end();
      await db.drop();
    }
  });
});

describe('inkprep serve with metrics settings', () => {
  it('INKPREP_METRICS_PORT + INKPREP_METRICS_HOST: the listener binds there and says so in a JSON log line', async () => {
    const p = await startServe({ INKPREP_METRICS_PORT: '0', INKPREP_METRICS_HOST: '127.0.0.1' });
    try {
      await until(() => p.stdout().includes('"msg":"metrics listening"'), 10_000, 'metrics log line');
      const line = JSON.parse(p.stdout().split('\n').find((l) => l.includes('"msg":"metrics listening"'))!) as { host: string; port: number };
      expect(line.host).toBe('127.0.0.1');
      const r = await scrape(line.port);
      expect(r.status).toBe(200);
      expect(Object.keys(await parse(r.text))).toContain('inkprep_process_info');
      expect((await fetch(`${p.base}/metrics`)).status).toBe(404);
    } finally {
      await p.stop();
    }
  });

  it('a busy INKPREP_METRICS_PORT is exit 1 naming the variable; a short INKPREP_METRICS_TOKEN is a usage error (exit 2)', async () => {
    const other = net.createServer();
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    try {
      const busy = await serveFails({ PORT: '0', INKPREP_METRICS_PORT: String((other.address() as net.AddressInfo).port) });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/INKPREP_METRICS_PORT/);
    } finally {
      await new Promise<void>((r) => other.close(() => r()));
    }
    const short = await serveFails({ PORT: '0', INKPREP_METRICS_TOKEN: 'short' });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/INKPREP_METRICS_TOKEN/);
  });
});
