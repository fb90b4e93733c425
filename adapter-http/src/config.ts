// Server configuration from environment variables, with one table of documented defaults. The only module
// of the adapter that reads process.env (test/repo/architecture.test.ts holds it): every other module is
// handed its part of the frozen config (the services object, function and constructor parameters), so a
// setting is parsed once, in one place, and a bad value stops the start instead of the first request.
// CONFIG_VARIABLES below declares every variable read here (name, type, default, description, example);
// docs/reference/configuration.md is generated from it (`npm run docs:options`) and
// test/repo/configuration-reference.test.ts holds the table, the reads and every mention in step.
import os from 'node:os';
import path from 'node:path';
import { invalidOption, type EngineOptions, type MaskOutput, type ModelOptions, type SegmentationModelOptions } from '@inkprep/engine';
// Internal: the engine's model-option parser (to name the variables in its errors) and its blank cache default.
import { DEFAULT_MEMORY_CACHE_MB, MAX_MEMORY_CACHE_MB, defaultGarmentCacheDir, resolveModelConfig } from '@inkprep/engine/internals';
import { parseTrustedProxies } from './http/client-address.js';
import { DEFAULT_KEEPALIVE_TIMEOUT_S } from './transport/keep-alive.js';
import { parseTransportChoice } from './transport/select.js';
import type { TransportChoice } from './transport/types.js';

/** Everything `inkprep serve` (and createServer) is configured with. */
export interface ServerConfig {
  /** TCP port; 0 picks a free one (tests). Env `PORT`, default 8080. */
  port: number;
  /** Interface to bind. Env `HOST`, default `0.0.0.0`. */
  host: string;
  /** Directory of the SQLite store (`inkprep.db`). Env `INKPREP_DATA_DIR`, default `./data`. */
  dataDir: string;
  /** When set and the store is empty, used as the first key of the local Business account. Env `INKPREP_BOOTSTRAP_KEY`. */
  bootstrapKey: string | null;
  /** Engine worker threads. Env `INKPREP_THREADS`, default max(2, cores). */
  threads: number;
  /** Engine tasks allowed to wait for a worker before 503 `engine_overloaded`. Env `INKPREP_ENGINE_MAX_QUEUE`, default 256. */
  engineMaxQueue: number;
  /** Vectorize waiting line length (beside the one conversion running). Env `INKPREP_VECTORIZE_MAX_WAITING`, default 8. */
  vectorizeMaxWaiting: number;
  /** Vectorize conversions at once (the whole deployment when the store is PostgreSQL). Env `INKPREP_VECTORIZE_SLOTS`, default 1. */
  vectorizeSlots: number;
  /** PostgreSQL line: a process that stops renewing frees its places after this long (ms). Env `INKPREP_VECTORIZE_LEASE_MS`, default 10,000. */
  vectorizeLeaseMs: number;
  /** Queued and running jobs (`Prefer: respond-async`) one account may have at once; the next is 429 `too_many_jobs`. Env `INKPREP_JOBS_MAX_ACTIVE`, default 50. */
  jobsMaxActive: number;
  /** Upload byte limit of endpoints without their own (scan, fix, remove-bg, upscale, mockup). Env `INKPREP_MAX_UPLOAD_MB`, default 50. */
  maxUploadBytes: number;
  /** Vectorize upload byte limit (spec: 25 MB). Env `INKPREP_VECTORIZE_MAX_MB`, default 25. */
  vectorizeMaxBytes: number;
  /** Largest image decoded by any endpoint, in pixels. Env `INKPREP_MAX_PIXELS`, default 100,000,000. */
  maxPixels: number;
  /** Milliseconds SIGTERM waits for in-flight requests before closing anyway. Env `INKPREP_SHUTDOWN_GRACE_MS`, default 130,000. */
  shutdownGraceMs: number;
  /** `debug` | `info` | `warn` | `error` | `silent`. Env `INKPREP_LOG_LEVEL`, default `info`. */
  logLevel: LogLevel;
  /**
   * Port of the separate metrics listener (GET /metrics, Prometheus text, no auth: keep it off the public
   * network), bound on `host`; 0 picks a free one (tests); null (the default) serves none. In `inkprep cluster`
   * process N listens on this port + N. Env `INKPREP_METRICS_PORT`, default unset.
   */
  metricsPort: number | null;
  /** Interface of the metrics listener; null = `host`. Env `INKPREP_METRICS_HOST` (e.g. a private interface or 127.0.0.1), default unset. */
  metricsHost: string | null;
  /**
   * When set, GET /metrics on the API port answers callers sending `Authorization: Bearer <token>` (others get
   * 401); when unset the API port has no /metrics (404). Env `INKPREP_METRICS_TOKEN` (16-256 chars, no spaces), default unset.
   */
  metricsToken: string | null;
  /** HTTP transport: `uws`, `node` or `auto` (uWebSockets.js where its @btc-vision build loads, else node:http). Env `INKPREP_HTTP`, default `auto`. */
  http: TransportChoice;
  /**
   * Seconds an idle keep-alive connection stays open after a response (node:http; replies advertise half, as
   * `Keep-Alive: timeout=N`). uWebSockets.js has its own fixed 10 s and refuses another value at start.
   * Env `INKPREP_KEEPALIVE_TIMEOUT_S` (2-3600), default 10.
   */
  keepAliveTimeoutS: number;
  /**
   * Reverse proxies (addresses and CIDRs) whose X-Forwarded-For names the client in the request log. Env
   * `INKPREP_TRUSTED_PROXY` (comma-separated, e.g. `127.0.0.1,10.0.0.0/8`), default none: the socket peer.
   */
  trustedProxy: readonly string[];
  /** What the engine is given: data, cache and model directories, the segmentation model (see EngineHostConfig). */
  engine: EngineHostConfig;
  /**
   * This process's number in `inkprep cluster` (which sets env `INKPREP_CLUSTER_SLOT` for each process it
   * starts); null outside a cluster. Process N serves metrics on INKPREP_METRICS_PORT + N; only process 0 fetches
   * the model; a cluster's processes share their port on purpose.
   */
  clusterSlot: number | null;
  /** The account store and result hosting: DATABASE_URL, pool size, reservation lease, result retention. */
  store: StoreConfig;
  /** The garment catalogue: the S&S connector (when configured) and the supplier deadline. */
  catalog: CatalogConfig;
  /** Webhooks of jobs (`callback_url`): which plain-http or private hosts are allowed, retries, timeout. */
  webhooks: WebhookConfig;
  /**
   * Origin put before the paths of hosted results and preview pictures (e.g. https://api.example.com, trailing
   * slashes dropped); null: answers carry paths. Env `INKPREP_PUBLIC_URL`, default unset.
   */
  publicUrl: string | null;
  /** Pre-render the own garment blanks in the background at start. Env `INKPREP_WARM_BLANKS` (1/0); default on, off under tests. */
  warmBlanks: boolean;
  /**
   * `inkprep cluster`'s process count as written (checked by cluster, which alone uses it, so a bad value
   * never stops `inkprep serve`). Env `INKPREP_PROCESSES`, default unset (the number of cores).
   */
  processes: string | null;
}

