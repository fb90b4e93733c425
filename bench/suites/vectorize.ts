// Vectorize fidelity and speed against the peers, measured in one run over the open corpus.
// Ground truth: each SVG rendered with resvg, long side 1024 px (short mode: 512), transparent background.
// Upload variants (corpus README): `png` = the SVG rendered at 512 px long side with alpha; `jpg` = the ground
// truth flattened on white, JPEG q85. Every vectorizer's SVG is rendered back at the ground-truth size and
// compared (golden/lib/metrics.ts compareRasters): mean CIE76 ΔE over pixels opaque in either image on mid-grey,
// alpha IoU (>= 128), SSIM of luminance, background box % (transparent GT pixels covered), distinct fills,
// shapes (moveto count), KB, wall ms and CPU ms of this process (steadier than wall time on a busy machine).
// Peers: VTracer (native; colour, stacked, spline), imagetracerjs (defaults, on the PNG variant), potrace
// (bilevel; 1-colour art only). Tables: medians per variant and per art category.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchContext, Row } from '../lib/harness.js';
import { compareRasters, rasteriseSvg } from '../../golden/lib/metrics.js';
import { corpusDir } from '../../golden/lib/corpus.js';
import { countSvg, jpegUpload, median, renderAt, runImagetracer, runPotrace, runVtracer } from '../lib/vectorize-metrics.js';
import { resolveVectorize, vectorizeRaster } from '@inkprep/engine/internals';
import type { Raster } from '@inkprep/engine';

interface Item { file: string; id: string; category: string; colors: number; palette: string[] }
interface Measure { variant: string; category: string; id: string; method: string; dE: number; iou: number; ssim: number; bg: number; fills: number; shapes: number; kb: number; ms: number; cpuMs: number }

const SHORT_IDS = ['gi-barn-owl', 'noto-1f981-lion', 'noto-1f680-rocket', 'noto-1f351-peach'];

