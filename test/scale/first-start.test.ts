// Concurrent first start: four `inkprep serve` processes started at the same moment on a fresh, empty
// PostgreSQL database with INKPREP_BOOTSTRAP_KEY all come up (migrations under an advisory lock, the first
// account and key created by exactly one of them) and every one of them accepts that key. Process start
// times spread out on a busy machine, so the race itself is also driven in one process: eight stores (own
// pools) on one empty database, and two SQLite stores on one file, bootstrapping at the same instant.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresStorage, bootstrapStore, openPostgresStore, openSqliteStore, type Store } from '@inkprep/http';
import { MAIN } from '../http/serve-process.js';
import { createTestDatabase, pgUnavailableReason } from './pg.js';

const PROCESSES = 4;
const KEY = 'ink_live_first_start_0123456789abcdef';

interface Started {
  child: ChildProcess;
  port: number;
  stderr: () => string;
}

/** Start `inkprep serve` (on PostgreSQL `url`, or SQLite in `dataDir` when null); resolves with its port once it listens, rejects with its stderr if it exits. */
function serve(url: string | null, dataDir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: '0', HOST: '127.0.0.1', INKPREP_DATA_DIR: dataDir, INKPREP_THREADS: '1', INKPREP_WARM_BLANKS: '0', INKPREP_BOOTSTRAP_KEY: KEY,
  };
  if (url) env.DATABASE_URL = url;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    // A hang guard for a very busy machine, not a timing assertion.
    const timer = setTimeout(() => reject(new Error(`serve did not start in 150 s: ${err}`)), 150_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on http:\/\/[^:/\s]+:(\d+)\/api\/v1/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), stderr: () => err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${err}`));
    });
  });
}

const reason = await pgUnavailableReason();
if (reason) console.warn(`skipping the concurrent first start test: ${reason}`);

describe.skipIf(reason !== null)('concurrent first start on an empty PostgreSQL database', () => {
  it(`${PROCESSES} serve processes started at once all come up; one account, one key, accepted by each`, async () => {
    const db = await createTestDatabase();
    const dirs = Array.from({ length: PROCESSES }, () => mkdtempSync(path.join(os.tmpdir(), 'inkprep-first-')));
    const starts = dirs.map((d) => serve(db.url, d));
    const settled = await Promise.allSettled(starts);
    const up = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up'))).toEqual(Array(PROCESSES).fill('up'));
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        expect(Number((await c.query('SELECT count(*) AS n FROM accounts')).rows[0].n)).toBe(1);
        expect(Number((await c.query('SELECT count(*) AS n FROM api_keys')).rows[0].n)).toBe(1);
      } finally {
        await c.end();
      }
      for (const p of up) {
        expect((await fetch(`http://127.0.0.1:${p.port}/readyz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${p.port}/api/v1/vectorize`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
      }
      expect(up.filter((p) => p.stderr().includes('duplicate key'))).toEqual([]);
    } finally {
      await Promise.all(up.map((p) => new Promise<void>((r) => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) return r();
        p.child.once('exit', () => r());
        p.child.kill('SIGTERM');
      })));
      // Any process still starting (a failed run) is stopped too.
      for (const s of starts) void s.then((p) => p.child.kill('SIGTERM'), () => undefined);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await db.drop();
    }
  });
});

/** Bootstrap every store at the same instant; what each got, and the accounts and key ids the store then holds. */
async function raceBootstrap(stores: Store[], key: string | null): Promise<{ created: number; errors: string[]; accounts: number; keys: number }> {
  const now = Date.now();
  const results = await Promise.allSettled(stores.map((s) => bootstrapStore(s, key, now)));
  const accounts = await stores[0]!.listAccounts();
  const keys = (await Promise.all(accounts.map((a) => stores[0]!.listKeys(a.id)))).flat();
  return {
    created: results.filter((r) => r.status === 'fulfilled' && r.value.created).length,
    errors: results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : [])),
    accounts: accounts.length,
    keys: keys.length,
  };
}

describe.skipIf(reason !== null)('bootstrap raced in one process (PostgreSQL)', () => {
  it.each([['INKPREP_BOOTSTRAP_KEY', KEY], ['a random key', null]] as const)('eight stores on one empty database, %s: one account and one key, no error', async (_what, key) => {
    const db = await createTestDatabase();
    const stores: Store[] = [];
    try {
      for (let i = 0; i < 8; i++) stores.push(await openPostgresStore({ connectionString: db.url, max: 1, cacheKeys: false }));
      expect(await raceBootstrap(stores, key)).toEqual({ created: 1, errors: [], accounts: 1, keys: 1 });
    } finally {
      for (const s of stores) await s.close();
      await db.drop();
    }
  });
});

describe.skipIf(reason !== null)('result hosting created raced (PostgreSQL)', () => {
  it('eight processes\' first result writes at once on an empty database all succeed (table creation under a lock)', async () => {
    const db = await createTestDatabase();
    const pools = Array.from({ length: 8 }, () => {
      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      // An idle client cut by the DROP DATABASE ... WITH (FORCE) below must not be an unhandled 'error' (seen once
      // in a busy run of this file: "terminating connection due to administrator command").
      pool.on('error', () => undefined);
      return pool;
    });
    try {
      const writes = await Promise.allSettled(pools.map((pool) => new PostgresStorage({ pool }).put({ bytes: new Uint8Array([1, 2, 3]), contentType: 'image/png' })));
      expect(writes.flatMap((w) => (w.status === 'rejected' ? [String(w.reason)] : []))).toEqual([]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await db.drop();
    }
  });
});

describe('bootstrap raced in one process (SQLite)', () => {
  it('two stores on one new file: one account and one key', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-first-sqlite-'));
    const stores = [openSqliteStore(dir), openSqliteStore(dir)];
    try {
      expect(await raceBootstrap(stores, KEY)).toEqual({ created: 1, errors: [], accounts: 1, keys: 1 });
    } finally {
      for (const s of stores) await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('concurrent first start on a new SQLite data dir', () => {
  it('3 serve processes started at once on one new data dir all come up; one account, one key', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-first-sqlite-'));
    const starts = [0, 1, 2].map(() => serve(null, dir));
    const settled = await Promise.allSettled(starts);
    const up = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up'))).toEqual(['up', 'up', 'up']);
      const store = openSqliteStore(dir);
      try {
        const accounts = await store.listAccounts();
        expect(accounts.length).toBe(1);
        expect((await store.listKeys(accounts[0]!.id)).length).toBe(1);
      } finally {
        await store.close();
      }
      for (const p of up) expect((await fetch(`http://127.0.0.1:${p.port}/api/v1/vectorize`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    } finally {
      await Promise.all(up.map((p) => new Promise<void>((r) => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) return r();
        p.child.once('exit', () => r());
        p.child.kill('SIGTERM');
      })));
      for (const s of starts) void s.then((p) => p.child.kill('SIGTERM'), () => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
