// Scale-out throughput: real `inkprep serve` processes, measured in one run with autocannon in this process:
// - baseline: 1 process on the embedded SQLite store;
// - 1 process on PostgreSQL (DATABASE_URL);
// - 2 processes on PostgreSQL sharing one port (SO_REUSEPORT, as `inkprep cluster` runs them).
// Loads: authenticated GET /api/v1/vectorize (key + live account state from the store) and a small
// metered POST /api/v1/scan (32x32 PNG; one usage reservation in the store per request).
// PostgreSQL rows are skipped with the reason printed when no server answers.
// Note: this machine has 2 cores shared by the load generator, the servers and PostgreSQL, so the
// 2-process figure shows contention as much as scaling; on a larger host each process adds a core.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchContext, Row } from '../lib/harness.js';
import { nodeCanSharePort } from '../../adapter-http/src/transport/node.js';
import { loadUws } from '../../adapter-http/src/transport/uws-load.js';
import { ADMIN_URL, autocannon, benchDatabase, freePort, pgReady, scanBody, serve, stop } from '../lib/serve-child.js';

const KEY = 'ink_live_' + 'scalebench'.repeat(4);

export default async function scaleSuite(ctx: BenchContext): Promise<void> {
  const seconds = ctx.short ? 1 : 4;
  const scan = await scanBody();
  const loads = [
    { name: 'GET /api/v1/vectorize (auth)', method: 'GET', path: '/api/v1/vectorize', headers: { 'x-api-key': KEY } as Record<string, string> },
    { name: 'POST /api/v1/scan 32x32 (metered)', method: 'POST', path: '/api/v1/scan', headers: { 'x-api-key': KEY, 'content-type': scan.type }, body: scan.body },
  ];
  const reason = await pgReady();
  if (reason) ctx.log(`PostgreSQL rows skipped: no server at ${ADMIN_URL} (${reason})`);
  // Processes sharing a port: node:http can from Node 22.12; before that (Node 20 on glibc < 2.38, where auto is
  // node:http) only uWS can, with INKPREP_HTTP=uws on the trufflesuite build, as `inkprep cluster` needs there.
  const sharedHttp: string | null = nodeCanSharePort() ? (process.env.INKPREP_HTTP ?? 'auto') : loadUws('uws').ok ? 'uws' : null;
  if (!reason && sharedHttp === null) ctx.log(`2-process row skipped: Node ${process.version} cannot share a port on node:http and no uWS build loads`);

  const setups: { name: string; processes: number; db: 'sqlite' | 'postgres' }[] = [
    { name: '1 process, SQLite (baseline)', processes: 1, db: 'sqlite' },
    ...(reason ? [] : [
      { name: '1 process, PostgreSQL', processes: 1, db: 'postgres' as const },
      ...(sharedHttp === null ? [] : [{ name: '2 processes, PostgreSQL, one port', processes: 2, db: 'postgres' as const }]),
    ]),
  ];
  const rows: Row[] = [];
  for (const setup of setups) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-scale-'));
    const db = setup.db === 'postgres' ? await benchDatabase() : null;
    const env: Record<string, string> = {
      INKPREP_DATA_DIR: dataDir,
      ...(db ? { DATABASE_URL: db.url } : {}),
      // every row on the same transport, so the rows compare
      ...(sharedHttp !== null ? { INKPREP_HTTP: sharedHttp } : {}),
    };
    const port = await freePort();
    const children: ChildProcess[] = [];
    try {
      // The first process bootstraps the store; the second starts once the account exists.
      // INKPREP_CLUSTER_SLOT marks them as `inkprep cluster`'s processes: only those may share a port.
      // (No slot where no transport can share a port: then only the 1-process rows run.)
      for (let i = 0; i < setup.processes; i++) children.push(await serve(port, KEY, { ...env, ...(sharedHttp !== null ? { INKPREP_CLUSTER_SLOT: String(i) } : {}) }));
      for (const load of loads) {
        const opts = { url: `http://127.0.0.1:${port}${load.path}`, method: load.method, headers: load.headers, ...(load.body ? { body: load.body } : {}), connections: 32, pipelining: 1 };
        await autocannon({ ...opts, duration: 1 }); // warm-up
        const r = await autocannon({ ...opts, duration: seconds });
        rows.push({ setup: setup.name, load: load.name, 'req/s': r.requests.total / seconds, 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99, 'non-2xx': r.non2xx, errors: r.errors + r.timeouts });
      }
    } finally {
      await stop(children);
      rmSync(dataDir, { recursive: true, force: true });
      await db?.drop();
    }
  }
  for (const load of loads) {
    const mine = rows.filter((r) => r.load === load.name);
    const base = Number(mine.find((r) => String(r.setup).includes('baseline'))!['req/s']);
    for (const r of mine) r['x SQLite 1 process'] = Number(r['req/s']) / base;
  }
  ctx.table(`scale-out: ${seconds} s per load, 32 connections, autocannon in the bench process`, rows);
  for (const r of rows) if (Number(r.errors) > 0 || Number(r['non-2xx']) > 0) throw new Error(`${r.setup} / ${r.load}: ${r['non-2xx']} non-2xx, ${r.errors} errors`);
}
