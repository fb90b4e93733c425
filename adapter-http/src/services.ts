// What every route sees: configuration, store, engine, clock, logger, the vectorize line, metrics, webhooks.
import type { Engine } from '@inkprep/engine';
import type { ServerConfig } from './config.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { VectorizeLine } from './queue/vectorize-queue.js';
import type { Store } from './store/types.js';
import type { UsageSettler } from './limits/settle.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';

export interface AppServices {
  config: ServerConfig;
  store: Store;
  engine: Engine;
  /** Milliseconds since the epoch; injected in tests (rolling windows, retry_after_seconds). */
  clock: () => number;
  log: Logger;
  /** The vectorize line: in-process, or deployment-wide in PostgreSQL (queue/open-line.ts). */
  vectorizeQueue: VectorizeLine;
  metrics: Metrics;
  /** Confirms and releases usage reservations so they survive a store outage (limits/settle.ts). */
  settler: UsageSettler;
  /** Jobs' webhooks: the submission check of a `callback_url` and the durable, signed, retried delivery of a completion (webhooks/). */
  webhooks: WebhookDispatcher;
  /** True once SIGTERM/close started: new requests get 503 `shutting_down`. */
  draining(): boolean;
  /** Register cleanup to run when the server closes (after in-flight work ends), e.g. a storage client. */
  onClose(fn: () => Promise<void> | void): void;
}
