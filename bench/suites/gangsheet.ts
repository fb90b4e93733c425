// Gang sheets (issue 32): our sheet length against a bounding-box skyline packer of the same items (the usual
// gang-sheet builder, bench/lib/skyline-packer.ts, given each copy's ink box with transparent edges trimmed: the
// placement box the manifest gives) and against the lower bound, in one run, on two sets made
// from the open corpus:
// - mixed: logos, lettering and illustrations at 2-12 in wide, quantities 1-20 (a fixed pseudo-random draw);
// - round and slanted: discs (balls, doughnut, disc, sun), a round logo, rockets and a shark on the diagonal.
// Lower bound = sum over copies of the ink grown by half the spacing / (roll width - 2 margins + spacing), plus
// the margins: no layout can be shorter (the grown outlines may touch, never overlap). Issue 32's own bound is
// also given: sum over copies of the ink dilated by the whole spacing / roll width (looser: it counts each gap
// twice and no margins), labelled as such. Both packers: 22 in roll,
// 0.125 in spacing, 0.25 in margins, right-angle turns (skyline: 0/90, the boxes being symmetric), one sheet.
// Also the PNG of a 22 x 200 in sheet at 300 DPI: time and peak RSS (strip rendering).
import sharp from 'sharp';
import { createEngine, packDesigns, type GangsheetResult, type Raster } from '@inkprep/engine';
import { itemShape, layoutGangsheet, resolveGangsheet } from '@inkprep/engine/internals';
import type { BenchContext } from '../lib/harness.js';
import { skylineLength } from '../lib/skyline-packer.js';
import { MARGIN, mixedSet, ROLL, roundSet, SPACING } from '../lib/gangsheet-sets.js';
import { readCorpus } from '../../golden/lib/corpus.js';

async function decodeRgba(png: Uint8Array): Promise<Raster> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}

async function rasterise(file: string, px: number): Promise<Uint8Array> {
  return new Uint8Array(await sharp(Buffer.from(readCorpus(file)), { density: 300 }).resize({ width: px, height: px, fit: 'inside' }).png().toBuffer());
}