/** Where accounts, usage and hosted results live. */
export interface StoreConfig {
  /** postgres://... : PostgreSQL for the store, the vectorize line and hosted results; null: SQLite in the data dir. Env `DATABASE_URL`. */
  databaseUrl: string | null;
  /** PostgreSQL pool size. Env `INKPREP_PG_POOL_SIZE`, default 10 (anything not a positive number: 10). */
  pgPoolSize: number;
  /** Lease of a silent process's pending reservations, ms. Env `INKPREP_RESERVATION_LEASE_MS` (1,000-3,600,000), default 30,000. */
  reservationLeaseMs: number;
  /** Hosted results older than this are gone, ms; null keeps them forever. Env `INKPREP_RESULT_RETENTION_DAYS`, default unset. */
  resultRetentionMs: number | null;
}

/** The S&S Activewear connector's settings. */
export interface SsConfig {
  /** API base, default https://api.ssactivewear.com/v2 */
  baseUrl: string;
  /** Account number (Basic auth user). */
  account: string;
  /** API key (Basic auth password). */
  apiKey: string;
  /** Prefix of the relative image paths in answers, default https://www.ssactivewear.com/ */
  imageBase: string;
  /** Per-request timeout, ms. */
  timeoutMs: number;
  /** Cache lifetime of successful answers, ms. */
  ttlMs: number;
}

/** The garment catalogue's settings. */
export interface CatalogConfig {
  /** The S&S connector: env `INKPREP_SS_ACCOUNT` and `INKPREP_SS_API_KEY` (both, else null: off), `INKPREP_SS_BASE_URL`, `INKPREP_SS_IMAGE_BASE`, `INKPREP_CATALOG_TTL_S` (3600). */
  ss: SsConfig | null;
  /** Deadline of one supplier call, ms (a photo fetch gets 2 s more for the body). Env `INKPREP_SUPPLIER_TIMEOUT_MS`, default 4000. */
  supplierTimeoutMs: number;
}

