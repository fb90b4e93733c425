// An idempotent answer and its request's use commit together (issue #30): store.idempotency.complete(claim,
// answer, use) confirms the use and stores the answer in one transaction, so a process that dies, or a store
// that refuses the answer, can never leave a use counted whose answer a retry would not find (the retry
// would run and be counted again). Both stores, through their public API: a SQLite file and a PostgreSQL
// database (skipped with the reason printed when no server answers). The refusal is a trigger on the answer
// write, the way a full disk or a constraint would refuse it. Then the same through the HTTP API: a keyed
// POST whose answer the store refuses still gets its 200, is not counted, and its retry runs again and is
// counted once; without the fault the retry is replayed and the use counted once.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '@inkprep/engine';
import {
  ClaimRenewal, ROUTES, createApiKey, createLogger, defaultConfig, openPostgresStore, openSqliteStore, startServer,
  type IdempotencyClaim, type InkprepServer, type ReservedUse, type StoredAnswer, type Store,
} from '@inkprep/http';
import { createTestDatabase, pgUnavailableReason } from './pg.js';
import { form, tinyPng } from '../http/harness.js';

const answer = (text: string): StoredAnswer => ({ status: 200, contentType: 'application/json', headers: { 'X-A': '1' }, body: new TextEncoder().encode(text), bodyRef: null, expiresAt: null });

interface Backend {
  open(): Promise<Store>;
  /** Make every answer write fail (true) or succeed again (false), as the database's own refusal. */
  refuseAnswers(on: boolean): Promise<void>;
  cleanup(): Promise<void>;
}

/** An account, a key and one reserved (pending) use of it. */
async function reserved(store: Store): Promise<{ use: ReservedUse; accountId: string }> {
  const a = await store.createAccount({ name: 'commit', plan: 'business', now: Date.now() });
  const { key } = await createApiKey(store, a.id, Date.now());
  const now = Date.now();
  const r = await store.reserve({ accountId: a.id, keyId: key.id, endpoint: 'scan', fairUse: null, now, dailyLimit: 100, fairUseCap: null, monthly: null });
  if (!r.ok) throw new Error('not admitted');
  return { use: { eventId: r.eventId, accountId: a.id, keyId: key.id, endpoint: 'scan', fairUse: null, at: now }, accountId: a.id };
}

async function claimed(store: Store, accountId: string, key: string): Promise<IdempotencyClaim> {
  const c = await store.idempotency.claim({ accountId, key, requestHash: 'h'.repeat(64), now: Date.now() });
  if (c.kind !== 'claimed') throw new Error(`expected a claim, got ${c.kind}`);
  return c.claim;
}

/** The uses of an account: counted (any), and still pending (released here to count them: the store's own settle call). */
async function uses(store: Store, accountId: string): Promise<{ counted: number; pending: number }> {
  const pending = await store.releaseOwnPending(new Set(), Date.now() + 1);
  const u = await store.usage(accountId, Date.now() + 1, 0);
  return { counted: u.perEndpoint.scan ?? 0, pending };
}

function contract(name: string, backend: () => Promise<Backend | string>): void {
  describe(name, () => {
    let b: Backend | null = null;
    let store: Store | null = null;
    afterAll(async () => {
      await store?.close();
      await b?.cleanup();
    });
    const setup = async (): Promise<{ store: Store; b: Backend } | null> => {
      if (store && b) return { store, b };
      const got = await backend();
      if (typeof got === 'string') {
        console.warn(`[idempotent-commit] ${name} skipped: ${got}`);
        return null;
      }
      b = got;
      store = await got.open();
      return { store, b };
    };

    it('complete(claim, answer, use): the use is confirmed and the answer replayed, together', async () => {
      const s = await setup();
      if (!s) return;
      const { use, accountId } = await reserved(s.store);
      const claim = await claimed(s.store, accountId, 'both');
      expect(await s.store.idempotency.complete(claim, answer('{"n":1}'), use)).toBe(true);
      expect(await uses(s.store, accountId)).toEqual({ counted: 1, pending: 0 });
      const again = await s.store.idempotency.claim({ accountId, key: 'both', requestHash: 'h'.repeat(64), now: Date.now() });
      expect(again.kind).toBe('replay');
      // Run again after an ambiguous commit (its answer lost): nothing changes, the use counts once.
      expect(await s.store.idempotency.complete(claim, answer('{"n":1}'), use)).toBe(false);
      expect(await uses(s.store, accountId)).toEqual({ counted: 1, pending: 0 });
    });

    it('an answer the store refuses: neither happens (the use stays pending, the key still claimed, then free once abandoned)', async () => {
      const s = await setup();
      if (!s) return;
      const { use, accountId } = await reserved(s.store);
      const claim = await claimed(s.store, accountId, 'refused');
      await s.b.refuseAnswers(true);
      try {
        await expect(s.store.idempotency.complete(claim, answer('{"n":2}'), use)).rejects.toThrow(/injected answer write failure/);
      } finally {
        await s.b.refuseAnswers(false);
      }
      const running = await s.store.idempotency.claim({ accountId, key: 'refused', requestHash: 'h'.repeat(64), now: Date.now() });
      expect(running.kind).toBe('in_progress');
      // The use was not confirmed: it is still pending, released by the settle call, so it is not counted.
      expect(await uses(s.store, accountId)).toEqual({ counted: 0, pending: 1 });
      await s.store.idempotency.abandon(claim);
      expect((await s.store.idempotency.claim({ accountId, key: 'refused', requestHash: 'h'.repeat(64), now: Date.now() })).kind).toBe('claimed');
    });

    it('a claim taken over meanwhile: the answer is not stored, the use is still confirmed (the work succeeded)', async () => {
      const s = await setup();
      if (!s) return;
      const { use, accountId } = await reserved(s.store);
      const claim = await claimed(s.store, accountId, 'lost');
      const stale: IdempotencyClaim = { ...claim, token: 'not-this-claim' };
      expect(await s.store.idempotency.complete(stale, answer('{"n":3}'), use)).toBe(false);
      expect(await uses(s.store, accountId)).toEqual({ counted: 1, pending: 0 });
      await s.store.idempotency.abandon(claim);
    });
  });
}

