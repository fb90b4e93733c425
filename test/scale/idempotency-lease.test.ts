// Idempotency claims do not block a key forever (issue #30): a claim is renewed by its process while the
// request runs and lapses when the process stops renewing it (it closed its store, froze or died), after
// which the same request claims the key again; a process on this host that ended (kill -9) frees its
// claims at once. Both stores: two store connections on one SQLite file, and two on one PostgreSQL database
// (skipped with the reason printed when no server answers). The store's public API (openSqliteStore,
// openPostgresStore: store.idempotency) is what the service uses.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore, openSqliteStore, type IdempotencyRequest, type Store } from '@inkprep/http';
import { createTestDatabase, pgUnavailableReason } from './pg.js';

// Long enough that a busy machine delaying a renewal (every lease/3) by a second or two does not lapse it.
const LEASE_MS = 3000;
const STORE_INDEX = fileURLToPath(new URL('../../adapter-http/dist/store/index.js', import.meta.url));

const request = (key: string, now = Date.UTC(2026, 0, 15, 12)): IdempotencyRequest => ({ accountId: 'acc_0000000000000001', key, requestHash: 'h'.repeat(64), now });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A child process that opens the store, claims `key` and then hangs until killed. */
function childClaiming(kind: 'sqlite' | 'postgres', where: string, key: string): Promise<{ kill(): Promise<void> }> {
  const code = `
    const { openSqliteStore, openPostgresStore } = await import(${JSON.stringify(STORE_INDEX)});
    const store = ${kind === 'sqlite' ? `openSqliteStore(${JSON.stringify(where)}, { leaseMs: 600000 })` : `await openPostgresStore({ connectionString: ${JSON.stringify(where)}, leaseMs: 600000, cacheKeys: false })`};
    const r = await store.idempotency.claim(${JSON.stringify(request(key))});
    process.stdout.write(r.kind + '\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => (d.toString().trim() === 'claimed' ? resolve({
      async kill() {
        child.kill('SIGKILL');
        await exited;
      },
    }) : reject(new Error(`child did not claim: ${d.toString()} ${err}`))));
    child.once('exit', (c) => reject(new Error(`child exited ${c}: ${err}`)));
  });
}

function leaseSuite(kind: 'sqlite' | 'postgres', open: () => Promise<{ where: string; openStore: () => Promise<Store>; cleanup: () => Promise<void> } | string>): void {
  describe(`idempotency claims on ${kind}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const c of cleanups.reverse()) await c();
    });

    it('a claim is held while renewed, lapses one lease after its process stops renewing, then the same request claims it', async (ctx) => {
      const env = await open();
      if (typeof env === 'string') {
        console.warn(`skipping idempotency leases on ${kind}: ${env}`);
        return ctx.skip();
      }
      cleanups.push(env.cleanup);
      const [a, b] = [await env.openStore(), await env.openStore()];
      cleanups.push(() => b.close());
      const first = await a.idempotency.claim(request('lease-1'));
      expect(first.kind).toBe('claimed');
      // Renewed every lease/3: still in progress after three leases.
      await sleep(3 * LEASE_MS);
      expect((await b.idempotency.claim(request('lease-1'))).kind).toBe('in_progress');
      // The owner stops renewing (its store closes, as a frozen or lost process would): free after one lease.
      await a.close();
      expect((await b.idempotency.claim(request('lease-1'))).kind).toBe('in_progress');
      await sleep(LEASE_MS * 1.5);
      const again = await b.idempotency.claim(request('lease-1'));
      expect(again.kind).toBe('claimed');
      // Completed: replayed, and the sweep removes it once its 24 hours are over.
      if (again.kind !== 'claimed') return;
      expect(await b.idempotency.complete(again.claim, { status: 200, contentType: 'application/json', headers: { 'X-A': '1' }, body: new TextEncoder().encode('{"ok":true}'), bodyRef: null, expiresAt: null }, null)).toBe(true);
      const replay = await b.idempotency.claim(request('lease-1'));
      expect(replay.kind === 'replay' && Buffer.from(replay.answer.body!).toString()).toBe('{"ok":true}');
      expect((await b.idempotency.sweep(request('x').now + 24 * 3_600_000 + 1)).removed).toBeGreaterThanOrEqual(1);
      expect((await b.idempotency.claim(request('lease-1'))).kind).toBe('claimed');
    }, 120_000);

    it('a process on this host killed while holding a claim frees it at once (its pid is gone)', async (ctx) => {
      const env = await open();
      if (typeof env === 'string') return ctx.skip();
      cleanups.push(env.cleanup);
      const b = await env.openStore();
      cleanups.push(() => b.close());
      const child = await childClaiming(kind, env.where, 'crash-1');
      expect((await b.idempotency.claim(request('crash-1'))).kind).toBe('in_progress'); // its lease is 10 minutes
      await child.kill();
      expect((await b.idempotency.claim(request('crash-1'))).kind).toBe('claimed');
    }, 120_000);
  });
}

leaseSuite('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-idem-lease-'));
  return { where: dir, openStore: async () => openSqliteStore(dir, { leaseMs: LEASE_MS }), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

leaseSuite('postgres', async () => {
  const reason = await pgUnavailableReason();
  if (reason) return reason;
  const db = await createTestDatabase();
  return { where: db.url, openStore: () => openPostgresStore({ connectionString: db.url, leaseMs: LEASE_MS, cacheKeys: false }), cleanup: db.drop };
});