/** How webhooks are sent (webhooks/). Tests shorten the delays directly; the environment sets the window and timeout. */
export interface WebhookConfig {
  /**
   * Hosts (names or addresses, lower case) a `callback_url` may name over plain http, and that may be (or
   * resolve to) loopback or private addresses; every other callback must be https to a public address.
   * Env `INKPREP_WEBHOOK_ALLOW_HOSTS` (comma-separated), default none.
   */
  allowHosts: readonly string[];
  /** No attempt starts later than this after the completion, ms. Env `INKPREP_WEBHOOK_RETRY_HOURS` (0.01-168), default 24. */
  retryForMs: number;
  /** Delay before the second attempt, ms; each next one doubles (with jitter), up to `maxDelayMs`. Default 30,000. */
  firstDelayMs: number;
  /** Longest delay between two attempts, ms. Default 3,600,000 (1 h). */
  maxDelayMs: number;
  /** One attempt's deadline (connect, send, answer), ms. Env `INKPREP_WEBHOOK_TIMEOUT_MS` (1,000-60,000), default 10,000. */
  timeoutMs: number;
  /** How often an idle process looks for due deliveries of other processes, ms. Default 5,000. */
  pollMs: number;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** What the engine is given (paths and models), for the service and every CLI verb that builds an engine. */
export interface EngineHostConfig {
  /** Env `INKPREP_DATA_DIR`, default `./data` (resolved against the working directory). */
  dataDir: string;
  /** Blank render cache. Env `INKPREP_GARMENT_CACHE_DIR`, default `<dataDir>/cache/garments`. */
  garmentCacheDir: string;
  /** Directory of fetched catalogue models (`inkprep models`). Env `INKPREP_MODEL_DIR`, default `<dataDir>/models`. */
  modelDir: string;
  /**
   * The engine's models: the catalogue directory (left out with `INKPREP_SEGMENTATION_MODEL=none`), a model
   * path (`INKPREP_SEGMENTATION_MODEL`), its input settings (`INKPREP_SEGMENTATION_SIZE` / `_MEAN` / `_STD` /
   * `_OUTPUT`) and inference threads (`INKPREP_SEGMENTATION_THREADS`, 1-16).
   */
  models: Readonly<ModelOptions>;
  /** Megabytes of engine memory caches per process (blanks, photos, designs). Env `INKPREP_MEMORY_CACHE_MB`, default 256. */
  memoryCacheMb: number;
  /**
   * Fetch the default model in the background at start: only when the operator opts in with env
   * `INKPREP_FETCH_MODEL=1` (or true/yes; the weights' terms are unclear, THIRD_PARTY_NOTICES.md), and only when
   * `INKPREP_SEGMENTATION_MODEL` names no model (a path or none). Default: off.
   */
  fetchModel: boolean;
}

/** Where a variable belongs: the sections of docs/reference/configuration.md, in this order. */
export type ConfigSection = 'server' | 'limits' | 'metrics' | 'store' | 'webhooks' | 'engine' | 'catalog' | 'cluster' | 'cli';

/** One environment variable as the reference page documents it. */
export interface ConfigVariable {
  name: string;
  section: ConfigSection;
  /** The values accepted, in words (`integer 0-65535`, `uws | node | auto`). */
  type: string;
  /** What an unset (or empty) variable means. */
  default: string;
  description: string;
  /** A value an operator might set. */
  example: string;
}

/**
 * Every environment variable the adapter reads (all of them read in this module, by the functions below).
 * A variable added to a reader and not here, or mentioned anywhere in adapter-http/src, docs/ or README.md
 * without being here, fails test/repo/configuration-reference.test.ts.
 */
export const CONFIG_VARIABLES: readonly ConfigVariable[] = Object.freeze([
  { name: 'PORT', section: 'server', type: 'integer 0-65535', default: '8080', description: 'TCP port of the API (0 picks a free one).', example: '8080' },
  { name: 'HOST', section: 'server', type: 'interface address', default: '0.0.0.0', description: 'Interface the API binds.', example: '127.0.0.1' },
  { name: 'INKPREP_DATA_DIR', section: 'server', type: 'directory', default: './data', description: 'The SQLite store `inkprep.db` (created on first start), local result storage, and the default home of the model and blank caches. Resolved against the working directory.', example: '/var/lib/inkprep' },
  { name: 'INKPREP_BOOTSTRAP_KEY', section: 'server', type: 'string, 16-256 characters, no spaces', default: 'unset', description: 'When the store is empty: the first key of the local account created at start.', example: 'change-me-0123456789abcdef' },
  { name: 'INKPREP_HTTP', section: 'server', type: '`uws` | `node` | `auto`', default: 'auto', description: 'HTTP transport: uWebSockets.js, node:http, or (auto) uWebSockets.js where its @btc-vision build loads (Node 20-25 with glibc 2.38 or newer), else node:http. `uws` also runs on the trufflesuite build (Node 20 on older glibc), which closes malformed requests without an answer (see Malformed requests in the operating guide).', example: 'node' },
  { name: 'INKPREP_KEEPALIVE_TIMEOUT_S', section: 'server', type: 'integer 2-3600 (s)', default: '10', description: 'How long an idle keep-alive connection stays open after a response (node:http adds a second). Replies advertise half of it (`Keep-Alive: timeout=N`) so clients that read the hint (Node\'s fetch, http.Agent) retire the connection well before the server closes it. Set it above the idle timeout of a proxy or load balancer that keeps connections to the service (they do not read the hint). node:http only: uWebSockets.js closes idle connections after its own fixed 10 s (8-12 s) and advertises `timeout=4`; another value stops its start.', example: '75' },
  { name: 'INKPREP_LOG_LEVEL', section: 'server', type: '`debug` | `info` | `warn` | `error` | `silent`', default: 'info', description: 'Least level of the JSON log lines written (`debug` adds the `/healthz`, `/readyz`, `/metrics` request lines).', example: 'warn' },
  { name: 'INKPREP_TRUSTED_PROXY', section: 'server', type: 'comma-separated addresses and CIDRs', default: 'unset (the socket peer is the client)', description: 'Reverse proxies whose `X-Forwarded-For` names the client in the request log. A malformed entry stops the start.', example: '127.0.0.1,10.0.0.0/8' },
  { name: 'INKPREP_PUBLIC_URL', section: 'server', type: 'origin URL', default: 'unset (answers carry paths)', description: 'Origin put before the paths of hosted results (`output_url`) and preview pictures; trailing slashes dropped.', example: 'https://api.example.com' },
  { name: 'INKPREP_SHUTDOWN_GRACE_MS', section: 'server', type: 'integer 0-3,600,000 (ms)', default: '130000', description: 'How long SIGTERM waits for in-flight requests before closing anyway.', example: '30000' },
  { name: 'INKPREP_THREADS', section: 'limits', type: 'integer 1-256', default: 'max(2, cores)', description: 'Engine worker threads (one may be busy with the vectorize conversion).', example: '4' },
  { name: 'INKPREP_ENGINE_MAX_QUEUE', section: 'limits', type: 'integer 1-100,000', default: '256', description: 'Engine tasks allowed to wait for a worker; the next one is 503 `engine_overloaded`.', example: '64' },
  { name: 'INKPREP_MAX_UPLOAD_MB', section: 'limits', type: 'number 0.001-2048 (MB = 2^20 bytes)', default: '50', description: 'Upload limit of the image endpoints without their own (scan, fix, remove-bg, upscale, mockup).', example: '20' },
  { name: 'INKPREP_VECTORIZE_MAX_MB', section: 'limits', type: 'number 0.001-2048 (MB = 2^20 bytes)', default: '25', description: 'Vectorize upload limit (the contract says 25 MB).', example: '25' },
  { name: 'INKPREP_MAX_PIXELS', section: 'limits', type: 'integer 1-1,000,000,000', default: '100000000', description: 'Largest image any endpoint decodes, in pixels.', example: '50000000' },
  { name: 'INKPREP_VECTORIZE_SLOTS', section: 'limits', type: 'integer 1-1000', default: '1', description: 'Vectorize conversions at once (the whole deployment with `DATABASE_URL`; the contract says one at a time). Set alike on every process.', example: '2' },
  { name: 'INKPREP_VECTORIZE_MAX_WAITING', section: 'limits', type: 'integer 0-10,000', default: '8', description: '`max_waiting`: vectorize requests allowed to wait beside the conversions running (the whole deployment with `DATABASE_URL`); the next is 429 `queue_full`. Set alike on every process.', example: '16' },
  { name: 'INKPREP_VECTORIZE_LEASE_MS', section: 'limits', type: 'integer 1000-600,000 (ms)', default: '10000', description: 'PostgreSQL line only: a process that stops renewing its lease loses its places after this long.', example: '10000' },
  { name: 'INKPREP_JOBS_MAX_ACTIVE', section: 'limits', type: 'integer 1-100,000', default: '50', description: 'Queued and running asynchronous jobs (`Prefer: respond-async`) one account may have at once (the whole deployment with `DATABASE_URL`); the next submission is 429 `too_many_jobs`.', example: '200' },
  { name: 'INKPREP_METRICS_PORT', section: 'metrics', type: 'integer 0-65535', default: 'unset (no metrics listener)', description: 'Serve Prometheus `GET /metrics` on this separate port (no auth: keep it off the public network; 0 = any free port). In `inkprep cluster` process N uses this port + N.', example: '9464' },
  { name: 'INKPREP_METRICS_HOST', section: 'metrics', type: 'interface address', default: 'unset (the `HOST` value)', description: 'Interface the metrics listener binds, e.g. a private address while the API listens on 0.0.0.0.', example: '127.0.0.1' },
  { name: 'INKPREP_METRICS_TOKEN', section: 'metrics', type: 'string, 16-256 characters, no spaces', default: 'unset (`/metrics` on the API port is 404)', description: 'Also serve `GET /metrics` on the API port, only to `Authorization: Bearer <token>` (others get 401).', example: 'scrape-token-0123456789' },
  { name: 'DATABASE_URL', section: 'store', type: '`postgres://...` URL', default: 'unset (SQLite in the data directory)', description: 'PostgreSQL for accounts, keys, usage, settings, the vectorize line and hosted results (the server and the admin CLI).', example: 'postgres://inkprep:secret@db.internal:5432/inkprep' },
  { name: 'INKPREP_PG_POOL_SIZE', section: 'store', type: 'positive number', default: '10 (also for anything not a positive number)', description: 'PostgreSQL connections per process.', example: '20' },
  { name: 'INKPREP_RESERVATION_LEASE_MS', section: 'store', type: 'integer 1000-3,600,000 (ms)', default: '30000', description: 'Pending usage reservations of a process silent this long are released (both stores).', example: '60000' },
  { name: 'INKPREP_RESULT_RETENTION_DAYS', section: 'store', type: 'positive number (days)', default: 'unset (kept forever)', description: 'Hosted results older than this are no longer served and may be swept.', example: '30' },
  { name: 'INKPREP_WEBHOOK_ALLOW_HOSTS', section: 'webhooks', type: 'comma-separated host names and addresses', default: 'unset (https to public addresses only)', description: 'Hosts a job\'s `callback_url` may name over plain http, and that may be or resolve to loopback, private, link-local or other non-public addresses (otherwise refused at submission with 400 `invalid_callback_url`, and at delivery). For receivers on your own network.', example: 'hooks.internal,127.0.0.1' },
  { name: 'INKPREP_WEBHOOK_RETRY_HOURS', section: 'webhooks', type: 'number 0.01-168 (hours)', default: '24', description: 'A delivery not answered with a 2xx is retried with exponential backoff (30 s doubling to at most 1 h, with jitter) until this long after the job ended, then given up.', example: '72' },
  { name: 'INKPREP_WEBHOOK_TIMEOUT_MS', section: 'webhooks', type: 'integer 1000-60,000 (ms)', default: '10000', description: 'Deadline of one delivery attempt: connect, send, and the receiver\'s answer.', example: '5000' },
  { name: 'INKPREP_GARMENT_CACHE_DIR', section: 'engine', type: 'directory', default: '<data dir>/cache/garments', description: 'Rendered garment blanks of the mockup (computed once, kept here).', example: '/var/cache/inkprep/garments' },
  { name: 'INKPREP_MEMORY_CACHE_MB', section: 'engine', type: 'integer 0-1,048,576 (MB)', default: '256', description: 'Memory the engine keeps between requests, per process (rendered garment blanks, prepared garment photos, resampled mockup designs), split evenly between the engine threads; least recently used out first. 0: mockups reload their blank from the disk cache every time. See docs/guides/operating.md#memory.', example: '128' },
  { name: 'INKPREP_WARM_BLANKS', section: 'engine', type: 'boolean (`0`, `false`, `no`, `off` are off)', default: 'on; off under tests (`NODE_ENV=test` or `VITEST` set)', description: 'Pre-render the own garment blanks in the background at start.', example: '0' },
  { name: 'INKPREP_MODEL_DIR', section: 'engine', type: 'directory', default: '<data dir>/models', description: 'Catalogue segmentation models of remove-bg (`inkprep models fetch` writes here).', example: '/var/lib/inkprep/models' },
  { name: 'INKPREP_FETCH_MODEL', section: 'engine', type: 'boolean (`1`, `true`, `yes` are on)', default: 'off', description: 'Fetch the default segmentation model in the background at start, when `INKPREP_SEGMENTATION_MODEL` names none. Opt-in: the weights\' terms are unclear (docs/licensing.md).', example: '1' },
  { name: 'INKPREP_SEGMENTATION_MODEL', section: 'engine', type: 'path of an `.onnx` file, or `none`', default: 'unset (the cached default model, when fetched)', description: 'The segmentation model of remove-bg; `none` = no model backend.', example: '/models/u2net.onnx' },
  { name: 'INKPREP_SEGMENTATION_SIZE', section: 'engine', type: '`N` or `WxH`', default: '1024', description: 'Model input size.', example: '320' },
  { name: 'INKPREP_SEGMENTATION_MEAN', section: 'engine', type: 'three comma-separated numbers', default: '0.5,0.5,0.5', description: 'Per-channel mean subtracted from RGB scaled to 0-1.', example: '0.485,0.456,0.406' },
  { name: 'INKPREP_SEGMENTATION_STD', section: 'engine', type: 'three comma-separated numbers', default: '1,1,1', description: 'Per-channel divisor.', example: '0.229,0.224,0.225' },
  { name: 'INKPREP_SEGMENTATION_OUTPUT', section: 'engine', type: '`minmax` | `probability` | `logits`', default: 'minmax', description: 'How the model output maps to a mask: min-max scaled (as rembg), clamped probability, or sigmoid of logits.', example: 'probability' },
  { name: 'INKPREP_SEGMENTATION_THREADS', section: 'engine', type: 'integer 1-16', default: '2 (1 on a single core)', description: 'Inference threads of the segmentation session.', example: '1' },
  { name: 'INKPREP_SS_ACCOUNT', section: 'catalog', type: 'string', default: 'unset (S&S connector off)', description: 'S&S Activewear account number (HTTP Basic user). The connector is on when this and `INKPREP_SS_API_KEY` are both set.', example: '123456' },
  { name: 'INKPREP_SS_API_KEY', section: 'catalog', type: 'string', default: 'unset (S&S connector off)', description: 'S&S Activewear API key (HTTP Basic password).', example: 'a1b2c3d4-e5f6-...' },
  { name: 'INKPREP_SS_BASE_URL', section: 'catalog', type: 'URL', default: 'https://api.ssactivewear.com/v2', description: 'S&S API base (trailing slashes dropped).', example: 'https://api.ssactivewear.com/v2' },
  { name: 'INKPREP_SS_IMAGE_BASE', section: 'catalog', type: 'URL', default: 'https://www.ssactivewear.com/', description: 'Prefix of the relative image paths in S&S answers.', example: 'https://www.ssactivewear.com/' },
  { name: 'INKPREP_SUPPLIER_TIMEOUT_MS', section: 'catalog', type: 'positive number (ms)', default: '4000', description: 'Deadline of one supplier call (a photo fetch gets 2 s more for the body).', example: '8000' },
  { name: 'INKPREP_CATALOG_TTL_S', section: 'catalog', type: 'positive number (s)', default: '3600', description: 'Cache lifetime of successful supplier answers.', example: '600' },
  { name: 'INKPREP_PROCESSES', section: 'cluster', type: 'positive integer', default: 'unset (the number of cores)', description: 'Processes `inkprep cluster` starts (checked by cluster alone, so a bad value never stops `inkprep serve`).', example: '4' },
  { name: 'INKPREP_CLUSTER_SLOT', section: 'cluster', type: 'integer', default: 'unset (not in a cluster)', description: 'Set by `inkprep cluster` for each process it starts: process N serves metrics on `INKPREP_METRICS_PORT` + N, only process 0 fetches the model, and the processes share their port on purpose. Not set by hand.', example: '0' },
  { name: 'INKPREP_PROGRESS_SECONDS', section: 'cli', type: 'number 0-3600 (fractions allowed)', default: '10', description: 'Seconds between two plain progress lines of a file verb when stderr is not a terminal (0: at every progress event); `--progress` adds one per stage, `--quiet` none.', example: '30' },
  { name: 'INKPREP_DEBUG', section: 'cli', type: 'any non-empty value', default: 'unset', description: 'The CLI adds the stack trace to an `internal_error` line.', example: '1' },
]);

const MB = 1024 * 1024;

/** Defaults used when a variable is unset. */
export const CONFIG_DEFAULTS: Readonly<Omit<ServerConfig, 'threads' | 'dataDir' | 'engine' | 'clusterSlot' | 'store' | 'catalog' | 'webhooks' | 'warmBlanks' | 'processes'>> = Object.freeze({
  port: 8080,
  host: '0.0.0.0',
  bootstrapKey: null,
  engineMaxQueue: 256,
  vectorizeMaxWaiting: 8,
  vectorizeSlots: 1,
  vectorizeLeaseMs: 10_000,
  jobsMaxActive: 50,
  maxUploadBytes: 50 * MB,
  vectorizeMaxBytes: 25 * MB,
  maxPixels: 100_000_000,
  shutdownGraceMs: 130_000,
  logLevel: 'info',
  metricsPort: null,
  metricsHost: null,
  metricsToken: null,
  http: 'auto',
  keepAliveTimeoutS: DEFAULT_KEEPALIVE_TIMEOUT_S,
  trustedProxy: [],
  publicUrl: null,
});

/** Default lease of a silent instance's pending reservations (INKPREP_RESERVATION_LEASE_MS). */
export const DEFAULT_RESERVATION_LEASE_MS = 30_000;

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`Expected an integer from ${min} to ${max} for ${name} but received ${JSON.stringify(raw)}`);
  return n;
}