contract('SQLite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-commit-'));
  const side = (): Database.Database => new Database(path.join(dir, 'inkprep.db'));
  return {
    open: async () => openSqliteStore(dir),
    async refuseAnswers(on) {
      const db = side();
      try {
        db.exec(on
          ? "CREATE TRIGGER test_refuse BEFORE UPDATE OF status ON idempotency_keys WHEN NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'injected answer write failure'); END;"
          : 'DROP TRIGGER IF EXISTS test_refuse');
      } finally {
        db.close();
      }
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

contract('PostgreSQL', async () => {
  const why = await pgUnavailableReason();
  if (why) return why;
  const db = await createTestDatabase();
  const direct = new pg.Client({ connectionString: db.url });
  await direct.connect();
  return {
    open: () => openPostgresStore({ connectionString: db.url, max: 2, cacheKeys: false }),
    async refuseAnswers(on) {
      if (on) {
        await direct.query("CREATE OR REPLACE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected answer write failure'; END $$");
        await direct.query('CREATE TRIGGER test_refuse BEFORE UPDATE ON idempotency_keys FOR EACH ROW WHEN (NEW.status IS NOT NULL) EXECUTE FUNCTION test_refuse()');
      } else {
        await direct.query('DROP TRIGGER IF EXISTS test_refuse ON idempotency_keys');
      }
    },
    async cleanup() {
      await direct.end();
      await db.drop();
    },
  };
});

describe('lease renewal, held per claim', () => {
  it('a claim dropped twice (stored, then abandoned after a failure) never stops the renewal of another; none held: no renewal', async () => {
    const seen: string[][] = [];
    const r = new ClaimRenewal(10, (tokens) => seen.push([...tokens]));
    try {
      r.hold('a');
      r.hold('b');
      r.drop('a');
      r.drop('a');
      const end = Date.now() + 30_000;
      while (seen.length < 2 && Date.now() < end) await new Promise((res) => setTimeout(res, 10));
      expect(seen.at(-1)).toEqual(['b']);
      r.drop('b');
      const n = seen.length;
      await new Promise((res) => setTimeout(res, 100));
      expect(seen.length).toBe(n);
    } finally {
      r.stop();
    }
  });
});

describe('through the API (SQLite file store): the answer refused by the store', () => {
  it('the POST still gets its 200 but is not counted; its retry runs again and is counted once; without the fault a retry is replayed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-commit-http-'));
    const store = openSqliteStore(dir);
    const engine = createEngine({ threads: 1 });
    const logs: Record<string, unknown>[] = [];
    let server: InkprepServer | null = null;
    const side = new Database(path.join(dir, 'inkprep.db'));
    try {
      const account = await store.createAccount({ name: 'commit-http', plan: 'business', now: Date.now() });
      const { secret } = await createApiKey(store, account.id, Date.now());
      server = await startServer({
        config: defaultConfig({ dataDir: dir, threads: 1 }), store, engine, routes: ROUTES,
        log: createLogger('info', (l) => logs.push(JSON.parse(l) as Record<string, unknown>)),
      });
      const base = `http://127.0.0.1:${server.port}`;
      const png = await tinyPng();
      const scan = async (idemKey: string): Promise<{ status: number; replayed: string | null; body: string }> => {
        const r = await fetch(`${base}/api/v1/scan`, { method: 'POST', headers: { 'x-api-key': secret, 'Idempotency-Key': idemKey }, body: form(png) });
        return { status: r.status, replayed: r.headers.get('idempotent-replayed'), body: await r.text() };
      };
      const counted = async (): Promise<number> => (await store.usage(account.id, Date.now() + 1, 0)).perEndpoint.scan ?? 0;

      side.exec("CREATE TRIGGER test_refuse BEFORE UPDATE OF status ON idempotency_keys WHEN NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'injected answer write failure'); END;");
      const first = await scan('refused-1');
      expect(first.status).toBe(200);
      expect(first.replayed).toBeNull();
      expect(logs.some((l) => l.level === 'error' && String(l.msg).startsWith('storing an idempotent answer with its usage confirmation failed'))).toBe(true);
      // Released after the request (just after the reply): not counted, the customer got the answer uncharged.
      const end = Date.now() + 30_000;
      while ((await counted()) !== 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(await counted()).toBe(0);
      side.exec('DROP TRIGGER test_refuse');
      // The key was freed: the retry runs (not a replay) and is counted, once.
      const retry = await scan('refused-1');
      expect(retry).toMatchObject({ status: 200, replayed: null, body: first.body });
      expect(await counted()).toBe(1);
      // From now on the answer is stored with the use: a second retry is replayed, nothing more counted.
      const replay = await scan('refused-1');
      expect(replay).toMatchObject({ status: 200, replayed: 'true', body: first.body });
      expect(await counted()).toBe(1);
    } finally {
      side.close();
      await server?.close(5_000);
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