export default async function vectorizeSuite(ctx: BenchContext): Promise<void> {
  const dir = corpusDir();
  if (!dir) {
    ctx.log('vectorize: corpus not found (set INKPREP_CORPUS); suite skipped');
    return;
  }
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { items: Item[] };
  const only = process.env.VECTORIZE_BENCH_ONLY;
  const items = manifest.items.filter((it) => (ctx.short ? SHORT_IDS.includes(it.id) : true) && (!only || it.id.includes(only)));
  const gtSize = ctx.short ? 512 : 1024;
  const pngSize = 512;
  const skipImagetracer = ctx.short || process.env.VECTORIZE_BENCH_NO_ITJS === '1';
  const ours = resolveVectorize({});
  const ours1 = resolveVectorize({ colors: 1 });
  const oursGrad = resolveVectorize({ gradients: true });
  const all: Measure[] = [];

  for (const it of items) {
    const svgSrc = readFileSync(path.join(dir, it.file), 'utf8');
    const gt = await rasteriseSvg(svgSrc, gtSize, { fit: 'long-side' });
    const variants: Array<[string, Raster]> = [
      ['png', gtSize === pngSize ? gt : await rasteriseSvg(svgSrc, pngSize, { fit: 'long-side' })],
      ['jpg', await jpegUpload(gt)],
    ];
    for (const [variant, input] of variants) {
      const run = async (method: string, fn: () => string | Promise<string>): Promise<void> => {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const svg = await fn();
        const ms = performance.now() - t0;
        const cu = process.cpuUsage(c0);
        const cpuMs = (cu.user + cu.system) / 1000;
        const back = await renderAt(svg, gt.width, gt.height);
        const m = compareRasters(back, gt);
        const c = countSvg(svg);
        all.push({ variant, category: it.category, id: it.id, method, dE: m.meanDeltaEOpaque, iou: m.alphaIoU, ssim: m.ssim, bg: m.backgroundCover * 100, fills: c.fills, shapes: c.shapes, kb: c.bytes / 1024, ms, cpuMs });
      };
      // The op learns JPEG-ness from the decoder; here the variant says it.
      const source = { jpeg: variant === 'jpg' };
      await run('inkprep', () => vectorizeRaster(input, ours, source).svg);
      await run('vtracer', () => runVtracer(input));
      // imagetracerjs takes seconds per 1024 px JPEG; it runs on the 512 px PNG variant (VECTORIZE_BENCH_ITJS_JPG=1 adds the JPEG).
      if (!skipImagetracer && (variant === 'png' || process.env.VECTORIZE_BENCH_ITJS_JPG === '1')) await run('imagetracerjs', () => runImagetracer(input));
      if (it.category === 'gradient') await run('inkprep gradients=true', () => vectorizeRaster(input, oursGrad, source).svg);
      if (it.colors === 1) {
        await run('inkprep colors=1', () => vectorizeRaster(input, ours1, source).svg);
        await run('potrace', () => runPotrace(input, it.palette[0] ?? '#000000'));
      }
    }
    ctx.log(`vectorize: ${it.id} done`);
  }

  const summarise = (ms: Measure[]): Row => ({
    n: ms.length,
    'ΔE': round(median(ms.map((m) => m.dE)), 2),
    IoU: round(median(ms.map((m) => m.iou)), 4),
    SSIM: round(median(ms.map((m) => m.ssim)), 4),
    'bg %': round(median(ms.map((m) => m.bg)), 3),
    fills: median(ms.map((m) => m.fills)),
    shapes: median(ms.map((m) => m.shapes)),
    KB: round(median(ms.map((m) => m.kb)), 1),
    ms: round(median(ms.map((m) => m.ms)), 0),
    'cpu ms': round(median(ms.map((m) => m.cpuMs)), 0),
  });
  const methods = [...new Set(all.map((m) => m.method))];
  for (const variant of ['png', 'jpg']) {
    const rows: Row[] = [];
    for (const method of methods) {
      const ms = all.filter((m) => m.variant === variant && m.method === method);
      if (ms.length) rows.push({ method, ...summarise(ms) });
    }
    ctx.table(`vectorize ${variant} upload: medians over ${items.length} artworks (GT ${gtSize} px)`, rows);
    const cats = [...new Set(items.map((i) => i.category))];
    const catRows: Row[] = [];
    for (const category of cats) {
      for (const method of methods) {
        const ms = all.filter((m) => m.variant === variant && m.method === method && m.category === category);
        if (ms.length) catRows.push({ category, method, ...summarise(ms) });
      }
    }
    ctx.table(`vectorize ${variant} upload: medians per category`, catRows);
  }
  // Ratios against VTracer per artwork (ours / vtracer), medians.
  const ratioRows: Row[] = [];
  for (const variant of ['png', 'jpg']) {
    const shapes: number[] = [], kb: number[] = [], ms: number[] = [], cpu: number[] = [];
    let dEwins = 0, n = 0;
    for (const it of items) {
      const a = all.find((m) => m.variant === variant && m.id === it.id && m.method === 'inkprep');
      const b = all.find((m) => m.variant === variant && m.id === it.id && m.method === 'vtracer');
      if (!a || !b) continue;
      n++;
      if (a.dE <= b.dE) dEwins++;
      shapes.push(a.shapes / Math.max(1, b.shapes)); kb.push(a.kb / b.kb); ms.push(a.ms / b.ms); cpu.push(a.cpuMs / Math.max(0.001, b.cpuMs));
    }
    ratioRows.push({ variant, artworks: n, 'ΔE no worse than vtracer': dEwins, 'x shapes': round(median(shapes), 2), 'x KB': round(median(kb), 2), 'x ms': round(median(ms), 2), 'x cpu ms': round(median(cpu), 2) });
  }
  ctx.table('inkprep / vtracer per artwork (medians of ratios)', ratioRows);
  ctx.table('vectorize per artwork', all.map((m) => ({ ...m, dE: round(m.dE, 2), iou: round(m.iou, 4), ssim: round(m.ssim, 4), bg: round(m.bg, 3), kb: round(m.kb, 1), ms: round(m.ms, 0), cpuMs: round(m.cpuMs, 0) })));
}

function round(v: number, d: number): number {
  const f = 10 ** d;
  return Math.round(v * f) / f;
}
