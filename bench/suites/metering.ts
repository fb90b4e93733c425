// Metering at the spec's volume (999,999 requests per key per rolling 24 h): the cost of a reservation
// with 1,000,000 uses in the key's window against 0 uses, for both stores, in one run:
// - metered POST /api/v1/scan (32x32 PNG) through a real `inkprep serve` child (autocannon, 32 connections);
// - the reserve call itself (sequential store.reserve from this process on the server's store): calls/s and p99.
// Both keys live in the same server and account; the two are measured in alternating rounds (ABBA, the
// median round reported), so a busy machine skews both alike;
// - PostgreSQL only: the pre-v4 reserve function (count of the key's window rows under the account row
//   lock), recreated here as the baseline, at 0 uses and on the same 1M-use key.
// The 1M uses are seeded with one bulk INSERT, spread evenly over the last 24 h (one every 86 ms), so the
// window slides over them as in steady use: each call also expires the uses that left the window.
// The account's daily limit is raised to 2,000,000 so every measured call is admitted.
// PostgreSQL rows are skipped with the reason printed when no server answers.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PG_MIGRATIONS, WINDOW_MS, createApiKey, hashKey, openPostgresStore, openSqliteStore, type Store } from '@inkprep/http';
import type { BenchContext, Row } from '../lib/harness.js';
import { ADMIN_URL, autocannon, benchDatabase, freePort, pgReady, scanBody, serve, stop, type CannonResult } from '../lib/serve-child.js';

const KEY = 'ink_live_' + 'meterbench'.repeat(4);
const USES = 1_000_000;
const SPACING_MS = Math.floor((WINDOW_MS * 0.999) / USES);

/** The pre-v4 PostgreSQL reserve function exactly as migration v2 created it, renamed: the baseline. */
const OLD_PG_RESERVE = PG_MIGRATIONS[1]!.replace('FUNCTION inkprep_reserve(', 'FUNCTION bench_reserve_v1(');

interface Ids { accountId: string; keyId: string }
interface Latency { calls: number; 'calls/s': number; 'mean ms': number; 'p50 ms': number; 'p99 ms': number }

