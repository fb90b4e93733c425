// Study of the nester on the gang-sheet bench's two sets (bench/suites/gangsheet.ts), for tuning: per budget,
// the sheet length, its ratio to issue 32's bound, CPU time and what compaction did. Designs are rasterised
// as the bench does (1024 px) and cached decoded in /tmp.
// Run: node --import tsx bench/tools/gangsheet-study.ts [budget_ms ...]   (BENCH_GANG_PNG=dir: the sheets' masks)
import sharp from 'sharp';
import { cropRaster, itemShape, layoutGangsheet, resolveGangsheet } from '@inkprep/engine/internals';
import { corpusRaster as raster } from '../lib/corpus-raster.js';
import { MARGIN, mixedSet, ROLL, roundSet, SPACING } from '../lib/gangsheet-sets.js';

const sets = { mixed: mixedSet(), round: roundSet() };

const budgets = process.argv.slice(2).map(Number);
for (const [name, set] of Object.entries(sets)) {
  const files = [...new Set(set.map((s) => s.file))];
  const rasters = await Promise.all(files.map(raster));
  const items = set.map((s) => ({ design: files.indexOf(s.file), quantity: s.quantity, width_in: s.widthIn }));
  const issue = items.reduce((sum, it) => {
    const r = rasters[it.design]!;
    return sum + it.quantity * itemShape(r, it.width_in, (it.width_in * r.height) / r.width, 2 * SPACING).grownSqIn;
  }, 0) / ROLL;
  for (const b of budgets.length ? budgets : [5000]) {
    const cpu0 = process.cpuUsage();
    const l = layoutGangsheet(rasters, resolveGangsheet({ items, sheetWidthIn: ROLL, maxLengthIn: 1200, spacingIn: SPACING, marginIn: MARGIN, timeBudgetMs: b }), 3_600_000);
    const c = process.cpuUsage(cpu0);
    const len = l.sheets[0]!.lengthIn;
    if (process.env.BENCH_GANG_PNG) {
      // the sheet at 20 px per inch: each copy's art resized and turned as placed
      const PX = 20;
      const layers = await Promise.all(l.placements.filter((p) => p.sheet === 0).map(async (p) => {
        const r = cropRaster(rasters[p.design]!, l.items[p.item]!.art.px); // the art the box holds: the file cut to its ink
        const quarter = p.rotation === 90 || p.rotation === 270;
        const [w, h] = quarter ? [p.heightIn, p.widthIn] : [p.widthIn, p.heightIn];
        const art = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } })
          .resize(Math.max(1, Math.round(w * PX)), Math.max(1, Math.round(h * PX)), { fit: 'fill' }).rotate(p.rotation).png().toBuffer();
        return { input: art, left: Math.round(p.xIn * PX), top: Math.round(p.yIn * PX) };
      }));
      const file = `${process.env.BENCH_GANG_PNG}/study-${name}-${b}.png`;
      await sharp({ create: { width: ROLL * PX, height: Math.ceil(len * PX), channels: 4, background: '#d0d0d0' } }).composite(layers).png().toFile(file);
      console.log(`${name}: ${file}`);
    }
    console.log(`${name} budget ${b}: ${len} in, ${(len / issue).toFixed(3)} x issue bound (${issue.toFixed(2)}), util ${l.utilisation}, CPU ${((c.user + c.system) / 1e6).toFixed(2)} s, capped ${l.searchCapped}, rss ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
  }
}
