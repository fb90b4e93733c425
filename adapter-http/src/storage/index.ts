// Result storage entry: the ResultStorage interface, the local-disk implementation, the temporary holder
// used when a storage write fails, and the per-process defaults the upscale routes use.
import os from 'node:os';
import path from 'node:path';
import { LocalDiskStorage } from './local-disk.js';
import { TemporaryHolder } from './holder.js';
import type { ResultStorage } from './types.js';

export type { ResultStorage, StoredObject, PutObject } from './types.js';
export { LocalDiskStorage, type LocalDiskOptions } from './local-disk.js';
export { PostgresStorage, type PostgresStorageOptions } from './postgres.js';
export { TemporaryHolder, DEFAULT_HOLD_MS, type HolderOptions } from './holder.js';
export { isValidKey, newKey, contentTypeFor } from './keys.js';

/** Storage and holder used by the result routes. */
export interface ResultHosting {
  storage: ResultStorage;
  holder: TemporaryHolder;
}

const byDataDir = new Map<string, ResultHosting>();

/** The folder results live under; an in-memory store (tests) has none, so a per-process temporary one. */
function rootOf(dataDir: string): string {
  return dataDir === ':memory:' ? path.join(os.tmpdir(), `inkprep-results-${process.pid}`) : path.resolve(dataDir);
}

/**
 * The hosting of one data directory (created on first use, then shared): local disk under
 * `<dataDir>/results` (a per-process temporary folder for `:memory:`), kept for `retentionMs` (the config's
 * INKPREP_RESULT_RETENTION_DAYS; null = forever), which counts only when this call creates it.
 */
export function hostingFor(dataDir: string, retentionMs: number | null = null): ResultHosting {
  const key = rootOf(dataDir);
  let h = byDataDir.get(key);
  if (!h) {
    h = {
      storage: new LocalDiskStorage({ dir: path.join(key, 'results'), retentionMs }),
      holder: new TemporaryHolder(),
    };
    byDataDir.set(key, h);
  }
  return h;
}

/** Replace the hosting of a data directory (tests: a storage that fails; another backend). */
export function setHosting(dataDir: string, hosting: ResultHosting): void {
  byDataDir.set(rootOf(dataDir), hosting);
}
