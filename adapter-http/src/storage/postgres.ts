// PostgreSQL ResultStorage: finished results as bytea rows, shared by every server process that uses
// the same DATABASE_URL. Chosen over S3-compatible storage because an operator who scales out already
// runs PostgreSQL for the store (no second service to run, back up and secure) and because a write is
// visible to every process the moment it commits. Results are bounded by the upscale budgets (tens of MB
// at most), well inside bytea's 1 GB limit. Retention as in local disk: null keeps results forever.
import type pg from 'pg';
import { contentTypeFor, isValidKey, newKey } from './keys.js';
import type { PutObject, ResultStorage, StoredObject } from './types.js';

export interface PostgresStorageOptions {
  /** A pg pool (the store's pool can be shared). */
  pool: pg.Pool;
  /** Keep results this long in ms; null (default) keeps them until deleted. */
  retentionMs?: number | null;
  clock?: () => number;
}

// CREATE ... IF NOT EXISTS is not safe against itself on PostgreSQL: sessions creating the same table at
// once both pass the check and all but one fail (duplicate key in pg_type). The statements run as one
// implicit transaction (one simple query) behind a transaction-scoped advisory lock, so processes whose first
// result writes coincide create the table one after the other.
const SCHEMA_LOCK = 0x1_4b_50_54;
const SCHEMA = `SELECT pg_advisory_xact_lock(${SCHEMA_LOCK});
CREATE TABLE IF NOT EXISTS inkprep_results (
  key TEXT PRIMARY KEY, content_type TEXT NOT NULL, bytes BYTEA NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS inkprep_results_created ON inkprep_results(created_at);`;

export class PostgresStorage implements ResultStorage {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;
  private readonly retentionMs: number | null;
  private readonly clock: () => number;
  private ready: Promise<void> | null = null;

  constructor(opts: PostgresStorageOptions) {
    this.pool = opts.pool;
    this.retentionMs = opts.retentionMs ?? null;
    this.clock = opts.clock ?? Date.now;
  }

  // Table creation is idempotent; done once per process before the first use.
  private init(): Promise<void> {
    if (!this.ready) {
      this.ready = this.pool.query(SCHEMA).then(() => undefined);
      this.ready.catch(() => {
        this.ready = null;
      });
    }
    return this.ready;
  }

  async put(obj: PutObject): Promise<string> {
    await this.init();
    const key = newKey(obj.contentType);
    await this.pool.query('INSERT INTO inkprep_results (key, content_type, bytes, created_at) VALUES ($1, $2, $3, $4)', [
      key, obj.contentType, Buffer.from(obj.bytes.buffer, obj.bytes.byteOffset, obj.bytes.byteLength), this.clock(),
    ]);
    return key;
  }

  async get(key: string): Promise<StoredObject | null> {
    if (!isValidKey(key)) return null;
    await this.init();
    const { rows } = await this.pool.query<{ content_type: string; bytes: Buffer; created_at: string }>(
      'SELECT content_type, bytes, created_at FROM inkprep_results WHERE key = $1', [key]);
    const r = rows[0];
    if (!r) return null;
    const createdAt = Number(r.created_at);
    if (this.retentionMs !== null && this.clock() - createdAt > this.retentionMs) return null;
    return { bytes: new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength), contentType: r.content_type || contentTypeFor(key), createdAt };
  }

  async delete(key: string): Promise<boolean> {
    if (!isValidKey(key)) return false;
    await this.init();
    return ((await this.pool.query('DELETE FROM inkprep_results WHERE key = $1', [key])).rowCount ?? 0) > 0;
  }

  async sweep(now = this.clock()): Promise<number> {
    if (this.retentionMs === null) return 0;
    await this.init();
    return (await this.pool.query('DELETE FROM inkprep_results WHERE created_at < $1', [now - this.retentionMs])).rowCount ?? 0;
  }
}
