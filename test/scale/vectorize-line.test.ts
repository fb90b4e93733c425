// One vectorize line for the whole deployment, end to end: real `inkprep serve` processes (and
// `inkprep cluster`) on one PostgreSQL database, called over HTTP. With one slot and max_waiting 8, a
// burst across two processes admits exactly 9 (1 converting + 8 waiting; the rest 429 queue_full with the
// shared snapshot); both processes report the same snapshot while a conversion runs; turns go first come,
// first served across processes; a waiter that disconnects leaves the line; kill -9 of the converting
// process frees the line within the lease. The two-process suite runs twice: on one host (127.0.0.1) and
// with each process in its own network namespace reaching PostgreSQL over a veth link, so nothing relies on
// one host's memory. A conversion is kept running by a large real image (thousands of discs, seconds of
// tracing) and stopped on purpose by disconnecting its client (the engine task is aborted).
// Suites skip, with the reason printed, when PostgreSQL (or, for namespaces, root and `ip`) is missing.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHosts, netnsUnavailableReason, type Hosts } from './netns.js';
import { createTestDatabase, pgUnavailableReason } from './pg.js';
import { discsPng, freePort, postImage, startProc, stopProc, type Proc } from './procs.js';
import { nodeCanSharePort } from '../../adapter-http/src/transport/node.js';
import { loadUws } from '../../adapter-http/src/transport/uws-load.js';

const pgReason = await pgUnavailableReason();
if (pgReason) console.warn(`[vectorize-line] skipped: ${pgReason}`);
const nsReason = pgReason ?? netnsUnavailableReason();
if (!pgReason && nsReason) console.warn(`[vectorize-line] two-host (network namespace) suite skipped: ${nsReason}`);

const KEY = 'ink_live_' + 'VecLine'.repeat(5) + 'Key01';
const MAX_WAITING = 8;
const LEASE_MS = 10_000;
const LINE_ENV = { INKPREP_VECTORIZE_MAX_WAITING: String(MAX_WAITING), INKPREP_VECTORIZE_SLOTS: '1', INKPREP_VECTORIZE_LEASE_MS: String(LEASE_MS) };

interface Snapshot {
  converting: boolean;
  waiting: number;
  max_waiting: number;
}

