// The /api/v1 service: builds the services, routes each request to the route table, answers 404/405 for
// the rest, serves /metrics (on INKPREP_METRICS_PORT, or here with INKPREP_METRICS_TOKEN), and shuts down gracefully (stop accepting, finish in-flight work, close the
// engine pool and the store). The HTTP transport (uWebSockets.js or node:http, transport/select.ts) is
// chosen at start; routing and everything after it is the same code on both.
import { timingSafeEqual } from 'node:crypto';
import { createEngine, InkprepError, type Engine } from '@inkprep/engine';
import { engineOptions, type ServerConfig } from './config.js';
import { parseTrustedProxies } from './http/client-address.js';
import { Exchange, type ExchangeHooks } from './http/exchange.js';
import { selectTransport } from './transport/select.js';
import type { TransportKind, Wire } from './transport/types.js';
import { errorJson, json, type Reply } from './http/reply.js';
import { Router } from './http/router.js';
import { createLogger, type Logger } from './log.js';
import { instrumentEngine, instrumentLine, instrumentStore, Metrics, serveMetrics, type MetricsListener } from './metrics.js';
import { ConversionQueue, type VectorizeLine } from './queue/vectorize-queue.js';
import type { RouteDef } from './routes/define.js';
import { ROUTES } from './routes/index.js';
import { startBlankWarmup } from './routes/mockup.js';
import { sweepIdempotencyKeys } from './routes/idempotency.js';
import { jobBody, startJobRunner, type JobExecutor } from './jobs/index.js';
import { hostingFor } from './storage/index.js';
import type { AppServices } from './services.js';
import type { Store } from './store/types.js';
import { guardStore } from './store/guard.js';
import { UsageSettler } from './limits/settle.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import type { Resolver } from './webhooks/url-policy.js';

/** Usage events are kept this long (40 days: covers the rolling 24 h window and the calendar-month allowance). */
export const USAGE_RETENTION_MS = 40 * 24 * 3_600_000;

/** Probes and scrapes: their request lines are `debug`, hidden at the default level (INKPREP_LOG_LEVEL=debug shows them). */
/** How long shutdown waits for the store to take queued usage confirmations (limits/settle.ts). */
const SETTLE_FLUSH_MS = 10_000;

const QUIET_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export interface ServerOptions {
  config: ServerConfig;
  store: Store;
  /** An engine to use (not closed by the server unless `ownEngine`); default: a new pool of config.threads. */
  engine?: Engine;
  /** Milliseconds since the epoch; default Date.now (tests inject a fake clock). */
  clock?: () => number;
  log?: Logger;
  /** Route table; default ROUTES. */
  routes?: readonly RouteDef[];
  /** Close the store when the server closes (default true). */
  closeStore?: boolean;
  /** Share the port with other processes on purpose (`inkprep cluster`); otherwise a busy port is an error. */
  sharePort?: boolean;
  /** The vectorize line (owned and closed by the server); default an in-process line (queue/open-line.ts picks PostgreSQL's). */
  vectorizeLine?: VectorizeLine;
  /**
   * Observe every reply as it is sent (the test harness checks each against the OpenAPI document, whatever
   * client made the request). Must be cheap; a throw is logged and ignored. The transport adds
   * `X-Request-Id` (= requestId), Content-Type (= reply.contentType) and `X-Content-Type-Options: nosniff`.
   */
  onReply?: (seen: { method: string; path: string; requestId: string; reply: Reply }) => void;
  /** How often the job runner looks for orphaned jobs and cancellations (ms); default 1000. */
  jobPollMs?: number;
  /** How webhook deliveries resolve host names (tests map a name to a private address); default the system's. */
  webhookResolver?: Resolver;
}

