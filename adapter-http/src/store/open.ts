// Chooses the store (and, with PostgreSQL, the shared result storage) from the environment:
// DATABASE_URL set -> PostgreSQL for accounts/keys/usage/settings and for hosted results, so several
// server processes act as one service; unset -> the embedded SQLite store under the data dir.
import path from 'node:path';
import { PostgresStorage } from '../storage/postgres.js';
import { TemporaryHolder } from '../storage/holder.js';
import { setHosting } from '../storage/index.js';
import { leaseFromEnv } from './instance.js';
import { openPostgresStore } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export interface OpenedStore {
  store: Store;
  /** `sqlite` or `postgres`, for logs. */
  kind: 'sqlite' | 'postgres';
}

/** Result retention from env INKPREP_RESULT_RETENTION_DAYS (unset = keep forever). */
function retentionMs(env: NodeJS.ProcessEnv): number | null {
  const days = Number(env.INKPREP_RESULT_RETENTION_DAYS ?? '');
  return Number.isFinite(days) && days > 0 ? days * 86_400_000 : null;
}

/**
 * Open the store the server and the admin CLI share. With `DATABASE_URL` (postgres://...), PostgreSQL
 * (migrations run here) and PostgreSQL result hosting for `dataDir`; otherwise SQLite in `dataDir`.
 * `INKPREP_RESERVATION_LEASE_MS` sets the lease of a silent process's pending reservations (default 30,000).
 */
export async function openConfiguredStore(opts: { dataDir: string; env?: NodeJS.ProcessEnv; cacheKeys?: boolean }): Promise<OpenedStore> {
  const env = opts.env ?? process.env;
  const url = env.DATABASE_URL?.trim();
  const leaseMs = leaseFromEnv(env);
  if (!url) return { store: openSqliteStore(opts.dataDir, { leaseMs }), kind: 'sqlite' };
  const store = await openPostgresStore({ connectionString: url, max: Number(env.INKPREP_PG_POOL_SIZE) > 0 ? Number(env.INKPREP_PG_POOL_SIZE) : 10, cacheKeys: opts.cacheKeys ?? true, leaseMs });
  setHosting(opts.dataDir === ':memory:' ? opts.dataDir : path.resolve(opts.dataDir), {
    storage: new PostgresStorage({ pool: store.pool, retentionMs: retentionMs(env) }),
    holder: new TemporaryHolder(),
  });
  return { store, kind: 'postgres' };
}
