// Scan and fix speed, with the decode of the same file as baseline (scan = decode + analysis, so the
// ratio says what the analysis adds), plus halftone accuracy numbers.
// - Input: corpus art (noto lion) rendered at 4000x4000 with a soft glow, as PNG (short mode: 2000x2000).
// - scan: engine.scan in-thread vs decodeImage of the same bytes; scanRaster alone (analysis only).
// - fix: halftone, alpha threshold, despeckle+trim, resize to half width; baseline decode + encodePng.
// - halftone accuracy: measured dot pitch vs dpi/lpi, coverage of a uniform 50 % alpha patch.
import sharp from 'sharp';
import { createEngine, type Raster } from '@inkprep/engine';
import { decodeImage, encodePng, halftoneRaster, labelRuns, scanRaster } from '@inkprep/engine/internals';
import type { BenchContext, Row } from '../lib/harness.js';
import { readCorpus } from '../../golden/lib/corpus.js';

async function glowingArt(size: number): Promise<Uint8Array> {
  const svg = Buffer.from(readCorpus('noto-1f981-lion.svg'));
  const margin = Math.round(size * 0.1);
  const art = await sharp(svg, { density: (72 * size) / 128 })
    .resize(size - 2 * margin, size - 2 * margin, { fit: 'inside' })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: art.info.width, height: art.info.height, channels: 4 as const } };
  const glow = await sharp(art.data, raw).blur(size / 100).raw().toBuffer();
  const out = await sharp(glow, raw).composite([{ input: art.data, raw: raw.raw }]).png().toBuffer();
  return new Uint8Array(out);
}

function patch(size: number, alpha: number): Raster {
  const data = new Uint8ClampedArray(size * size * 4);
  for (let i = 0; i < data.length; i += 4) data.set([40, 120, 200, alpha], i);
  return { width: size, height: size, data };
}

function halftoneAccuracy(lpi: number, dpi: number): Row {
  const cell = dpi / lpi;
  const size = Math.round(cell * 30);
  const half = patch(size, 128);
  halftoneRaster(half, { lpi, dpi });
  let on = 0;
  for (let i = 3; i < half.data.length; i += 4) if (half.data[i] === 255) on++;
  // ~35 %: above the minimum printable dot at every row below, so every cell has a dot (lighter tones
  // thin the dots out by design, which would measure the dither, not the screen)
  const dots = patch(size, 90);
  halftoneRaster(dots, { lpi, dpi });
  const cc = labelRuns({ data: dots.data, width: size, height: size, stride: 4, offset: 3, min: 255 });
  const c: Array<[number, number]> = [];
  for (let k = 0; k < cc.count; k++) if (!cc.touchesBorder[k]) c.push([cc.sumX[k]! / cc.area[k]!, cc.sumY[k]! / cc.area[k]!]);
  // distances to the first ring of neighbours (0.6-1.4 cells): dots are snapped to whole pixels, so each
  // distance is off by up to a pixel and the nearest one is biased low; the median of the ring is not
  const nn: number[] = [];
  for (let i = 0; i < c.length; i++) {
    for (let j = 0; j < c.length; j++) {
      const d = Math.hypot(c[i]![0] - c[j]![0], c[i]![1] - c[j]![1]);
      if (j !== i && d > 0.6 * cell && d < 1.4 * cell) nn.push(d);
    }
  }
  nn.sort((a, b) => a - b);
  const pitch = nn[nn.length >> 1]!;
  return { lpi, dpi, 'cell px': cell, 'measured pitch px': pitch, 'pitch error %': (Math.abs(pitch - cell) / cell) * 100, '50% patch coverage %': (on / (size * size)) * 100, dots: c.length };
}

export default async function scanSuite(ctx: BenchContext): Promise<void> {
  const size = ctx.short ? 2000 : 4000;
  const bytes = await glowingArt(size);
  ctx.log(`fixture: noto lion with glow, ${size}x${size} PNG, ${(bytes.length / 1e6).toFixed(2)} MB`);
  const engine = createEngine({ threads: 0 });
  const { raster, info } = await decodeImage(bytes);
  const report = scanRaster({ raster, info, printWidthInches: 12 });
  ctx.log(`scan says: rim ${report.alpha.softRimPx} px, recommended ${report.transparencyFix.recommended}, edge ${report.edgeQuality}, issues ${report.issues.map((i) => i.code).join(',')}`);

  const b = ctx.bench(`scan ${size}x${size} PNG`, { iterations: 6, time: 3000 });
  b.add('baseline: decodeImage', async () => {
    await decodeImage(bytes);
  });
  b.add('engine.scan (decode + analysis)', async () => {
    await engine.scan(bytes);
  });
  b.add('scanRaster (analysis only)', () => {
    scanRaster({ raster, info, printWidthInches: 12 });
  });
  await ctx.runBench(b, { baseline: 'baseline: decodeImage' });

  // CPU time (process.cpuUsage, all threads incl. libvips) is steadier than wall time on a busy machine.
  const cpuMs = async (f: () => Promise<unknown> | unknown, n: number): Promise<number> => {
    const u0 = process.cpuUsage();
    for (let k = 0; k < n; k++) await f();
    const u = process.cpuUsage(u0);
    return (u.user + u.system) / 1000 / n;
  };
  const n = ctx.short ? 2 : 5;
  const cpuDecode = await cpuMs(() => decodeImage(bytes), n);
  const cpuScan = await cpuMs(() => engine.scan(bytes), n);
  const cpuAnalysis = await cpuMs(() => scanRaster({ raster, info, printWidthInches: 12 }), n);
  ctx.table(`scan ${size}x${size} PNG, CPU time`, [
    { name: 'baseline: decodeImage', 'cpu ms': cpuDecode, 'x baseline': 1 },
    { name: 'engine.scan (decode + analysis)', 'cpu ms': cpuScan, 'x baseline': cpuScan / cpuDecode },
    { name: 'scanRaster (analysis only)', 'cpu ms': cpuAnalysis, 'x baseline': cpuAnalysis / cpuDecode },
  ]);

  const fb = ctx.bench(`fix ${size}x${size} PNG`, { iterations: 3, time: 3000 });
  fb.add('baseline: decode + encodePng', async () => {
    const d = await decodeImage(bytes);
    await encodePng(d.raster, { dpi: 300 });
  });
  fb.add('fix_halftone (35 lpi, 12 in)', async () => {
    await engine.fix(bytes, { fix_halftone: true, print_width_inches: 12 });
  });
  fb.add('fix_alpha_threshold', async () => {
    await engine.fix(bytes, { fix_alpha_threshold: true });
  });
  fb.add('fix_despeckle + fix_trim', async () => {
    await engine.fix(bytes, { fix_despeckle: true, fix_trim: true });
  });
  fb.add('resize to half width', async () => {
    await engine.fix(bytes, { resize_width_px: size / 2 });
  });
  await ctx.runBench(fb, { baseline: 'baseline: decode + encodePng' });
  await engine.close();

  ctx.table('halftone accuracy', [halftoneAccuracy(35, 300), halftoneAccuracy(15, 300), halftoneAccuracy(65, 333.3), halftoneAccuracy(25, 150)]);
}
