// Prometheus metrics (prom-client): HTTP requests by route pattern and status, engine task time by op, the
// vectorize line (wait, length, rejections), reservations and limit rejections, store latency by operation,
// and prom-client's default process / event-loop / GC metrics. One registry per server (tests run several
// servers in one process); the process-wide defaults live in one shared registry rendered beside it.
// Served on INKPREP_METRICS_PORT (serveMetrics below) and, with INKPREP_METRICS_TOKEN, on the API port.
import http from 'node:http';
import type { Engine, OpName } from '@inkprep/engine';
// Internal: the op table names every method of the Engine facade, so each one is wrapped.
import { OPS } from '@inkprep/engine/internals';
import { ERROR_CODES, isCodedError, type HttpErrorCode } from './errors/registry.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from './metrics-hot.js';
import type { VectorizeLine } from './queue/vectorize-queue.js';
import type { Store } from './store/types.js';
import type { SettleStats } from './limits/settle.js';

/** Request durations: from a cached status read (~0.1 ms) to a queued vectorize (minutes). */
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const ENGINE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const QUEUE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Why a metered call was refused with 429: the key's daily limit, a fair-use cap, the monthly allowance, the full vectorize line. */
export type LimitKind = 'daily' | 'fair_use' | 'monthly' | 'queue';

