// Chooses the store (and, with PostgreSQL, the shared result storage) from the configuration:
// DATABASE_URL set -> PostgreSQL for accounts/keys/usage/settings and for hosted results, so several
// server processes act as one service; unset -> the embedded SQLite store under the data dir.
import path from 'node:path';
import type { StoreConfig } from '../config.js';
import { PostgresStorage } from '../storage/postgres.js';
import { TemporaryHolder } from '../storage/holder.js';
import { setHosting } from '../storage/index.js';
import { openPostgresStore } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export interface OpenedStore {
  store: Store;
  /** `sqlite` or `postgres`, for logs. */
  kind: 'sqlite' | 'postgres';
}

/**
 * Open the store the server and the admin CLI share. With `config.databaseUrl` (DATABASE_URL, postgres://...),
 * PostgreSQL (migrations run here) and PostgreSQL result hosting for `dataDir`; otherwise SQLite in `dataDir`.
 * `config.reservationLeaseMs` is the lease of a silent process's pending reservations.
 */
export async function openConfiguredStore(opts: { dataDir: string; config: StoreConfig; cacheKeys?: boolean }): Promise<OpenedStore> {
  const { databaseUrl: url, reservationLeaseMs: leaseMs } = opts.config;
  if (!url) return { store: openSqliteStore(opts.dataDir, { leaseMs }), kind: 'sqlite' };
  const store = await openPostgresStore({ connectionString: url, max: opts.config.pgPoolSize, cacheKeys: opts.cacheKeys ?? true, leaseMs });
  setHosting(opts.dataDir === ':memory:' ? opts.dataDir : path.resolve(opts.dataDir), {
    storage: new PostgresStorage({ pool: store.pool, retentionMs: opts.config.resultRetentionMs }),
    holder: new TemporaryHolder(),
  });
  return { store, kind: 'postgres' };
}
