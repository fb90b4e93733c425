// Study of the search over orders alone (nest.ts) on the gang-sheet bench's two sets, for tuning: per set and
// work budget, the sheet length the layout gives, its ratio to issue 32's bound, layouts tried, probes spent and
// CPU. Outlines are made once per set; each line is one call of `nest`. `GANG_LIBS` (comma-separated paths to
// engine internals builds, e.g. a baseline's `engine/dist/internals.js`) runs each build in turn, interleaved,
// for same-run comparisons. Designs are rasterised as the bench does and cached decoded in /tmp.
// Run: node --import tsx bench/tools/gangsheet-nest-study.ts [budget_ms ...]   (GANG_REPEAT=n: rounds)
import { resolve } from 'node:path';
import { corpusRaster as raster } from '../lib/corpus-raster.js';
import { MARGIN, mixedSet, ROLL, roundSet, SPACING } from '../lib/gangsheet-sets.js';

type Lib = typeof import('@inkprep/engine/internals');

const paths = process.env.GANG_LIBS ? process.env.GANG_LIBS.split(',') : ['@inkprep/engine/internals'];
const libs: Lib[] = await Promise.all(paths.map((p) => import(p.startsWith('.') || p.startsWith('/') ? resolve(p) : p) as Promise<Lib>));
const budgets = process.argv.slice(2).map(Number);
const repeat = Number(process.env.GANG_REPEAT ?? 1);
const MAX_LENGTH = 200;
for (const [name, set] of Object.entries({ mixed: mixedSet(), round: roundSet() })) {
  const files = [...new Set(set.map((s) => s.file))];
  const rasters = await Promise.all(files.map(raster));
  const half = SPACING / 2;
  const prepared = libs.map((lib) => {
    const area = lib.nestArea(ROLL, MAX_LENGTH, MARGIN, half);
    const groups = set.map((s, i) => {
      const r = rasters[files.indexOf(s.file)]!;
      const shape = lib.itemShape(r, s.widthIn, (s.widthIn * r.height) / r.width, SPACING);
      const shapes = lib.turnsOf('any').map((t) => lib.turnShape(shape, t)).filter((t) => t.w <= area.cols && t.h <= area.rows);
      return { item: i, quantity: s.quantity, shapes, area: shape.grownSqIn };
    });
    return { lib, area, groups };
  });
  const issue = set.reduce((sum, s) => {
    const r = rasters[files.indexOf(s.file)]!;
    return sum + s.quantity * libs[0]!.itemShape(r, s.widthIn, (s.widthIn * r.height) / r.width, 2 * SPACING).grownSqIn;
  }, 0) / ROLL;
  for (const b of budgets.length ? budgets : [5000]) {
    for (let k = 0; k < repeat; k++) {
      prepared.forEach(({ lib, area, groups }, li) => {
        const cpu0 = process.cpuUsage();
        const r = lib.nest(groups, area, { capMs: 3_600_000, workBudget: b * lib.NEST_PROBES_PER_MS });
        const c = process.cpuUsage(cpu0);
        const origin = MARGIN - half;
        const bottom = Math.max(...r.spots.map((s) => origin + (s.y + s.shape.inkBottom) / lib.NEST_CELLS_PER_IN));
        const len = Math.ceil((bottom + MARGIN) * 100 - 1e-6) / 100;
        console.log(`${name} lib ${li} budget ${b}: ${len.toFixed(2)} in, ${(len / issue).toFixed(3)} x issue bound, ${r.runs} layouts, ${r.work} probes, compaction ${r.compaction ? `${r.compaction.rowsBefore}->${r.compaction.rowsAfter} rows` : 'none'}, CPU ${((c.user + c.system) / 1e6).toFixed(2)} s`);
      });
    }
  }
}
