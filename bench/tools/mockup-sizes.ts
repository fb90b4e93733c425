// What a mockup of a colour at a new output size costs, and the sequence a storefront makes (one design on N
// colours x M output sizes), for two builds side by side: each run is a fresh process with an in-thread engine
// (the blanks on disk, not in memory), the builds' runs interleaved (before, after, before, ...) so both see the
// same machine load. Per call wall ms, the process's CPU, its RSS and peak RSS at the end, what its memory cache
// counts, and a SHA-1 of every image (the builds must draw the same pixels).
// Run: node --import tsx bench/tools/mockup-sizes.ts --before CHECKOUT [--after CHECKOUT] [--rounds 3]
//      [--cache-mb 256,128] [--dir GARMENT_CACHE_DIR]
// CHECKOUT: a checkout whose engine/dist is built (default --after: this one).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { readCorpus } from '../../golden/lib/corpus.js';
import { REPO_ROOT } from '../lib/harness.js';

const args = process.argv.slice(2);
function arg(name: string, dflt: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : dflt;
}

/** Single steps: after the first two, each is one new thing for the same customer. */
const STEPS: Array<[string, { color: string; output_size: number }]> = [
  ['first (blank on disk only)', { color: 'navy', output_size: 2000 }],
  ['second, same blank', { color: 'navy', output_size: 2000 }],
  ['new colour', { color: 'red', output_size: 2000 }],
  ['same colour, new output size (1600)', { color: 'navy', output_size: 1600 }],
  ['same colour, another new size (1200)', { color: 'navy', output_size: 1200 }],
];
/** The storefront: every colour at every size, colour by colour, in a fresh process. */
const SHOP_COLOURS = ['black', 'white', 'navy', 'red'];
const SHOP_SIZES = [1200, 1600, 2000];

function kb(field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

interface ChildResult {
  steps: number[];
  /** CPU ms of the process per step (libvips threads included): steadier than wall time on a shared machine. */
  stepsCpu: number[];
  shop: number[];
  shopCpuMs: number;
  rss: number;
  peak: number;
  cachedMb: number;
  hashes: string[];
}

async function child(root: string, cacheMb: number, dir: string): Promise<void> {
  const { createEngine } = (await import(pathToFileURL(path.join(root, 'engine/dist/index.js')).href)) as typeof import('@inkprep/engine');
  const internals = (await import(pathToFileURL(path.join(root, 'engine/dist/internals.js')).href)) as typeof import('@inkprep/engine/internals');
  // The build's own sharp (two copies of libvips in one process do not mix).
  const sharpUrl = pathToFileURL(createRequire(path.join(root, 'engine/package.json')).resolve('sharp')).href;
  const sharp = ((await import(sharpUrl)) as typeof import('sharp')).default;
  const png = new Uint8Array(await sharp(Buffer.from(readCorpus('tw-1f98a-fox.svg')), { density: 150 }).resize(1650).png().toBuffer());
  const engine = createEngine({ threads: 0, garmentCacheDir: dir, memoryCacheMb: cacheMb });
  const base = { style: 'own:classic-tee', placement: 'full-front', fabric: 0.8, format: 'png' } as const;
  const hashes: string[] = [];
  let lastCpu = 0;
  const call = async (o: { color: string; output_size: number }): Promise<number> => {
    const t = performance.now();
    const c0 = process.cpuUsage();
    const r = await engine.mockup(png, { ...base, ...o }, { transfer: false });
    const c = process.cpuUsage(c0);
    const ms = performance.now() - t;
    lastCpu = (c.user + c.system) / 1000;
    hashes.push(createHash('sha1').update(r.data).digest('hex').slice(0, 12));
    return ms;
  };
  const steps: number[] = [];
  const stepsCpu: number[] = [];
  for (const [, o] of STEPS) {
    steps.push(await call(o));
    stepsCpu.push(lastCpu);
  }
  internals.clearGarmentMemory();
  internals.clearMockupDesignCache();
  const shop: number[] = [];
  const c0 = process.cpuUsage();
  for (const color of SHOP_COLOURS) for (const output_size of SHOP_SIZES) shop.push(await call({ color, output_size }));
  const c = process.cpuUsage(c0);
  const cachedMb = Math.round(internals.memoryCacheStats().bytes / 1048576);
  await engine.close();
  const res: ChildResult = { steps, stepsCpu, shop, shopCpuMs: (c.user + c.system) / 1000, rss: kb('VmRSS'), peak: kb('VmHWM'), cachedMb, hashes };
  console.log(JSON.stringify(res));
}

function runChild(root: string, cacheMb: number, dir: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench/tools/mockup-sizes.ts'), '--child', root, '--cache-mb', String(cacheMb), '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'], cwd: REPO_ROOT });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0) reject(new Error(`child exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(line) as ChildResult);
    });
  });
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const sum = (a: number[]) => a.reduce((s, x) => s + x, 0);