/** The round with the median score (the upper one of an even count). */
function median<T>(rounds: T[], score: (r: T) => number): T {
  return [...rounds].sort((a, b) => score(a) - score(b))[Math.floor(rounds.length / 2)]!;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Time `n` sequential calls of `fn`. */
async function timeCalls(n: number, fn: () => Promise<void>): Promise<Latency> {
  await fn(); // warm (plans, connections)
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  const total = performance.now() - t0;
  ms.sort((a, b) => a - b);
  return { calls: n, 'calls/s': (n * 1000) / total, 'mean ms': total / n, 'p50 ms': quantile(ms, 0.5), 'p99 ms': quantile(ms, 0.99) };
}

function reserveOnce(store: Store, ids: Ids): () => Promise<void> {
  return async () => {
    const r = await store.reserve({ ...ids, endpoint: 'bench', fairUse: null, now: Date.now(), dailyLimit: 2 * USES, fairUseCap: null, monthly: null });
    if (!r.ok) throw new Error(`reservation refused: ${JSON.stringify(r)}`);
  };
}

/** In-window uses of the key (a refused probe: nothing recorded). */
async function usesInWindow(store: Store, ids: Ids): Promise<number> {
  const r = await store.reserve({ ...ids, endpoint: 'probe', fairUse: null, now: Date.now(), dailyLimit: 0, fairUseCap: null, monthly: null });
  return r.ok ? -1 : r.used;
}

/**
 * Add USES confirmed uses to the key, one every SPACING_MS back from now, and count them in its running
 * counts. Oldest first, so rows and index entries are appended (as real traffic writes them).
 */
async function seed(kind: 'sqlite' | 'postgres', where: string, ids: Ids, log: (m: string) => void): Promise<number> {
  const t0 = performance.now();
  const now = Date.now();
  if (kind === 'sqlite') {
    const db = new Database(path.join(where, 'inkprep.db'));
    db.pragma('busy_timeout = 30000');
    db.transaction(() => {
      db.prepare(`INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at, instance_id)
                  WITH RECURSIVE s(k) AS (SELECT ? UNION ALL SELECT k - 1 FROM s WHERE k > 1)
                  SELECT ?, ?, 'scan', NULL, ? - k * ?, NULL FROM s`).run(USES, ids.accountId, ids.keyId, now, SPACING_MS);
      db.prepare('INSERT OR IGNORE INTO key_usage (key_id, total, expired, cursor_at) VALUES (?, 0, 0, 0)').run(ids.keyId);
      db.prepare('UPDATE key_usage SET total = total + ? WHERE key_id = ?').run(USES, ids.keyId);
    }).immediate();
    // Fold the seed into the database file, as time would: readers then do not walk a 1M-row WAL.
    const [cp] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
    log(`sqlite: checkpoint after the seed: busy ${cp!.busy}, ${cp!.checkpointed} of ${cp!.log} WAL pages`);
    db.close();
  } else {
    const c = new pg.Client({ connectionString: where });
    await c.connect();
    try {
      await c.query('BEGIN');
      await c.query(`INSERT INTO usage_events (account_id, key_id, endpoint, fair_use, at) SELECT $1, $2, 'scan', NULL, $3::bigint - k * $4::bigint FROM generate_series($5::int, 1, -1) k`, [ids.accountId, ids.keyId, now, SPACING_MS, USES]);
      await c.query('INSERT INTO key_usage (key_id, total, expired, cursor_at) VALUES ($1, 0, 0, 0) ON CONFLICT DO NOTHING', [ids.keyId]);
      await c.query('UPDATE key_usage SET total = total + $1 WHERE key_id = $2', [USES, ids.keyId]);
      await c.query('COMMIT');
      const t1 = performance.now();
      // As autovacuum would after such an insert (it also gives the baseline its index-only scans).
      await c.query('VACUUM ANALYZE usage_events');
      log(`postgres: insert ${((t1 - t0) / 1000).toFixed(1)} s, vacuum ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    } finally {
      await c.end();
    }
  }
  return (performance.now() - t0) / 1000;
}

export default async function meteringSuite(ctx: BenchContext): Promise<void> {
  const seconds = ctx.short ? 1 : 3;
  const calls = ctx.short ? 200 : 2000;
  const rounds = ctx.short ? 2 : 4;
  const oldCallsAtMillion = ctx.short ? 5 : 20;
  const scan = await scanBody();
  const reason = await pgReady();
  if (reason) ctx.log(`PostgreSQL rows skipped: no server at ${ADMIN_URL} (${reason})`);
  const kinds: ('sqlite' | 'postgres')[] = reason ? ['sqlite'] : ['sqlite', 'postgres'];

  const httpRows: Row[] = [];
  const callRows: Row[] = [];
  for (const kind of kinds) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-meter-'));
    const db = kind === 'postgres' ? await benchDatabase() : null;
    const env: Record<string, string> = { INKPREP_DATA_DIR: dataDir, ...(db ? { DATABASE_URL: db.url } : {}) };
    const port = await freePort();
    const children: ChildProcess[] = [];
    let store: Store | null = null;
    try {
      children.push(await serve(port, KEY, env));
      store = db ? await openPostgresStore({ connectionString: db.url, cacheKeys: false }) : openSqliteStore(dataDir);
      const found = (await store.findKeyByHash(hashKey(KEY)))!;
      const ids = { accountId: found.account.id, keyId: found.key.id };
      await store.updateAccount(ids.accountId, { dailyLimit: 2 * USES });
      await new Promise((r) => setTimeout(r, 200)); // the server's key cache hears of the new limit
      const fresh = await createApiKey(store, ids.accountId, Date.now());
      const idsFresh = { accountId: ids.accountId, keyId: fresh.key.id };
      // Seed with the server stopped (as if the uses had come over the day), then start it again.
      await stop(children.splice(0));
      const seeded = await seed(kind, db ? db.url : dataDir, ids, (m) => ctx.log(m));
      ctx.log(`${kind}: seeded ${USES} uses in ${seeded.toFixed(1)} s`);
      children.push(await serve(port, KEY, env));

      const load = async (key: string): Promise<CannonResult> => {
        const opts = { url: `http://127.0.0.1:${port}/api/v1/scan`, method: 'POST', headers: { 'x-api-key': key, 'content-type': scan.type }, body: scan.body, connections: 32, pipelining: 1 };
        const r = await autocannon({ ...opts, duration: seconds });
        if (r.non2xx > 0 || r.errors + r.timeouts > 0) throw new Error(`${kind}: ${r.non2xx} non-2xx, ${r.errors + r.timeouts} errors`);
        return r;
      };
      const sides = [{ key: fresh.secret, ids: idsFresh }, { key: KEY, ids }];
      for (const side of sides) await autocannon({ url: `http://127.0.0.1:${port}/api/v1/scan`, method: 'POST', headers: { 'x-api-key': side.key, 'content-type': scan.type }, body: scan.body, connections: 32, pipelining: 1, duration: 1 });
      const runs = { http: [[], []] as CannonResult[][], call: [[], []] as Latency[][] };
      for (let round = 0; round < rounds; round++) {
        // ABBA: neither key always goes first.
        for (const i of round % 2 ? [1, 0] : [0, 1]) {
          const side = sides[i]!;
          runs.http[i]!.push(await load(side.key));
          runs.call[i]!.push(await timeCalls(calls, reserveOnce(store, side.ids)));
        }
      }
      const labels: string[] = [];
      for (const [i, side] of sides.entries()) {
        const n = await usesInWindow(store, side.ids);
        const label = i === 0 ? `0 (${n} by the end)` : `${(n / 1e6).toFixed(3)}M`;
        labels.push(label);
        const h = median(runs.http[i]!, (r) => r.requests.total);
        httpRows.push({ store: kind, 'uses in window': label, 'req/s': h.requests.total / seconds, 'p50 ms': h.latency.p50, 'p99 ms': h.latency.p99, rounds: runs.http[i]!.length });
        callRows.push({ store: kind, reserve: 'inkprep_reserve (running counts)', 'uses in window': label, ...median(runs.call[i]!, (c) => c['calls/s']) });
      }
      const measureCalls = async (impl: string, uses: string, n: number, fn: () => Promise<void>): Promise<void> => {
        callRows.push({ store: kind, reserve: impl, 'uses in window': uses, ...(await timeCalls(n, fn)) });
      };
      const label = labels[1]!;

      if (db) {
        // The baseline: the old function on a fresh key, then on the same 1M-use key (inserting a few
        // uncounted rows there, so it runs last).
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        try {
          await c.query(OLD_PG_RESERVE);
          const old = (keyId: string) => async (): Promise<void> => {
            await c.query('SELECT * FROM bench_reserve_v1($1, $2, $3, NULL, $4, $5, $6, NULL, NULL, NULL, NULL)', [ids.accountId, keyId, 'bench', Date.now(), WINDOW_MS, 2 * USES]);
          };
          await measureCalls('before: pre-v4 function (window count)', '0', calls, old('key_bench_fresh'));
          await measureCalls('before: pre-v4 function (window count)', label, oldCallsAtMillion, old(ids.keyId));
        } finally {
          await c.end();
        }
      }
    } finally {
      await store?.close();
      await stop(children);
      rmSync(dataDir, { recursive: true, force: true });
      await db?.drop();
    }
  }

  const ratio = (rows: Row[], key: string, match: (a: Row, b: Row) => boolean): Row[] => rows.map((r) => {
    const base = rows.find((b) => match(b, r) && String(b['uses in window']).startsWith('0'));
    return { ...r, 'x at 0 uses': base ? Number(r[key]) / Number(base[key]) : null };
  });
  ctx.table(`metered POST /api/v1/scan 32x32, ${seconds} s, 32 connections: 0 vs ${USES} uses in the key's window`,
    ratio(httpRows, 'req/s', (a, b) => a.store === b.store));
  ctx.table('reserve call, sequential from this process (x at 0 uses = calls/s ratio)',
    ratio(callRows, 'calls/s', (a, b) => a.store === b.store && a.reserve === b.reserve));
}
