// `inkprep serve`: run the /api/v1 service with configuration from environment variables
// (docs/guides/getting-started.md, "HTTP service"). SIGTERM/SIGINT drain in-flight requests, then close the pool and the store.
import { InkprepError } from '@inkprep/engine';
import { configFromEnv, type ServerConfig } from '../../config.js';
import { bootstrapStore } from '../../bootstrap.js';
import { createLogger } from '../../log.js';
import { openConfiguredLine } from '../../queue/open-line.js';
import { startServer } from '../../server.js';
import { PortInUseError } from '../../transport/types.js';
import { startModelAutoFetch } from '../../model-autofetch.js';
import { openConfiguredStore } from '../../store/open.js';
import { EXIT, UsageError, parseOrHelp, printError, reportError, synopsis, type Command } from '../command.js';
import { rejectUnknownFlags } from '../known-flags.js';
import { isStoreUnavailable } from '../../store/unavailable.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the HTTP API (config from env: PORT, INKPREP_DATA_DIR, INKPREP_BOOTSTRAP_KEY, ...)',
  usage: [
    'usage: inkprep serve',
    '',
    'Environment: PORT (8080), HOST (0.0.0.0), INKPREP_DATA_DIR (./data), DATABASE_URL (unset: SQLite), INKPREP_BOOTSTRAP_KEY,',
    'INKPREP_THREADS (max(2, cores)), INKPREP_ENGINE_MAX_QUEUE (256), INKPREP_VECTORIZE_MAX_WAITING (8), INKPREP_VECTORIZE_SLOTS (1),',
    'INKPREP_VECTORIZE_LEASE_MS (10000, PostgreSQL line),',
    'INKPREP_MAX_UPLOAD_MB (50), INKPREP_VECTORIZE_MAX_MB (25), INKPREP_MAX_PIXELS (100000000),',
    'INKPREP_SHUTDOWN_GRACE_MS (130000), INKPREP_LOG_LEVEL (info),',
    'INKPREP_METRICS_PORT (unset: no metrics listener; a port serves GET /metrics there, process N of a cluster on port + N),',
    'INKPREP_METRICS_HOST (HOST: interface of the metrics listener),',
    'INKPREP_METRICS_TOKEN (unset; when set GET /metrics on PORT answers Authorization: Bearer TOKEN),',
    'INKPREP_HTTP (auto: uWebSockets.js where its @btc-vision build loads, else node:http; or uws, node).',
    'INKPREP_MEMORY_CACHE_MB (256: megabytes the engine keeps between requests per process, garment blanks, photos and',
    'designs, split between the threads; see docs/guides/operating.md#memory), INKPREP_WARM_BLANKS (1: pre-render the blanks).',
    'A PORT already in use is an error (exit 1); only `inkprep cluster` shares a port.',
    'INKPREP_FETCH_MODEL (unset or 0: never; 1: fetch the default remove-bg segmentation model, ISNet, in the background',
    'on first start. Opt-in because those weights are not clearly licensed for commercial use: see THIRD_PARTY_NOTICES.md;',
    'INKPREP_SEGMENTATION_MODEL=/path/to/model.onnx uses a model whose terms you hold. Without a model remove-bg cuts art).',
    'On an empty store a local Business account is created and its first key printed once.',
  ].join('\n'),
  async run(argv) {
    const parsed = parseOrHelp(argv, this.usage);
    if (!parsed) return EXIT.ok;
    const { positionals, flags } = parsed;
    try {
      rejectUnknownFlags(flags, ['help'], 'serve', synopsis(this.usage));
      if (positionals.length > 0) throw new UsageError(`serve takes no arguments (configuration comes from the environment), got ${positionals.join(' ')}`, synopsis(this.usage));
    } catch (err) {
      return reportError(err);
    }
    const base = configOrReport();
    if (!base) return EXIT.usage;
    // In `inkprep cluster` every process has its own metrics (per process, like its engine pool): process N
    // listens on INKPREP_METRICS_PORT + N, one scrape target each.
    const slot = base.clusterSlot ?? 0;
    const config = base.metricsPort && slot > 0 ? { ...base, metricsPort: base.metricsPort + slot } : base;
    const log = createLogger(config.logLevel);
    let store;
    try {
      const opened = await openConfiguredStore({ dataDir: config.dataDir, config: config.store });
      store = opened.store;
      log.info('store opened', { store: opened.kind });
    } catch (err) {
      return printError(isStoreUnavailable(err) ? 'store_unavailable' : 'internal_error', `cannot open the store: ${(err as Error).message}`);
    }
    const boot = await bootstrapStore(store, config.bootstrapKey, Date.now());
    if (boot.created) {
      log.info('created local business account', { account: boot.accountId, key: boot.keyId, data_dir: config.dataDir });
      if (!boot.fromEnv) {
        // Shown once, on stderr, outside the JSON log stream (never logged).
        announceFirstKey(boot.accountId, boot.secret);
      }
    }
    let line;
    try {
      const opened = await openConfiguredLine(config, { log });
      line = opened.line;
      log.info('vectorize line opened', { line: opened.kind, slots: config.vectorizeSlots, max_waiting: config.vectorizeMaxWaiting });
    } catch (err) {
      await store.close();
      return printError('internal_error', `cannot open the vectorize line: ${(err as Error).message}`);
    }
    // Only `inkprep cluster` (which sets INKPREP_CLUSTER_SLOT for its processes) shares a port on purpose.
    let server;
    try {
      server = await startServer({ config, store, log, sharePort: config.clusterSlot !== null, vectorizeLine: line });
    } catch (err) {
      await line.close();
      await store.close();
      if (err instanceof PortInUseError) return printError(err.code, err.message, { host: err.host, port: err.port });
      return printError('internal_error', `cannot start the HTTP service: ${(err as Error).message}`);
    }
    // Not awaited: the model lands in the background; remove-bg picks it up on the next call.
    void startModelAutoFetch(log, config.engine, config.clusterSlot);
    const origin = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${server.port}`;
    process.stderr.write(`inkprep API listening on ${origin}/api/v1\n`);
    process.stderr.write(`try it in a browser: ${origin}/\n`);
    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        log.info('signal', { signal });
        const exit = (code: number): void => {
          resolve(code);
          // Idle keep-alive sockets may hold the loop open; exit once the drain is done.
          setTimeout(() => process.exit(code), 50).unref();
        };
        server.close().then(() => exit(EXIT.ok), (err) => {
          log.error('shutdown failed', { err: String(err) });
          exit(EXIT.failed);
        });
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
  },
};

/** The server configuration from the environment, or null after printing which variable is wrong. */
export function configOrReport(): ServerConfig | null {
  try {
    return configFromEnv();
  } catch (err) {
    printError('invalid_option', (err as Error).message, err instanceof InkprepError ? err.details : {});
    return null;
  }
}

/** Print a newly created first key once, on stderr, outside the JSON log stream (never logged). */
export function announceFirstKey(accountId: string, secret: string): void {
  process.stderr.write(`\nFirst API key for account ${accountId} (shown once, store it now):\n\n  ${secret}\n\n`);
}