function num(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`Expected a number from ${min} to ${max} for ${name} but received ${JSON.stringify(raw)}`);
  return n;
}

function token(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (raw.length < 16 || raw.length > 256 || /\s/.test(raw)) throw new Error(`Expected 16 to 256 characters without spaces for ${name} (received ${raw.length} characters)`);
  return raw;
}

/** INKPREP_TRUSTED_PROXY as a list, checked now (a typo must stop the start, not silently trust nobody). */
function trustedProxyList(raw: string | undefined): readonly string[] {
  parseTrustedProxies(raw);
  return Object.freeze((raw ?? '').split(/[\s,]+/).filter((e) => e !== ''));
}

/** Read the configuration from environment variables (throws a readable Error naming a bad variable). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const level = (env.INKPREP_LOG_LEVEL ?? CONFIG_DEFAULTS.logLevel).trim() as LogLevel;
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(level)) throw new Error(`Expected debug, info, warn, error or silent for INKPREP_LOG_LEVEL but received ${JSON.stringify(level)}`);
  return Object.freeze({
    port: int(env, 'PORT', CONFIG_DEFAULTS.port, 0, 65535),
    host: env.HOST?.trim() || CONFIG_DEFAULTS.host,
    dataDir: dataDirFromEnv(env),
    bootstrapKey: env.INKPREP_BOOTSTRAP_KEY?.trim() || null,
    threads: int(env, 'INKPREP_THREADS', Math.max(2, os.availableParallelism()), 1, 256),
    engineMaxQueue: int(env, 'INKPREP_ENGINE_MAX_QUEUE', CONFIG_DEFAULTS.engineMaxQueue, 1, 100_000),
    vectorizeMaxWaiting: int(env, 'INKPREP_VECTORIZE_MAX_WAITING', CONFIG_DEFAULTS.vectorizeMaxWaiting, 0, 10_000),
    vectorizeSlots: int(env, 'INKPREP_VECTORIZE_SLOTS', CONFIG_DEFAULTS.vectorizeSlots, 1, 1000),
    vectorizeLeaseMs: int(env, 'INKPREP_VECTORIZE_LEASE_MS', CONFIG_DEFAULTS.vectorizeLeaseMs, 1000, 600_000),
    jobsMaxActive: int(env, 'INKPREP_JOBS_MAX_ACTIVE', CONFIG_DEFAULTS.jobsMaxActive, 1, 100_000),
    maxUploadBytes: Math.round(num(env, 'INKPREP_MAX_UPLOAD_MB', CONFIG_DEFAULTS.maxUploadBytes / MB, 0.001, 2048) * MB),
    vectorizeMaxBytes: Math.round(num(env, 'INKPREP_VECTORIZE_MAX_MB', CONFIG_DEFAULTS.vectorizeMaxBytes / MB, 0.001, 2048) * MB),
    maxPixels: int(env, 'INKPREP_MAX_PIXELS', CONFIG_DEFAULTS.maxPixels, 1, 1_000_000_000),
    shutdownGraceMs: int(env, 'INKPREP_SHUTDOWN_GRACE_MS', CONFIG_DEFAULTS.shutdownGraceMs, 0, 3_600_000),
    logLevel: level,
    metricsPort: env.INKPREP_METRICS_PORT?.trim() ? int(env, 'INKPREP_METRICS_PORT', 0, 0, 65535) : CONFIG_DEFAULTS.metricsPort,
    metricsHost: env.INKPREP_METRICS_HOST?.trim() || CONFIG_DEFAULTS.metricsHost,
    metricsToken: token(env, 'INKPREP_METRICS_TOKEN'),
    http: parseTransportChoice(env.INKPREP_HTTP),
    keepAliveTimeoutS: int(env, 'INKPREP_KEEPALIVE_TIMEOUT_S', CONFIG_DEFAULTS.keepAliveTimeoutS, 2, 3600),
    trustedProxy: trustedProxyList(env.INKPREP_TRUSTED_PROXY),
    engine: engineConfigFromEnv(env),
    clusterSlot: env.INKPREP_CLUSTER_SLOT === undefined ? null : Number(env.INKPREP_CLUSTER_SLOT.trim() || 0),
    store: storeConfigFromEnv(env),
    catalog: catalogConfigFromEnv(env),
    webhooks: webhookConfigFromEnv(env),
    publicUrl: env.INKPREP_PUBLIC_URL?.trim().replace(/\/+$/, '') || null,
    warmBlanks: warmBlanksEnabled(env),
    processes: env.INKPREP_PROCESSES ?? null,
  });
}

/** The data directory: env INKPREP_DATA_DIR, default ./data, resolved against the working directory. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.INKPREP_DATA_DIR?.trim() || './data');
}

/**
 * Lease from env INKPREP_RESERVATION_LEASE_MS (milliseconds, 1,000 to 3,600,000; default 30,000), in the
 * same unit as INKPREP_VECTORIZE_LEASE_MS. Throws a readable Error.
 */