let processRegistry: Registry | null = null;
/** prom-client's default metrics, registered once per process (they describe the process, not a server). */
function defaults(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Label value of an engine or store call that failed: the stable error code (a bounded set) or `error`. */
function outcomeOf(err: unknown): string {
  return isCodedError(err) ? err.code : 'error';
}

export interface MetricsSources {
  engine(): { threads: number; running: number; queued: number };
  line(): VectorizeLine;
  /** The usage settler's counters (limits/settle.ts); null or absent: none. */
  settle?(): SettleStats | null;
}

export class Metrics {
  readonly registry = new Registry();
  /** Body bytes read by the pipeline (also exported as a counter). */
  bytesIn = 0;
  /** Requests being handled now (set by the server). */
  inFlight = 0;
  private readonly requests: HotCounter;
  private readonly requestSeconds: HotHistogram;
  private readonly bodyBytes: Counter;
  private readonly engineSeconds: Histogram<'op' | 'outcome'>;
  private readonly queueWait: Histogram;
  private readonly reservations: Counter<'endpoint'>;
  private readonly reservationEnds: Counter<'outcome'>;
  private readonly rejections: Counter<'endpoint' | 'limit'>;
  private readonly storeSeconds: HotHistogram;
  private readonly processInfo: Gauge<'pid' | 'transport'>;
  /** Label children by `route method status` and by store `op outcome` (hot path: no label handling per call). */
  private readonly children = new Map<string, { count: { inc(): void }; seconds: { observe(v: number): void } }>();
  private readonly storeChildren = new Map<string, { observe(v: number): void }>();

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.requests = new HotCounter('inkprep_http_requests_total', 'HTTP requests finished, by route pattern (unmatched paths: "unmatched"), method and status', ['route', 'method', 'status'], this.registry);
    this.requestSeconds = new HotHistogram('inkprep_http_request_duration_seconds', 'Time from request arrival to the end of its work, by route pattern, method and status', ['route', 'method', 'status'], REQUEST_BUCKETS, this.registry);
    this.bodyBytes = new Counter({ name: 'inkprep_http_request_body_bytes_total', help: 'Request body bytes read by the pipeline (bytes drained after an early reply are not counted)', registers });
    const self = this;
    new Gauge({ name: 'inkprep_http_requests_in_flight', help: 'Requests being handled now', registers, collect(): void { this.set(self.inFlight); } });
    this.engineSeconds = new Histogram({ name: 'inkprep_engine_task_duration_seconds', help: 'Engine task time (pool wait + work) by op and outcome (ok or the error code)', labelNames: ['op', 'outcome'], buckets: ENGINE_BUCKETS, registers });
    const engine = { running: 0, queued: 0, threads: 0 };
    const readEngine = (): void => void Object.assign(engine, sources.engine());
    new Gauge({ name: 'inkprep_engine_tasks_running', help: 'Engine tasks running on a worker now', registers, collect(): void { readEngine(); this.set(engine.running); } });
    new Gauge({ name: 'inkprep_engine_tasks_queued', help: 'Engine tasks waiting for a worker now', registers, collect(): void { readEngine(); this.set(engine.queued); } });
    new Gauge({ name: 'inkprep_engine_threads', help: 'Engine worker threads (pool size)', registers, collect(): void { readEngine(); this.set(engine.threads); } });
    this.queueWait = new Histogram({ name: 'inkprep_vectorize_queue_wait_seconds', help: 'Time a vectorize request waited in line for a conversion slot', buckets: QUEUE_BUCKETS, registers });
    // The PostgreSQL line counts the whole deployment and answers asynchronously; a failed read leaves the last values.
    const line = { converting: 0, waiting: 0 };
    let reading: Promise<void> | null = null;
    // Both gauges are collected concurrently: one read of the line per scrape.
    const readLine = (): Promise<void> => (reading ??= (async () => {
      try {
        Object.assign(line, await sources.line().counts());
      } catch { /* the line is unreachable: keep the last counts */ }
    })().finally(() => (reading = null)));
    new Gauge({ name: 'inkprep_vectorize_converting', help: 'Vectorize conversions running now (slots in use)', registers, async collect(): Promise<void> { await readLine(); this.set(line.converting); } });
    new Gauge({ name: 'inkprep_vectorize_waiting', help: 'Vectorize requests waiting in line now', registers, async collect(): Promise<void> { await readLine(); this.set(line.waiting); } });
    new Gauge({ name: 'inkprep_vectorize_slots', help: 'Vectorize conversions allowed at once (INKPREP_VECTORIZE_SLOTS)', registers, collect(): void { this.set(sources.line().slots); } });
    new Gauge({ name: 'inkprep_vectorize_max_waiting', help: 'Vectorize requests allowed to wait (INKPREP_VECTORIZE_MAX_WAITING)', registers, collect(): void { this.set(sources.line().maxWaiting); } });
    this.reservations = new Counter({ name: 'inkprep_reservations_total', help: 'Metered uses reserved (admitted) by endpoint', labelNames: ['endpoint'], registers });
    this.reservationEnds = new Counter({ name: 'inkprep_reservation_outcomes_total', help: 'Reservations ended: kept (2xx, confirmed) or released (error, abort)', labelNames: ['outcome'], registers });
    this.rejections = new Counter({ name: 'inkprep_limit_rejections_total', help: 'Calls refused with 429, by endpoint and limit (daily, fair_use, monthly, queue)', labelNames: ['endpoint', 'limit'], registers });
    this.processInfo = new Gauge({ name: 'inkprep_process_info', help: 'Always 1: which process (pid) and HTTP transport these metrics come from (one target per process in a cluster)', labelNames: ['pid', 'transport'], registers });
    // Usage confirmations that waited for the store (an outage): read from the settler on each scrape.
    const settle = (): SettleStats | null => sources.settle?.() ?? null;
    const total = (name: string, help: string, read: (s: SettleStats) => number): void => {
      new Counter({ name, help, registers, collect(): void { const st = settle(); this.reset(); if (st) this.inc(read(st)); } });
    };
    new Gauge({ name: 'inkprep_usage_confirmations_queued', help: 'Usage confirmations waiting in memory for the store to come back', registers, collect(): void { this.set(settle()?.queued ?? 0); } });
    total('inkprep_usage_confirmations_queued_total', 'Usage confirmations queued because the store was away when their request succeeded', (st) => st.queuedTotal);
    total('inkprep_usage_confirmations_confirmed_later_total', 'Queued usage confirmations the store took later', (st) => st.confirmedLater);
    new Counter({
      name: 'inkprep_usage_confirmations_dropped_total', help: 'Usage confirmations given up (not counted): full (queue at its bound) or failed (refused for a reason other than an outage)',
      labelNames: ['reason'], registers,
      collect(): void {
        const st = settle();
        this.reset();
        this.labels('full').inc(st?.dropped.full ?? 0);
        this.labels('failed').inc(st?.dropped.failed ?? 0);
      },
    });
    total('inkprep_usage_pending_released_later_total', 'Pending uses of this process released after a store outage (a release or reservation answer lost)', (st) => st.releasedLater);
    this.storeSeconds = new HotHistogram('inkprep_store_operation_duration_seconds', 'Store call latency by operation and outcome (ok or error)', ['op', 'outcome'], STORE_BUCKETS, this.registry);
  }

  /** Name the serving process and its transport (once the transport is chosen). */
  serving(transport: string): void {
    this.processInfo.labels(String(process.pid), transport).set(1);
  }

  /** Count one finished request (route is the route pattern, never the raw path). */
  record(route: string, method: string, status: number, ms: number, bytesIn: number): void {
    const key = route + ' ' + method + ' ' + status;
    let c = this.children.get(key);
    if (!c) {
      const labels = [route, method.toUpperCase(), String(status)];
      c = { count: this.requests.child(labels), seconds: this.requestSeconds.child(labels) };
      this.children.set(key, c);
    }
    c.count.inc();
    c.seconds.observe(ms / 1000);
    if (bytesIn > 0) {
      this.bytesIn += bytesIn;
      this.bodyBytes.inc(bytesIn);
    }
  }

  engineTask(op: string, seconds: number, outcome: string): void {
    this.engineSeconds.labels(op, outcome).observe(seconds);
  }

  storeCall(op: string, seconds: number, outcome: 'ok' | 'error'): void {
    const key = op + ' ' + outcome;
    let c = this.storeChildren.get(key);
    if (!c) this.storeChildren.set(key, (c = this.storeSeconds.child([op, outcome])));
    c.observe(seconds);
  }

  queueWaited(seconds: number): void {
    this.queueWait.observe(seconds);
  }

  reserved(endpoint: string): void {
    this.reservations.labels(endpoint).inc();
  }

  reservationEnded(outcome: 'kept' | 'released'): void {
    this.reservationEnds.labels(outcome).inc();
  }

  limitRejected(endpoint: string, limit: LimitKind): void {
    this.rejections.labels(endpoint, limit).inc();
  }

  /** The content type of the text exposition. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Prometheus text exposition (0.0.4): this server's families, then the process defaults. */
  async render(): Promise<string> {
    const [own, proc] = await Promise.all([this.registry.metrics(), defaults().metrics()]);
    return own + proc;
  }
}