/** GET /api/v1/vectorize on a new connection each time (so reads through a shared port reach every process). */
function snap(base: string): Promise<Snapshot> {
  return new Promise((resolve, reject) => {
    http.get(`${base}/api/v1/vectorize`, { agent: false, headers: { 'x-api-key': KEY } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET /api/v1/vectorize: ${res.statusCode} ${text}`));
        else resolve((JSON.parse(text) as { queue: Snapshot }).queue);
      });
    }).on('error', reject);
  });
}

/** Wait until `cond` holds, failing after max(`ms`, 60 s): a hang guard only (see MIN_WAIT_MS in test/http/harness.ts). */
async function until(cond: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + Math.max(ms, 60_000);
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let images: { big: Blob; medium: Blob; tiny: Blob } | null = null;
async function art(): Promise<{ big: Blob; medium: Blob; tiny: Blob }> {
  images ??= { big: await discsPng(3000, 9000), medium: await discsPng(400, 150), tiny: await discsPng(48, 3) };
  return images;
}

/** Start a long conversion on `base` and wait until the line (read through `watch`) says converting. */
async function startLong(base: string, watch: string): Promise<{ stop(): Promise<void> }> {
  const ac = new AbortController();
  const done = postImage(base, '/api/v1/vectorize', KEY, (await art()).big, {}, ac.signal).then((r) => r.status, () => null);
  await until(async () => (await snap(watch)).converting, 30_000, 'the long conversion to start');
  return {
    async stop() {
      ac.abort();
      await done;
    },
  };
}

interface Outcome {
  status: number;
  body: Record<string, unknown> | null;
}

function settle(p: Promise<Response>): Promise<Outcome> {
  return p.then(async (r) => ({ status: r.status, body: r.headers.get('content-type')?.startsWith('application/json') ? ((await r.json()) as Record<string, unknown>) : (await r.arrayBuffer(), null) }));
}

/**
 * A burst of 22 vectorize requests: one long conversion first (so the line's state stays put while the
 * burst is answered), then 21 at once spread over `targets`. Returns the statuses, the 429 bodies and
 * snapshots read from every target while the long conversion still runs.
 */
async function burst22(targets: string[]): Promise<{ admitted: number; rejected: Outcome[]; snapshots: Snapshot[] }> {
  const long = await startLong(targets[0]!, targets[targets.length - 1]!);
  const tiny = (await art()).tiny;
  const rest = Array.from({ length: 21 }, (_, i) => settle(postImage(targets[i % targets.length]!, '/api/v1/vectorize', KEY, tiny)));
  const rejected: Outcome[] = [];
  for (const p of rest) void p.then((o) => o.status === 429 && rejected.push(o));
  await until(async () => rejected.length >= 21 - MAX_WAITING, 60_000, `${21 - MAX_WAITING} refusals`);
  const snapshots: Snapshot[] = [];
  for (let i = 0; i < 10; i++) for (const t of targets) snapshots.push(await snap(t));
  await long.stop();
  const outcomes = await Promise.all(rest);
  return { admitted: 1 + outcomes.filter((o) => o.status === 200).length, rejected: outcomes.filter((o) => o.status !== 200), snapshots };
}

const topologies: { name: string; reason: string | null; hosts: number }[] = [
  { name: 'one host', reason: pgReason, hosts: 0 },
  { name: 'two hosts (separate network namespaces, PostgreSQL over veth)', reason: nsReason, hosts: 2 },
];

for (const topo of topologies) {
  describe.skipIf(topo.reason !== null)(`one vectorize line across two serve processes: ${topo.name}`, () => {
    let db: { url: string; drop: () => Promise<void> } | null = null;
    let net: Hosts | null = null;
    const procs: Proc[] = [];
    let a: Proc;
    let b: Proc;

    /** Start a server; in the namespace topology, on host `i`. */
    async function serve(i: number): Promise<Proc> {
      const host = net?.hosts[i];
      const p = await startProc({
        dbUrl: host ? net!.dbUrlFor(host, db!.url) : db!.url, bootstrapKey: KEY, env: LINE_ENV, wrap: host?.wrap, address: host?.address,
      });
      procs.push(p);
      return p;
    }

    beforeAll(async () => {
      db = await createTestDatabase();
      if (topo.hosts > 0) {
        const u = new URL(db.url);
        net = await createHosts(topo.hosts, u.hostname, Number(u.port || 5432));
      }
      a = await serve(0); // first: bootstraps the store
      b = await serve(1);
      await art();
    });

    afterAll(async () => {
      for (const p of procs) await stopProc(p, 'SIGKILL');
      await net?.teardown();
      await db?.drop();
    });

    it('a burst of 22 across both processes admits exactly 9 with one slot and max_waiting 8; the rest get 429 queue_full with the shared snapshot', async () => {
      const r = await burst22([a.base, b.base]);
      expect(r.admitted).toBe(1 + MAX_WAITING);
      expect(r.rejected).toHaveLength(22 - 1 - MAX_WAITING);
      for (const o of r.rejected) {
        expect(o.status).toBe(429);
        expect(o.body).toMatchObject({ code: 'queue_full', queue: { converting: true, waiting: MAX_WAITING, max_waiting: MAX_WAITING } });
      }
      // While the conversion ran, every read from either process agreed.
      expect(r.snapshots).toHaveLength(20);
      for (const s of r.snapshots) expect(s).toEqual({ converting: true, waiting: MAX_WAITING, max_waiting: MAX_WAITING });
      await until(async () => !(await snap(b.base)).converting, 60_000, 'the line to empty');
      expect(await snap(a.base)).toEqual({ converting: false, waiting: 0, max_waiting: MAX_WAITING });
    });

    it('turns go first come, first served across processes; a waiter that disconnects leaves the line for both', async () => {
      const long = await startLong(a.base, b.base);
      const medium = (await art()).medium;
      const joins = [b, a, b, a, b];
      const leaver = 2;
      const ac = new AbortController();
      const order: number[] = [];
      const calls: Promise<number | null>[] = [];
      for (let i = 0; i < joins.length; i++) {
        const call = postImage(joins[i]!.base, '/api/v1/vectorize', KEY, medium, {}, i === leaver ? ac.signal : undefined)
          .then(async (r) => {
            await r.arrayBuffer();
            order.push(i);
            return r.status;
          }, () => null);
        calls.push(call);
        // One at a time, so the order they joined in is known.
        await until(async () => (await snap(a.base)).waiting === i + 1, 30_000, `waiter ${i} to join`);
      }
      ac.abort();
      await until(async () => (await snap(a.base)).waiting === joins.length - 1, 10_000, 'the disconnected waiter to leave');
      expect(await snap(b.base)).toEqual({ converting: true, waiting: joins.length - 1, max_waiting: MAX_WAITING });
      await long.stop();
      const statuses = await Promise.all(calls);
      expect(statuses).toEqual([200, 200, null, 200, 200]);
      expect(order).toEqual([0, 1, 3, 4]);
    });

    it('kill -9 of the converting process frees its slot and its waiting places within the lease', async () => {
      const victim = await serve(0);
      const long = await startLong(victim.base, b.base);
      const tiny = (await art()).tiny;
      const victimWaiter = settle(postImage(victim.base, '/api/v1/vectorize', KEY, tiny)).catch(() => null);
      await until(async () => (await snap(b.base)).waiting === 1, 30_000, 'the victim\'s waiter to join');
      const survivor = settle(postImage(b.base, '/api/v1/vectorize', KEY, tiny));
      await until(async () => (await snap(a.base)).waiting === 2, 30_000, 'the survivor to join');
      const killedAt = Date.now();
      await stopProc(victim, 'SIGKILL');
      const r = await survivor;
      const freedMs = Date.now() - killedAt;
      console.log(`[vectorize-line] ${topo.name}: kill -9 of the converting process -> next waiter served after ${freedMs} ms (lease ${LEASE_MS} ms)`);
      expect(r.status).toBe(200);
      expect(freedMs).toBeLessThan(LEASE_MS);
      expect(await victimWaiter).toBe(null); // its client saw the connection drop
      await long.stop();
      await until(async () => !(await snap(a.base)).converting, 30_000, 'the line to empty');
      expect(await snap(b.base)).toEqual({ converting: false, waiting: 0, max_waiting: MAX_WAITING });
    });
  });
}

// A cluster shares its port: node:http can from Node 22.12; before that (Node 20 on glibc < 2.38, where auto is
// node:http) only uWS can, with INKPREP_HTTP=uws on the trufflesuite build.
const clusterHttp: string | null = nodeCanSharePort() ? (process.env.INKPREP_HTTP ?? 'auto') : loadUws('uws').ok ? 'uws' : null;
if (clusterHttp === null) console.warn(`[vectorize-line] cluster case skipped: Node ${process.version} cannot share a port on node:http and no uWS build loads`);

describe.skipIf(pgReason !== null || clusterHttp === null)('inkprep cluster: its processes share the one line', () => {
  let db: { url: string; drop: () => Promise<void> } | null = null;
  let cluster: Proc | null = null;

  beforeAll(async () => {
    db = await createTestDatabase();
    const port = await freePort();
    cluster = await startProc({ dbUrl: db.url, bootstrapKey: KEY, command: 'cluster', env: { ...LINE_ENV, PORT: String(port), INKPREP_PROCESSES: '2', INKPREP_HTTP: clusterHttp! } });
    await until(async () => (cluster!.stderr().match(/listening on/g) ?? []).length === 2, 60_000, 'both cluster processes to listen');
    await art();
  });

  afterAll(async () => {
    if (cluster) await stopProc(cluster, 'SIGTERM');
    await db?.drop();
  });

  it('a burst of 22 through the shared port admits exactly 9, and every status read says converting while one runs', async () => {
    const r = await burst22([cluster!.base]);
    expect(r.admitted).toBe(1 + MAX_WAITING);
    expect(r.rejected.map((o) => o.status)).toEqual(Array(22 - 1 - MAX_WAITING).fill(429));
    for (const s of r.snapshots) expect(s).toEqual({ converting: true, waiting: MAX_WAITING, max_waiting: MAX_WAITING });
  });
});