export function leaseFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.INKPREP_RESERVATION_LEASE_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_RESERVATION_LEASE_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1000 || n > 3_600_000) throw new Error(`Expected an integer from 1000 to 3600000 for INKPREP_RESERVATION_LEASE_MS but received ${JSON.stringify(raw)}`);
  return n;
}

/** The store's settings (the server's and the admin CLI's: both open the same store). Throws on a bad lease. */
export function storeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  const days = Number(env.INKPREP_RESULT_RETENTION_DAYS ?? '');
  const pool = Number(env.INKPREP_PG_POOL_SIZE);
  return Object.freeze({
    databaseUrl: env.DATABASE_URL?.trim() || null,
    pgPoolSize: pool > 0 ? pool : 10,
    reservationLeaseMs: leaseFromEnv(env),
    resultRetentionMs: Number.isFinite(days) && days > 0 ? days * 86_400_000 : null,
  });
}

/** The webhooks' settings (the server's): the allow list, checked now, the retry window and the attempt deadline. */
export function webhookConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  const hosts = (env.INKPREP_WEBHOOK_ALLOW_HOSTS ?? '').split(/[\s,]+/).filter((h) => h !== '').map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1'));
  for (const h of hosts) {
    // Host names or address literals only: a URL or a port here would silently match nothing.
    if (!/^[a-z0-9.:_-]+$/.test(h) || h.includes('//')) throw new Error(`Expected host names or addresses for INKPREP_WEBHOOK_ALLOW_HOSTS but received ${JSON.stringify(h)}`);
  }
  return Object.freeze({
    allowHosts: Object.freeze(hosts),
    retryForMs: Math.round(num(env, 'INKPREP_WEBHOOK_RETRY_HOURS', 24, 0.01, 168) * 3_600_000),
    firstDelayMs: 30_000,
    maxDelayMs: 3_600_000,
    timeoutMs: int(env, 'INKPREP_WEBHOOK_TIMEOUT_MS', 10_000, 1000, 60_000),
    pollMs: 5000,
  });
}

