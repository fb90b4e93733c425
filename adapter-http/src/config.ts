// Server configuration from environment variables, with one table of documented defaults. The only module
// of the adapter that reads process.env (test/repo/architecture.test.ts holds it): every other module is
// handed its part of the frozen config (the services object, function and constructor parameters), so a
// setting is parsed once, in one place, and a bad value stops the start instead of the first request.
// README "## HTTP service" lists the same variables; keep the two in step.
import os from 'node:os';
import path from 'node:path';
import { invalidOption, type EngineOptions, type MaskOutput, type ModelOptions, type SegmentationModelOptions } from '@inkprep/engine';
// Internal: the engine's model-option parser (to name the variables in its errors) and its blank cache default.
import { defaultGarmentCacheDir, resolveModelConfig } from '@inkprep/engine/internals';
import { parseTrustedProxies } from './http/client-address.js';
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
  /** HTTP transport: `uws`, `node` or `auto` (uWebSockets.js where its native build loads, else node:http). Env `INKPREP_HTTP`, default `auto`. */
  http: TransportChoice;
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
  /**
   * Fetch the default model in the background at start: only when the operator opts in with env
   * `INKPREP_FETCH_MODEL=1` (or true/yes; the weights' terms are unclear, THIRD_PARTY_NOTICES.md), and only when
   * `INKPREP_SEGMENTATION_MODEL` names no model (a path or none). Default: off.
   */
  fetchModel: boolean;
}

const MB = 1024 * 1024;

/** Defaults used when a variable is unset. */
export const CONFIG_DEFAULTS: Readonly<Omit<ServerConfig, 'threads' | 'dataDir' | 'engine' | 'clusterSlot' | 'store' | 'catalog' | 'warmBlanks' | 'processes'>> = Object.freeze({
  port: 8080,
  host: '0.0.0.0',
  bootstrapKey: null,
  engineMaxQueue: 256,
  vectorizeMaxWaiting: 8,
  vectorizeSlots: 1,
  vectorizeLeaseMs: 10_000,
  maxUploadBytes: 50 * MB,
  vectorizeMaxBytes: 25 * MB,
  maxPixels: 100_000_000,
  shutdownGraceMs: 130_000,
  logLevel: 'info',
  metricsPort: null,
  metricsHost: null,
  metricsToken: null,
  http: 'auto',
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
    maxUploadBytes: Math.round(num(env, 'INKPREP_MAX_UPLOAD_MB', CONFIG_DEFAULTS.maxUploadBytes / MB, 0.001, 2048) * MB),
    vectorizeMaxBytes: Math.round(num(env, 'INKPREP_VECTORIZE_MAX_MB', CONFIG_DEFAULTS.vectorizeMaxBytes / MB, 0.001, 2048) * MB),
    maxPixels: int(env, 'INKPREP_MAX_PIXELS', CONFIG_DEFAULTS.maxPixels, 1, 1_000_000_000),
    shutdownGraceMs: int(env, 'INKPREP_SHUTDOWN_GRACE_MS', CONFIG_DEFAULTS.shutdownGraceMs, 0, 3_600_000),
    logLevel: level,
    metricsPort: env.INKPREP_METRICS_PORT?.trim() ? int(env, 'INKPREP_METRICS_PORT', 0, 0, 65535) : CONFIG_DEFAULTS.metricsPort,
    metricsHost: env.INKPREP_METRICS_HOST?.trim() || CONFIG_DEFAULTS.metricsHost,
    metricsToken: token(env, 'INKPREP_METRICS_TOKEN'),
    http: parseTransportChoice(env.INKPREP_HTTP),
    trustedProxy: trustedProxyList(env.INKPREP_TRUSTED_PROXY),
    engine: engineConfigFromEnv(env),
    clusterSlot: env.INKPREP_CLUSTER_SLOT === undefined ? null : Number(env.INKPREP_CLUSTER_SLOT.trim() || 0),
    store: storeConfigFromEnv(env),
    catalog: catalogConfigFromEnv(env),
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
  const fetchFlag = env.INKPREP_FETCH_MODEL?.trim().toLowerCase();
  return Object.freeze({
    dataDir,
    garmentCacheDir: env.INKPREP_GARMENT_CACHE_DIR?.trim() ? path.resolve(env.INKPREP_GARMENT_CACHE_DIR.trim()) : path.join(dataDir, 'cache', 'garments'),
    modelDir,
    models: Object.freeze({
      ...(none ? {} : { dir: modelDir }),
      segmentation: Object.freeze(segmentation),
      ...(rawThreads ? { threads: Number(rawThreads) } : {}),
    }),
    // Opt-in, not opt-out: the default weights are not clearly licensed for commercial use (model-autofetch.ts).
    fetchModel: (fetchFlag === '1' || fetchFlag === 'true' || fetchFlag === 'yes') && named === '',
  });
}

/** The createEngine options of a host configuration (its paths and models; pool sizes are the caller's). */
export function engineOptions(c: EngineHostConfig): EngineOptions {
  return { dataDir: c.dataDir, garmentCacheDir: c.garmentCacheDir, models: c.models };
}

/** A configuration for tests and embedding: defaults, ephemeral port, given data dir. */
export function defaultConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  const base = configFromEnv({});
  // No model and the engine's own blank cache (a temp folder): an embedded server writes nothing under ./data.
  const engine: EngineHostConfig = Object.freeze({ ...base.engine, garmentCacheDir: defaultGarmentCacheDir(), models: Object.freeze({}), fetchModel: false });
  // Blank warm-up follows the host process as before (off under a test runner), the rest is the defaults.
  return Object.freeze({ ...base, port: 0, host: '127.0.0.1', logLevel: 'silent', engine, warmBlanks: warmBlanksEnabled(process.env), ...overrides });
}
