// Underbase before/after (docs/benchmarks/underbase.md): the plates and both checks (computePlates, thinWhite,
// narrowKnockouts, what the op and the gang sheet's white layer run per design) by this tree's engine and by a
// baseline engine, each in a fresh process, interleaved (after, before, after, before, ...), so CPU and peak
// RSS come from the same run on the same machine. The art is corpus SVG rendered once per size and handed to
// the children as raw RGBA; each child reports CPU per call (after one uncounted warm-up call), its peak RSS over the pixels already loaded, and
// a hash of the plates and checks, which must agree (the speed work may not change the output).
// Baseline: UB_BASELINE=path/to/engine/src/internals.ts (e.g. `git archive <ref> engine | tar -x -C .cache/ub-base`).
// Run: UB_BASELINE=.cache/ub-base/engine/src/internals.ts node --import tsx bench/tools/underbase-speed-ab.ts [rounds]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { readCorpus } from '../../golden/lib/corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const AFTER = path.resolve(HERE, '../../engine/src/internals.ts');
const CACHE = path.resolve(HERE, '../../.cache/underbase-ab');
const ARTS = [
  { file: 'noto-1f3c0-basketball.svg', garment: '#1b1b1d', size: 3000, inches: 10 },
  { file: 'noto-1f3c0-basketball.svg', garment: '#1b1b1d', size: 1500, inches: 10 },
  { file: 'lettering-good-vibes.svg', garment: '#f6f6f3', size: 3000, inches: 10 },
] as const;
const CALLS = 3;

interface ChildResult { cpuMs: number; peakMb: number; hash: string }

async function child(engineFile: string, rawFile: string, garment: string, inches: number): Promise<void> {
  const [w, h] = path.basename(rawFile, '.rgba').split('x').map(Number) as [number, number];
  const pixels = new Uint8ClampedArray(readFileSync(rawFile));
  const e = await import(pathToFileURL(engineFile).href) as typeof import('../../engine/src/internals.js');
  const o = e.resolveUnderbase({ garmentColor: garment, printWidthInches: inches });
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let hash = '';
  let cpu0 = process.cpuUsage();
  // the first call warms the compiler and is not counted in the CPU (its memory is: the peak is the process's)
  for (let k = 0; k <= CALLS; k++) {
    if (k === 1) cpu0 = process.cpuUsage();
    const p = e.computePlates({ width: w, height: h, data: pixels }, o);
    const checks = JSON.stringify({ t: e.thinWhite(p), g: e.narrowKnockouts(p) });
    hash = createHash('sha256').update(p.white).update(p.colour.data).update(p.classes).update(checks).digest('hex').slice(0, 16);
  }
  const cpu = process.cpuUsage(cpu0);
  const peak = process.resourceUsage().maxRSS * 1024;
  const r: ChildResult = { cpuMs: (cpu.user + cpu.system) / 1000 / CALLS, peakMb: (peak - rssBefore) / 1e6, hash };
  process.stdout.write(JSON.stringify(r));
}

async function main(): Promise<void> {
  const base = process.env.UB_BASELINE;
  if (!base) throw new Error('set UB_BASELINE to the baseline engine/src/internals.ts');
  const rounds = Number(process.argv[2] ?? 3);
  mkdirSync(CACHE, { recursive: true });
  for (const a of ARTS) {
    const svg = Buffer.from(readCorpus(a.file));
    const meta = await sharp(svg).metadata();
    const density = Math.min(2400, (72 * a.size) / Math.max(meta.width ?? a.size, meta.height ?? a.size));
    const { data, info } = await sharp(svg, { density }).resize(a.size, a.size, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = path.join(CACHE, `${info.width}x${info.height}.rgba`);
    writeFileSync(raw, data);
    const runs: Record<'after' | 'before', ChildResult[]> = { after: [], before: [] };
    for (let r = 0; r < rounds; r++) {
      for (const [which, file] of [['after', AFTER], ['before', path.resolve(base)]] as const) {
        const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), 'child', file, raw, a.garment, String(a.inches)], { encoding: 'utf8' });
        runs[which].push(JSON.parse(out) as ChildResult);
      }
    }
    const med = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)]!;
    const s = (which: 'after' | 'before') => ({ cpu: med(runs[which].map((x) => x.cpuMs)), peak: med(runs[which].map((x) => x.peakMb)) });
    const [A, B] = [s('after'), s('before')];
    const hashes = new Set([...runs.after, ...runs.before].map((x) => x.hash));
    console.log(`${a.file} ${info.width}x${info.height} on ${a.garment} (median of ${rounds}, CPU per call): before ${B.cpu.toFixed(0)} ms, ${B.peak.toFixed(1)} MB peak over loaded; after ${A.cpu.toFixed(0)} ms, ${A.peak.toFixed(1)} MB; CPU x${(B.cpu / A.cpu).toFixed(2)} faster, peak ${(A.peak / B.peak).toFixed(2)} of before; output ${hashes.size === 1 ? 'identical' : 'DIFFERS'} (${[...hashes].join(', ')})`);
  }
}

if (process.argv[2] === 'child') await child(process.argv[3]!, process.argv[4]!, process.argv[5]!, Number(process.argv[6]));
else await main();
