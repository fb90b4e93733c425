// A PostgreSQL connection dropped while the store holds it checked out (a transaction, a claim, a migration) must
// not crash the process: the pool listens for a client's 'error' only while the client is idle, so without a
// listener of the store's own the drop is an uncaught exception (seen in CI: "Connection terminated unexpectedly"
// while a readiness test terminated the store's sessions). The held client's query fails, and the store goes on
// with fresh connections. Skips, saying why, without a PostgreSQL server.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type Store } from '@inkprep/http';
import { createTestDatabase, pgUnavailableReason } from './pg.js';

const reason = await pgUnavailableReason();
if (reason) console.warn(`skipping the dropped-connection test: ${reason}`);

describe.skipIf(reason !== null)('PostgreSQL store: a checked-out connection that drops', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: Store & { pool: pg.Pool };
  let admin: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    store = await openPostgresStore({ connectionString: db.url, max: 2, cacheKeys: false });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await store?.close();
    await db?.drop();
  });

  it('is no uncaught error: the held query fails, the store carries on', async () => {
    const held = await store.pool.connect();
    // the store's own listener is what keeps the drop from being thrown (the pool's idle listener is off now)
    expect(held.listenerCount('error')).toBeGreaterThan(0);
    const pid = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const ended = new Promise<void>((resolve) => held.once('end', () => resolve()));
    const emitted: Error[] = [];
    held.on('error', (err) => emitted.push(err));
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;
    // let the 'error' the drop emits be delivered (without a listener it would have been thrown by now)
    await new Promise((resolve) => setImmediate(resolve));
    expect(emitted.map((e) => e.message).join('; ')).toMatch(/terminat/i);
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release(emitted[0]);
    // the pool dropped the dead client: the store's next queries run on a fresh connection
    expect((await store.pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    expect(await store.pool.query('SELECT count(*) FROM accounts')).toBeTruthy();
  });
});