async function main(): Promise<void> {
  const dir = arg('dir', path.join(os.tmpdir(), 'inkprep-bench-garments-sizes'));
  if (args.includes('--child')) return child(arg('child', REPO_ROOT), Number(arg('cache-mb', '256')), dir);
  const builds = { before: path.resolve(arg('before', '')), after: path.resolve(arg('after', REPO_ROOT)) };
  const rounds = Number(arg('rounds', '3'));
  const budgets = arg('cache-mb', '256,128').split(',').map(Number);
  // Fill the disk cache of blanks first (a render is 10-40 s; neither build should pay it in the runs).
  await runChild(builds.after, 256, dir);
  const res = new Map<string, ChildResult[]>();
  for (let r = 0; r < rounds; r++) {
    for (const mb of budgets) {
      const order = r % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const);
      for (const b of order) {
        const k = `${b} ${mb}`;
        const x = await runChild(builds[b], mb, dir);
        res.set(k, [...(res.get(k) ?? []), x]);
        console.error(`round ${r + 1} ${k}: shop ${sum(x.shop).toFixed(0)} ms, rss ${x.rss} MB, load ${os.loadavg()[0]!.toFixed(1)}`);
      }
    }
  }
  console.log(`load now ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; ${rounds} rounds; before ${builds.before}, after ${builds.after}`);
  for (const mb of budgets) {
    const bf = res.get(`before ${mb}`)!, af = res.get(`after ${mb}`)!;
    console.log(`\nmemoryCacheMb ${mb}: median of ${rounds} (all runs)`);
    console.log('| step | before | after | after / before |\n|---|--:|--:|--:|');
    const row = (name: string, f: (x: ChildResult) => number, digits = 0) => {
      const b = bf.map(f), a = af.map(f);
      console.log(`| ${name} | ${median(b).toFixed(digits)} (${b.map((x) => x.toFixed(digits)).join(', ')}) | ${median(a).toFixed(digits)} (${a.map((x) => x.toFixed(digits)).join(', ')}) | ${(median(a) / median(b)).toFixed(2)} |`);
    };
    STEPS.forEach(([name], i) => row(`${name}: CPU ms`, (x) => x.stepsCpu[i]!));
    STEPS.forEach(([name], i) => row(`${name}: wall ms`, (x) => x.steps[i]!));
    row(`storefront: ${SHOP_COLOURS.length} colours x ${SHOP_SIZES.length} sizes (${SHOP_SIZES.join(', ')}), total wall`, (x) => sum(x.shop));
    row('storefront: process CPU ms', (x) => x.shopCpuMs);
    row('RSS at the end, MB', (x) => x.rss);
    row('peak RSS, MB', (x) => x.peak);
    row('memory cache counts at the end, MB', (x) => x.cachedMb);
    const same = bf.every((x) => x.hashes.join() === af[0]!.hashes.join()) && af.every((x) => x.hashes.join() === af[0]!.hashes.join());
    console.log(`images identical between builds and runs: ${same ? 'yes' : 'NO'} (${af[0]!.hashes.length} images per run)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
