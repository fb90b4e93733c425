// Chooses the vectorize line from the configuration, the same way store/open.ts chooses the store:
// DATABASE_URL set -> the deployment-wide line in PostgreSQL (every process and host shares one line);
// unset -> the in-process line (one process on SQLite).
import type { ServerConfig } from '../config.js';
import type { Logger } from '../log.js';
import { openPgLine } from './pg-line.js';
import { ConversionQueue, type VectorizeLine } from './vectorize-queue.js';

export interface OpenedLine {
  line: VectorizeLine;
  /** `process` (in memory) or `postgres` (shared), for logs. */
  kind: 'process' | 'postgres';
}

/**
 * Open the vectorize line for `config` (slots, max_waiting, lease).
 * @throws Error when DATABASE_URL is set and PostgreSQL cannot be reached.
 */
export async function openConfiguredLine(config: ServerConfig, opts: { log?: Logger } = {}): Promise<OpenedLine> {
  const url = config.store.databaseUrl;
  if (!url) return { line: new ConversionQueue({ maxWaiting: config.vectorizeMaxWaiting, slots: config.vectorizeSlots }), kind: 'process' };
  const line = await openPgLine({
    connectionString: url, slots: config.vectorizeSlots, maxWaiting: config.vectorizeMaxWaiting, leaseMs: config.vectorizeLeaseMs, log: opts.log,
  });
  return { line, kind: 'postgres' };
}