/** A positive number from env, else the default (the supplier variables were always lenient this way). */
function positive(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const v = Number(env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

/** The S&S connector's settings; null when the account or key is missing (connector off). */
export function ssConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SsConfig | null {
  const account = env.INKPREP_SS_ACCOUNT?.trim();
  const apiKey = env.INKPREP_SS_API_KEY?.trim();
  if (!account || !apiKey) return null;
  return Object.freeze({
    baseUrl: (env.INKPREP_SS_BASE_URL?.trim() || 'https://api.ssactivewear.com/v2').replace(/\/+$/, ''),
    account,
    apiKey,
    imageBase: env.INKPREP_SS_IMAGE_BASE?.trim() || 'https://www.ssactivewear.com/',
    timeoutMs: positive(env, 'INKPREP_SUPPLIER_TIMEOUT_MS', 4000),
    ttlMs: positive(env, 'INKPREP_CATALOG_TTL_S', 3600) * 1000,
  });
}

/** The garment catalogue's settings (the server's and `inkprep mockup`'s). */
export function catalogConfigFromEnv(env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return Object.freeze({ ss: ssConfigFromEnv(env), supplierTimeoutMs: positive(env, 'INKPREP_SUPPLIER_TIMEOUT_MS', 4000) });
}

/** Whether the server warms the blanks at start: INKPREP_WARM_BLANKS=1/0; default on, off under tests (NODE_ENV=test or VITEST). */
export function warmBlanksEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.INKPREP_WARM_BLANKS?.trim().toLowerCase();
  if (v) return !['0', 'false', 'no', 'off'].includes(v);
  return !(env.NODE_ENV === 'test' || env.VITEST);
}

/** `INKPREP_DEBUG` set: the CLI adds the stack to an internal error's line. */
export function debugFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.INKPREP_DEBUG);
}

