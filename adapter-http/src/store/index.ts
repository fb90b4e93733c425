// Store selection: the embedded SQLite store under INKPREP_DATA_DIR (default ./data).
// A PostgreSQL implementation (DATABASE_URL) plugs in here behind the same Store interface.
import { openSqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export * from './types.js';
export * from './idempotency.js';
export * from './jobs.js';
export * from './webhooks.js';
export { openSqliteStore, migrate, MIGRATIONS, type SqliteStoreOptions } from './sqlite.js';
export { DEFAULT_RESERVATION_LEASE_MS } from './instance.js';
export { openConfiguredStore, type OpenedStore } from './open.js';
export { isStoreUnavailable, STORE_RETRY_AFTER_S } from './unavailable.js';
export { guardStore } from './guard.js';
export { openPostgresStore, migratePostgres, PG_MIGRATIONS, PG_METER_SQL, PG_CONNECT_TIMEOUT_MS, type PostgresStoreOptions } from './postgres.js';

/** Open the store the server and the admin CLI share: SQLite in `dataDir` (`:memory:` for a throwaway one). */
export function openStore(opts: { dataDir: string }): Store {
  return openSqliteStore(opts.dataDir);
}