export default async function gangsheetSuite(ctx: BenchContext): Promise<void> {
  const engine = createEngine({ threads: 0 });
  const px = ctx.short ? 400 : 1024;
  const rows: Record<string, string | number>[] = [];
  let mixedPlan: { designs: Uint8Array[]; items: { design: number; quantity: number; width_in: number }[] } | null = null;
  for (const [name, set] of [['mixed', mixedSet(ctx.short)], ['round and slanted', roundSet(ctx.short)]] as const) {
    const files = [...new Set(set.map((s) => s.file))];
    const designs = await Promise.all(files.map((f) => rasterise(f, px)));
    const items = set.map((s) => ({ design: files.indexOf(s.file), quantity: s.quantity, width_in: s.widthIn }));
    if (name === 'mixed') mixedPlan = { designs, items };
    const rssBefore = process.resourceUsage().maxRSS;
    const t0 = performance.now();
    const out: GangsheetResult = await engine.gangsheet(packDesigns(designs), { items, sheetWidthIn: ROLL, maxLengthIn: 1200, spacingIn: SPACING, marginIn: MARGIN, format: 'json' });
    const ms = performance.now() - t0;
    // the same layout with the clock's cap out of the way: what the default work budget gives on any machine
    // (the call above is the API's, whose 5 s cap a machine this loaded can hit); CPU time, not wall time
    const rasters = await Promise.all(designs.map(decodeRgba));
    const cpu0 = process.cpuUsage();
    const l = layoutGangsheet(rasters, resolveGangsheet({ items, sheetWidthIn: ROLL, maxLengthIn: 1200, spacingIn: SPACING, marginIn: MARGIN }), 3_600_000);
    const cpu = process.cpuUsage(cpu0);
    const api = out.layout;
    // the same copies to the skyline packer, each as the box of its ink (transparent edges trimmed, as
    // builders do), at its print size: the art each item places, unturned
    const boxes = l.placements.map((p) => ({ w: l.items[p.item]!.art.widthIn, h: l.items[p.item]!.art.heightIn }));
    const t1 = performance.now();
    const sky = skylineLength(boxes, ROLL, SPACING, MARGIN, true);
    const skyMs = performance.now() - t1;
    const lower = l.grownSqIn / (ROLL - 2 * MARGIN + SPACING) + 2 * MARGIN;
    // issue 32's definition: the ink dilated by the whole spacing, over the roll width
    const dilated = items.reduce((sum, it) => {
      const r = rasters[it.design]!;
      return sum + it.quantity * itemShape(r, it.width_in, (it.width_in * r.height) / r.width, 2 * SPACING).grownSqIn;
    }, 0);
    const issueLower = dilated / ROLL;
    const ours = l.sheets[0]!.lengthIn;
    const copies = l.placements.length;
    const row = {
      set: name, designs: files.length, items: items.length, copies,
      'ours in': ours, 'skyline in': Math.round(sky * 100) / 100, 'lower bound in': Math.round(lower * 100) / 100,
      'issue bound in': Math.round(issueLower * 100) / 100,
      'ours / skyline': Math.round((ours / sky) * 1000) / 1000, 'ours / lower bound': Math.round((ours / lower) * 1000) / 1000,
      'ours / issue bound': Math.round((ours / issueLower) * 1000) / 1000,
      'utilisation ours': l.utilisation, 'utilisation skyline': Math.round((l.inkSqIn / (ROLL * sky)) * 1000) / 1000,
      'ours CPU ms': Math.round((cpu.user + cpu.system) / 1000), 'API call in': api.sheets[0]!.lengthIn, 'API call ms': Math.round(ms), 'API call capped': String(api.searchCapped), 'skyline ms': Math.round(skyMs * 10) / 10, 'API call fast placed': api.fastPlaced,
      'peak RSS MB': Math.round(Math.max(rssBefore, process.resourceUsage().maxRSS) / 1024),
    };
    rows.push(row);
    ctx.log(`${name}: ${copies} copies; ours ${ours} in, skyline ${row['skyline in']} in, lower bound ${row['lower bound in']} in (issue's: ${row['issue bound in']} in); ${row['ours CPU ms']} ms CPU; the API call (5 s cap): ${api.sheets[0]!.lengthIn} in in ${Math.round(ms)} ms, capped by the clock: ${api.searchCapped}, ${api.fastPlaced} copies by the fast path`);
    if (process.env.BENCH_GANG_PNG) {
      // the sheet itself, to look at (BENCH_GANG_PNG=dir): 20 DPI is enough to see the nesting
      const png = await engine.gangsheet(packDesigns(designs), { items, sheetWidthIn: ROLL, maxLengthIn: 1200, spacingIn: SPACING, marginIn: MARGIN, format: 'png' });
      const file = `${process.env.BENCH_GANG_PNG}/gangsheet-${name.split(' ')[0]}.png`;
      await sharp(png.data, { limitInputPixels: false }).flatten({ background: '#d0d0d0' }).resize({ width: ROLL * 20 }).png().toFile(file);
      ctx.log(`${name}: sheet rendered to ${file}`);
    }
  }
  ctx.table('gang sheet length on a 22 in roll (0.125 in spacing, 0.25 in margins): ours vs bounding-box skyline vs lower bound', rows);

  // PNG of a long sheet at 300 DPI, rendered in strips: the mixed set's designs repeated until the sheet is long
  if (mixedPlan) {
    const targetIn = ctx.short ? 30 : 200;
    const scale = ctx.short ? 1 : 4;
    const items = mixedPlan.items.map((it) => ({ ...it, quantity: Math.min(40, it.quantity * scale) }));
    const layoutOnly = await engine.gangsheet(packDesigns(mixedPlan.designs), { items, sheetWidthIn: ROLL, maxLengthIn: targetIn, spacingIn: SPACING, marginIn: MARGIN, format: 'json' });
    const first = layoutOnly.layout.sheets[0]!;
    const rss0 = process.resourceUsage().maxRSS;
    const t0 = performance.now();
    const png = await engine.gangsheet(packDesigns(mixedPlan.designs), { items, sheetWidthIn: ROLL, maxLengthIn: targetIn, spacingIn: SPACING, marginIn: MARGIN, format: 'png' });
    const ms = performance.now() - t0;
    const rss1 = process.resourceUsage().maxRSS;
    ctx.table('PNG of the first sheet (strip rendering)', [{
      'sheet in': `${ROLL} x ${first.lengthIn}`, dpi: png.pngDpi ?? 0, 'megapixels': Math.round((ROLL * first.lengthIn * (png.pngDpi ?? 0) ** 2) / 1e6),
      'PNG MB': Math.round((png.data.byteLength / 2 ** 20) * 10) / 10, 'ms (nest + render)': Math.round(ms),
      'peak RSS before MB': Math.round(rss0 / 1024), 'peak RSS after MB': Math.round(rss1 / 1024),
    }]);
  }
  await engine.close();
}
