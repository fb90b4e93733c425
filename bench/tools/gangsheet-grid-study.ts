// Study for the gang sheet's nesting grid (docs/benchmarks/gangsheet.md): the bench's two sets laid out by this
// tree's engine and, with GANG_BASELINE=path/to/another/build/internals.js, by a baseline build in the same
// process, interleaved (after, before, after, before): sheet length, ratio to issue 32's bound, layouts' CPU.
// Lengths do not depend on the machine (the work budget decides them, the clock's cap is set out of the way);
// CPU does. `first layout` is time_budget_ms=100 (a budget spent within the first layout): one pass alone.
// Run: node --import tsx bench/tools/gangsheet-grid-study.ts
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import * as after from '@inkprep/engine/internals';
import { readCorpus } from '../../golden/lib/corpus.js';
import { MARGIN, mixedSet, ROLL, roundSet, SPACING } from '../lib/gangsheet-sets.js';

const mixed = mixedSet();
const round = roundSet();

async function raster(file: string): Promise<Raster> {
  const png = await sharp(Buffer.from(readCorpus(file)), { density: 300 }).resize({ width: 1024, height: 1024, fit: 'inside' }).png().toBuffer();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}

type Engine = Pick<typeof after, 'layoutGangsheet' | 'resolveGangsheet' | 'itemShape' | 'NEST_CELLS_PER_IN'>;
const builds: [string, Engine][] = [['after', after]];
if (process.env.GANG_BASELINE) builds.push(['before', (await import(process.env.GANG_BASELINE)) as Engine]);

for (const [name, set] of [['mixed', mixed], ['round and slanted', round]] as const) {
  const rasters = await Promise.all(set.map((s) => raster(s.file)));
  const items = set.map((s, i) => ({ design: i, quantity: s.quantity, width_in: s.widthIn }));
  // issue 32's bound: the ink dilated by the whole spacing over the roll width (measured by the last build given)
  const e0 = builds[builds.length - 1]![1];
  const issueBound = items.reduce((sum, it) => {
    const r = rasters[it.design]!;
    return sum + it.quantity * e0.itemShape(r, it.width_in, (it.width_in * r.height) / r.width, 2 * SPACING).grownSqIn;
  }, 0) / ROLL;
  for (let round = 0; round < 2; round++) {
    for (const [label, e] of builds) {
      for (const budget of [100, 5000]) {
        const opts = e.resolveGangsheet({ items, sheetWidthIn: ROLL, maxLengthIn: 1200, spacingIn: SPACING, marginIn: MARGIN, timeBudgetMs: budget });
        const c = process.cpuUsage();
        const l = e.layoutGangsheet(rasters, opts, 3_600_000);
        const d = process.cpuUsage(c);
        const len = l.sheets[0]!.lengthIn;
        console.log(`${name.padEnd(18)} ${label.padEnd(6)} ${String(1 / e.NEST_CELLS_PER_IN).padEnd(6)} in grid, ${budget === 100 ? 'first layout  ' : 'default budget'}: ${len} in, ${(len / issueBound).toFixed(3)} x issue bound (${issueBound.toFixed(2)} in), utilisation ${l.utilisation}, ${Math.round((d.user + d.system) / 1000)} ms CPU`);
      }
    }
  }
}
