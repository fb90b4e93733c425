// First and second mockup of a blank on an in-thread engine (the blank on disk, not yet in memory): what the
// memory cache saves a customer's second try, and what a new colour or a new output size costs after it.
// Run: node --import tsx bench/tools/mockup-first-second.ts [rounds] [garment cache dir]
import sharp from 'sharp';
import { createEngine } from '@inkprep/engine';
import { clearGarmentMemory, clearMockupDesignCache } from '@inkprep/engine/internals';
import { readCorpus } from '../../golden/lib/corpus.js';

const rounds = Number(process.argv[2] ?? 3);
const dir = process.argv[3];
const png = new Uint8Array(await sharp(Buffer.from(readCorpus('tw-1f98a-fox.svg')), { density: 150 }).resize(1650).png().toBuffer());
const engine = createEngine({ threads: 0, ...(dir ? { garmentCacheDir: dir } : {}) });
const base = { style: 'own:classic-tee', placement: 'full-front', fabric: 0.8, format: 'jpeg' } as const;
const steps: Array<[string, Record<string, unknown>]> = [
  ['first (blank on disk only)', { color: 'navy', output_size: 2000 }],
  ['second, same blank', { color: 'navy', output_size: 2000 }],
  ['new colour', { color: 'red', output_size: 2000 }],
  ['new output size', { color: 'navy', output_size: 1600 }],
];
const ms: number[][] = steps.map(() => []);
for (let r = 0; r < rounds; r++) {
  clearGarmentMemory();
  clearMockupDesignCache();
  for (let i = 0; i < steps.length; i++) {
    const t = performance.now();
    await engine.mockup(png, { ...base, ...steps[i]![1] } as never, { transfer: false });
    ms[i]!.push(performance.now() - t);
  }
}
await engine.close();
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
for (let i = 0; i < steps.length; i++) console.log(`| ${steps[i]![0]} | ${median(ms[i]!).toFixed(0)} | ${ms[i]!.map((x) => x.toFixed(0)).join(', ')} |`);