/**
 * INKPREP_PROGRESS_SECONDS: seconds between two progress lines of a CLI file verb whose stderr is not a
 * terminal (0 to 3600, fractions allowed; default 10). Throws invalid_option naming the variable.
 */
export function progressIntervalMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.INKPREP_PROGRESS_SECONDS;
  if (raw === undefined || raw.trim() === '') return 10_000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 3600) {
    throw invalidOption('INKPREP_PROGRESS_SECONDS', 'a number of seconds from 0 to 3600', raw);
  }
  return n * 1000;
}

/** `INKPREP_SEGMENTATION_<FIELD>`: the variable a model input setting comes from (named in errors). */
function segmentationVariable(field: string): string {
  return `INKPREP_SEGMENTATION_${field === 'input_size' ? 'SIZE' : field.toUpperCase()}`;
}

/**
 * The engine's paths and models from the environment (throws InkprepError `invalid_option` naming a bad
 * INKPREP_SEGMENTATION_* variable, as the CLI's remove-bg reported it).
 */
export function engineConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EngineHostConfig {
  const dataDir = dataDirFromEnv(env);
  const modelDir = env.INKPREP_MODEL_DIR?.trim() ? path.resolve(env.INKPREP_MODEL_DIR.trim()) : path.join(dataDir, 'models');
  const rawThreads = env.INKPREP_SEGMENTATION_THREADS?.trim();
  if (rawThreads !== undefined && rawThreads !== '' && (!/^\d{1,2}$/.test(rawThreads) || Number(rawThreads) < 1 || Number(rawThreads) > 16)) {
    throw invalidOption('INKPREP_SEGMENTATION_THREADS', 'an integer from 1 to 16', rawThreads);
  }
  const named = env.INKPREP_SEGMENTATION_MODEL?.trim() ?? '';
  const none = named.toLowerCase() === 'none';
  const segmentation: SegmentationModelOptions = {
    ...(named && !none ? { path: env.INKPREP_SEGMENTATION_MODEL } : {}),
    input_size: env.INKPREP_SEGMENTATION_SIZE,
    mean: env.INKPREP_SEGMENTATION_MEAN,
    std: env.INKPREP_SEGMENTATION_STD,
    output: env.INKPREP_SEGMENTATION_OUTPUT as MaskOutput | undefined,
  };
  // Checked now with the variables' names (the engine would name its own option fields).
  resolveModelConfig({ ...segmentation, path: 'model.onnx' }, segmentationVariable);
  const rawCache = env.INKPREP_MEMORY_CACHE_MB?.trim();
  if (rawCache !== undefined && rawCache !== '' && (!/^\d{1,7}$/.test(rawCache) || Number(rawCache) > MAX_MEMORY_CACHE_MB)) {
    throw invalidOption('INKPREP_MEMORY_CACHE_MB', `an integer from 0 to ${MAX_MEMORY_CACHE_MB}`, rawCache);
  }
  const fetchFlag = env.INKPREP_FETCH_MODEL?.trim().toLowerCase();
  return Object.freeze({
    dataDir,
    garmentCacheDir: env.INKPREP_GARMENT_CACHE_DIR?.trim() ? path.resolve(env.INKPREP_GARMENT_CACHE_DIR.trim()) : path.join(dataDir, 'cache', 'garments'),
    modelDir,
    memoryCacheMb: rawCache ? Number(rawCache) : DEFAULT_MEMORY_CACHE_MB,
    models: Object.freeze({
      ...(none ? {} : { dir: modelDir }),
      segmentation: Object.freeze(segmentation),
      ...(rawThreads ? { threads: Number(rawThreads) } : {}),
    }),
    // Opt-in, not opt-out: the default weights are not clearly licensed for commercial use (model-autofetch.ts).
    fetchModel: (fetchFlag === '1' || fetchFlag === 'true' || fetchFlag === 'yes') && named === '',
  });
}

/** The createEngine options of a host configuration (its paths, models and cache budget; pool sizes are the caller's). */
export function engineOptions(c: EngineHostConfig): EngineOptions {
  return { dataDir: c.dataDir, garmentCacheDir: c.garmentCacheDir, models: c.models, memoryCacheMb: c.memoryCacheMb };
}

/** A configuration for tests and embedding: defaults, ephemeral port, given data dir. */
export function defaultConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  const base = configFromEnv({});
  // No model and the engine's own blank cache (a temp folder): an embedded server writes nothing under ./data.
  const engine: EngineHostConfig = Object.freeze({ ...base.engine, garmentCacheDir: defaultGarmentCacheDir(), models: Object.freeze({}), fetchModel: false });
  // Blank warm-up follows the host process as before (off under a test runner), the rest is the defaults.
  return Object.freeze({ ...base, port: 0, host: '127.0.0.1', logLevel: 'silent', engine, warmBlanks: warmBlanksEnabled(process.env), ...overrides });
}