/** The engine with every task timed (by op and outcome); stats/close pass through. */
export function instrumentEngine(engine: Engine, metrics: Metrics): Engine {
  const run = async (op: OpName, ...rest: unknown[]): Promise<unknown> => {
    const t0 = performance.now();
    try {
      const out = await (engine.run as (...a: unknown[]) => Promise<unknown>)(op, ...rest);
      metrics.engineTask(op, (performance.now() - t0) / 1000, 'ok');
      return out;
    } catch (err) {
      metrics.engineTask(op, (performance.now() - t0) / 1000, outcomeOf(err));
      throw err;
    }
  };
  const wrapped: Record<string, unknown> = { run, stats: () => engine.stats(), close: () => engine.close() };
  for (const name of Object.keys(OPS) as OpName[]) wrapped[name] = (...a: unknown[]) => run(name, ...a);
  return wrapped as unknown as Engine;
}

/**
 * The store with every call timed (by method name: a bounded set) and reservations counted: admitted,
 * refused by which limit, kept or released. Methods run on the real store (its `this`).
 */
export function instrumentStore(store: Store, metrics: Metrics): Store {
  const cache = new Map<string, unknown>();
  const wrap = (op: string, fn: (...a: unknown[]) => unknown): ((...a: unknown[]) => unknown) => (...args: unknown[]) => {
    const t0 = performance.now();
    let out: unknown;
    try {
      out = fn.apply(store, args);
    } catch (err) {
      metrics.storeCall(op, (performance.now() - t0) / 1000, 'error');
      throw err;
    }
    if (!(out instanceof Promise)) {
      metrics.storeCall(op, (performance.now() - t0) / 1000, 'ok');
      return out;
    }
    const done = (outcome: 'ok' | 'error'): void => metrics.storeCall(op, (performance.now() - t0) / 1000, outcome);
    return out.then((v: unknown) => {
      done('ok');
      if (op === 'reserve') countReservation(metrics, args[0] as { endpoint: string }, v as ReserveOutcome);
      else if (op === 'confirm') metrics.reservationEnded('kept');
      else if (op === 'release') metrics.reservationEnded('released');
      return v;
    }, (err: unknown) => {
      done('error');
      throw err;
    });
  };
  return new Proxy(store, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function' || typeof prop !== 'string' || prop === 'close') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      let w = cache.get(prop);
      if (!w) cache.set(prop, (w = wrap(prop, v as (...a: unknown[]) => unknown)));
      return w;
    },
  });
}

type ReserveOutcome = { ok: true } | { ok: false; limit: 'daily' | 'fair_use' | 'monthly' };

function countReservation(metrics: Metrics, req: { endpoint: string }, r: ReserveOutcome): void {
  if (r.ok) metrics.reserved(req.endpoint);
  else metrics.limitRejected(req.endpoint, r.limit);
}

/** The vectorize line with waits timed and `queue_full` refusals counted. */
export function instrumentLine(line: VectorizeLine, metrics: Metrics): VectorizeLine {
  return {
    get slots() { return line.slots; },
    get maxWaiting() { return line.maxWaiting; },
    async acquire(signal, placed) {
      try {
        const turn = await line.acquire(signal, placed);
        metrics.queueWaited(turn.waitedMs / 1000);
        return turn;
      } catch (err) {
        if (isCodedError(err) && err.code === 'queue_full') metrics.limitRejected('vectorize', 'queue');
        throw err;
      }
    },
    snapshot: () => line.snapshot(),
    counts: () => line.counts(),
    close: () => line.close(),
  };
}

/** A listener serving GET /metrics only (INKPREP_METRICS_PORT), on node:http whatever the API transport. */
export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

export async function serveMetrics(metrics: Metrics, at: { host: string; port: number }): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(ERROR_CODES.not_found.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `No route ${path} on the metrics port; use GET /metrics`, code: 'not_found' satisfies HttpErrorCode }));
      return;
    }
    metrics.render().then(
      (body) => res.writeHead(200, { 'content-type': metrics.contentType }).end(req.method === 'HEAD' ? undefined : body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : at.port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