export interface InkprepServer {
  /** The bound port (useful with port 0). */
  port: number;
  /** The HTTP transport serving the routes (config.http, resolved at start). */
  transport: TransportKind;
  services: AppServices;
  /** Port of the separate metrics listener (config.metricsPort), or null when there is none. */
  metricsPort: number | null;
  /** Requests being handled now. */
  inFlight(): number;
  /** Stop accepting, wait for in-flight requests (up to `graceMs`, default config.shutdownGraceMs), close pool and store. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Start the service.
 * @example
 * const server = await startServer({ config: configFromEnv(), store: openStore({ dataDir: './data' }) });
 */
export async function startServer(opts: ServerOptions): Promise<InkprepServer> {
  const { config } = opts;
  const log = opts.log ?? createLogger(config.logLevel);
  const ownEngine = !opts.engine;
  const rawEngine = opts.engine ?? createEngine({ ...engineOptions(config.engine), threads: config.threads, maxQueue: config.engineMaxQueue, maxPixels: config.maxPixels, idleTimeout: 600_000 });
  const line = opts.vectorizeLine ?? new ConversionQueue({ maxWaiting: config.vectorizeMaxWaiting, slots: config.vectorizeSlots });
  let settler: UsageSettler | null = null;
  const metrics = new Metrics({ engine: () => rawEngine.stats(), line: () => line, settle: () => settler?.stats() ?? null });
  // Every engine task, store call and vectorize turn of every route is timed through these wrappers. The
  // store's outage errors become 503 store_unavailable (guardStore), never 500.
  const engine = instrumentEngine(rawEngine, metrics);
  const store = instrumentStore(guardStore(opts.store), metrics);
  const clock = opts.clock ?? Date.now;
  settler = new UsageSettler(store, { log, clock });
  const closers: (() => Promise<void> | void)[] = [];
  let draining = false;
  // bodyOf: the outbox sweep sends a job whose enqueue was lost the body GET /api/v1/jobs/{id} gives.
  const webhooks = new WebhookDispatcher({
    store: store.webhooks, config: config.webhooks, log, bodyOf: (job) => jobBody(job, config.publicUrl), jobClock: clock,
    ...(opts.webhookResolver ? { resolve: opts.webhookResolver } : {}),
  });
  const services: AppServices = {
    config, store, engine, log, metrics, settler, webhooks,
    clock,
    vectorizeQueue: instrumentLine(line, metrics),
    draining: () => draining,
    onClose: (fn) => closers.push(fn),
  };

  const active = new Set<Exchange>();
  let idle: (() => void) | null = null;
  const hooks: ExchangeHooks = {
    log,
    logRequests: true,
    proxies: parseTrustedProxies((config.trustedProxy ?? []).join(',')),
    quietRoutes: QUIET_ROUTES,
    // Draining: every reply ends its connection (Connection: close), so no client reuses one the process is
    // about to drop with a request that would then never be read.
    closing: () => draining,
    ...(opts.onReply ? { onReply: (ex: Exchange, reply: Reply) => opts.onReply!({ method: ex.method, path: ex.path, requestId: ex.id, reply }) } : {}),
    onStart: (ex) => {
      active.add(ex);
      metrics.inFlight = active.size;
    },
    onEnd: (ex) => {
      active.delete(ex);
      metrics.inFlight = active.size;
      metrics.record(ex.route, ex.method, ex.status, ex.elapsedMs(), ex.bytesIn);
      if (active.size === 0 && idle) idle();
    },
  };

  const routes = opts.routes ?? ROUTES;
  const router = new Router(routes);
  // Jobs (Prefer: respond-async): every route that can run one, by path; this process's runner starts now
  // (on SQLite it resumes the jobs a previous run left unfinished).
  const executors = new Map<string, JobExecutor>();
  for (const r of routes) if (r.runJob) executors.set(r.path, r.runJob);
  const jobs = startJobRunner(services, executors, opts.jobPollMs);
  // Webhooks of jobs: a callback_url is checked at submission (SSRF policy, 400 invalid_callback_url), and a
  // job's final body is stored as a delivery, sent (signed, retried) by whichever process of the store is free.
  // This hook is the fast path; should it fail or never run (a crash), the dispatcher's outbox sweep stores it.
  jobs.hooks.checkCallback = (url) => webhooks.check(url);
  jobs.hooks.onFinal.push(async (body, callbackUrl) => {
    if (callbackUrl === null) return;
    const job = await store.jobs.get(body.id);
    if (job) await webhooks.enqueue({ accountId: job.accountId, jobId: job.id, callbackUrl, body });
  });
  // GET /metrics on the API port only with INKPREP_METRICS_TOKEN, for that bearer token (compared in constant time).
  const metricsToken = config.metricsToken ? Buffer.from('Bearer ' + config.metricsToken) : null;
  const metricsRoute = (ex: Exchange): void => {
    const given = Buffer.from(ex.authorizationHeader);
    if (!metricsToken || given.length !== metricsToken.length || !timingSafeEqual(given, metricsToken)) {
      ex.send(errorJson('unauthorized', 'GET /metrics on the API port needs Authorization: Bearer <INKPREP_METRICS_TOKEN>'));
      ex.settle();
      return;
    }
    metrics.render()
      .then((body) => ex.send({ status: 200, contentType: metrics.contentType, body }), (err: unknown) => ex.fail(err))
      .finally(() => ex.settle());
  };
  const handle = (wire: Wire): void => {
    // HEAD is GET without the body (RFC 9110 9.3.2): the GET route runs and the transport sends its status and
    // headers, Content-Length included, and no body. A metered GET counts the same when asked with HEAD.
    const asGet = wire.method === 'head' ? 'get' : wire.method;
    const m = router.match(asGet, wire.path);
    if (m && 'route' in m) {
      const r = m.route;
      const ex = new Exchange(wire, r.path, hooks);
      if (draining) {
        ex.fail(new InkprepError('shutting_down', 'The service is shutting down; retry on another instance'), true);
        ex.settle();
        return;
      }
      try {
        r.handle(ex, services);
      } catch (err) {
        ex.fail(err);
        ex.settle();
      }
      return;
    }
    if (!m && metricsToken && wire.path === '/metrics' && asGet === 'get') {
      metricsRoute(new Exchange(wire, '/metrics', hooks));
      return;
    }
    const ex = new Exchange(wire, 'unmatched', hooks);
    if (m) {
      const allowed = m.allowed.includes('GET') ? [...m.allowed, 'HEAD'] : m.allowed;
      ex.send(errorJson('method_not_allowed', `Method ${ex.method.toUpperCase()} is not allowed on ${ex.path}; use ${allowed.join(' or ')}`, { Allow: allowed.join(', ') }));
    }
    else ex.send(errorJson('not_found', `No route ${ex.path}`));
    ex.settle();
  };

  // Usage events older than the longest window that reads them (the calendar month) are pruned hourly, and
  // idempotency keys older than their 24 hours swept.
  const prune = (): void => {
    store.pruneUsage(services.clock() - USAGE_RETENTION_MS).then(
      (n) => n > 0 && log.info('pruned usage events', { deleted: n }),
      (err) => log.warn('pruning usage events failed', { err: String(err) }),
    );
    // Final jobs past the result retention, with their stored requests and outputs (jobs/runner.ts).
    const retention = config.store.resultRetentionMs;
    if (retention !== null) {
      const storage = hostingFor(config.dataDir, retention).storage;
      store.jobs.sweep(services.clock() - retention).then(
        async ({ removed, refs }) => {
          for (const ref of refs) await storage.delete(ref).catch(() => false);
          if (removed > 0) log.info('swept jobs', { deleted: removed });
        },
        (err) => log.warn('sweeping jobs failed', { err: String(err) }),
      );
    }
    // Idempotency keys past their 24 hours, with the stored bodies of large answers (routes/idempotency.ts).
    sweepIdempotencyKeys(store, hostingFor(config.dataDir, config.store.resultRetentionMs).storage, services.clock()).then(
      (n) => n > 0 && log.info('swept idempotency keys', { deleted: n }),
      (err) => log.warn('sweeping idempotency keys failed', { err: String(err) }),
    );
    // Webhook deliveries that ended, with their attempts, once the usage events of their time are gone too.
    webhooks.prune(Date.now() - USAGE_RETENTION_MS).then(
      (n) => n > 0 && log.info('pruned webhook deliveries', { deleted: n }),
      (err) => log.warn('pruning webhook deliveries failed', { err: String(err) }),
    );
  };
  prune();
  const pruneTimer = setInterval(prune, 3_600_000);
  pruneTimer.unref();

  const { transport, reason, warning } = await selectTransport(config.http);
  log.info('http transport', { transport: transport.kind, reason, node: process.version });
  if (warning) log.warn('http transport: malformed requests are closed without an answer', { transport: transport.kind, detail: warning });
  metrics.serving(transport.kind);
  let listener;
  try {
    listener = await transport.listen({ host: config.host, port: config.port, sharePort: opts.sharePort ?? false, keepAliveTimeoutS: config.keepAliveTimeoutS }, handle);
  } catch (err) {
    clearInterval(pruneTimer);
    await jobs.close(0);
    if (ownEngine) await engine.close();
    throw err;
  }
  let metricsListener: MetricsListener | null = null;
  if (config.metricsPort !== null) {
    try {
      metricsListener = await serveMetrics(metrics, { host: config.metricsHost ?? config.host, port: config.metricsPort });
    } catch (err) {
      listener.stopListening();
      listener.closeIdle();
      clearInterval(pruneTimer);
      await jobs.close(0);
      if (ownEngine) await engine.close();
      throw new Error(`cannot serve metrics on ${config.metricsHost ?? config.host}:${config.metricsPort} (INKPREP_METRICS_PORT): ${(err as Error).message}`, { cause: err });
    }
    log.info('metrics listening', { host: config.metricsHost ?? config.host, port: metricsListener.port });
  }
  const port = listener.port;
  // Deliveries left by this or another process (a restart, a process that died) are taken from now on.
  webhooks.start();
  log.info('listening', { host: config.host, port, transport: transport.kind, threads: config.threads, vectorize_max_waiting: config.vectorizeMaxWaiting });
  // Own garment blanks pre-rendered in the background (INKPREP_WARM_BLANKS; cancelled by close()).
  if (routes.some((r) => r.path === '/api/v1/mockup')) startBlankWarmup(services, services.config.warmBlanks);

  let closing: Promise<void> | null = null;
  return {
    port,
    transport: transport.kind,
    metricsPort: metricsListener?.port ?? null,
    services,
    inFlight: () => active.size,
    close(graceMs = config.shutdownGraceMs) {
      if (closing) return closing;
      closing = (async () => {
        const deadline = Date.now() + graceMs;
        draining = true;
        clearInterval(pruneTimer);
        listener.stopListening();
        log.info('shutting down', { in_flight: active.size });
        if (active.size > 0) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, graceMs);
            idle = () => {
              clearTimeout(t);
              resolve();
            };
          });
        }
        if (active.size > 0) log.warn('closing with requests still running', { in_flight: active.size });
        // Jobs running here get the same grace; the rest stay in the store for another process (or the next start).
        await jobs.close(Math.max(0, deadline - Date.now()));
        for (const ex of active) ex.closeConnection();
        listener.closeIdle();
        for (const fn of closers) await fn();
        // Attempts running finish and are recorded; pending deliveries wait in the store for the next process.
        await webhooks.close();
        await services.vectorizeQueue.close();
        if (ownEngine) await engine.close();
        // Confirmations queued during a store outage get one last chance before the store closes.
        await settler.flush(SETTLE_FLUSH_MS);
        if (opts.closeStore !== false) await store.close();
        await metricsListener?.close();
        log.info('stopped');
      })();
      return closing;
    },
  };
}
