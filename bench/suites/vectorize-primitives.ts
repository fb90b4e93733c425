// Primitive recognition (issue 19): on the geometric art set (golden/lib/geometric-art.ts: badges, dots, frames,
// rounded buttons, tilted cards, ellipses) and on the open corpus, the share of traced outlines written as exact
// circles / ellipses / (rounded) rectangles, fidelity against the ground truth with and without recognition
// (resvg renders of both SVGs, golden metric: mean ΔE, alpha IoU, SSIM), SVG bytes, and the time of the
// recognition pass as a ratio of the tracing time of the same image in the same run (median of `runs`).
// Ground truth: each SVG rendered by resvg at 512 px (corpus: long side 7/8 of 512, centred); the input is that
// raster itself (anti-aliased).
import type { BenchContext, Row } from '../lib/harness.js';
import { median } from '../lib/vectorize-metrics.js';
import { GEOMETRIC_ART } from '../../golden/lib/geometric-art.js';
import { corpusDir } from '../../golden/lib/corpus.js';
import { renderCorpusPiece } from '../../golden/lib/art-render.js';
import { compareRasters, rasteriseSvg } from '../../golden/lib/metrics.js';
import { resolveVectorize, prepareImage, quantize, mergeSpecks, traceLabelMap, solidFills, writeSvg, recognisePrimitives } from '@inkprep/engine/internals';
import { readdirSync } from 'node:fs';
import type { Raster } from '@inkprep/engine';

const SHORT_CORPUS = ['flag-jp.svg', 'si-intel.svg', 'noto-1f680-rocket.svg', 'tw-1f004-mahjong.svg'];

interface Measured { outlines: number; recognised: number; seams: number; deOff: number; deOn: number; iouOff: number; iouOn: number; ssimOff: number; ssimOn: number; bytesOff: number; bytesOn: number; traceMs: number; primMs: number }

async function measure(truth: Raster, style: 'stacked' | 'cutout', runs: number): Promise<Measured> {
  const o = resolveVectorize({ shape_style: style });
  const prep = prepareImage(truth, true);
  const { map } = quantize(prep, 'auto');
  mergeSpecks(map, 4);
  const traceTimes: number[] = [], primTimes: number[] = [];
  let traced = traceLabelMap(map, o.trace);
  let rec = recognisePrimitives(traced);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    traced = traceLabelMap(map, o.trace);
    const t1 = performance.now();
    rec = recognisePrimitives(traced);
    traceTimes.push(t1 - t0);
    primTimes.push(performance.now() - t1);
  }
  const fills = solidFills(map);
  const off = writeSvg(traced, fills, { width: truth.width, height: truth.height }).svg;
  const on = writeSvg(rec.result, fills, { width: truth.width, height: truth.height }).svg;
  const mOff = compareRasters(await rasteriseSvg(off, truth.width), truth), mOn = compareRasters(await rasteriseSvg(on, truth.width), truth);
  const s = rec.stats;
  return {
    outlines: s.outlines, recognised: s.circle + s.ellipse + s.rect + s.roundedRect, seams: s.keptForSeams,
    deOff: mOff.meanDeltaE, deOn: mOn.meanDeltaE, iouOff: mOff.alphaIoU, iouOn: mOn.alphaIoU, ssimOff: mOff.ssim, ssimOn: mOn.ssim,
    bytesOff: off.length, bytesOn: on.length, traceMs: median(traceTimes), primMs: median(primTimes),
  };
}

function row(name: string, m: Measured): Row {
  return {
    item: name, outlines: m.outlines, recognised: m.recognised, 'share %': m.outlines ? (100 * m.recognised) / m.outlines : 0, 'kept for seams': m.seams,
    'ΔE off': m.deOff, 'ΔE on': m.deOn, 'IoU off': m.iouOff, 'IoU on': m.iouOn, 'SSIM off': m.ssimOff, 'SSIM on': m.ssimOn,
    'KB off': m.bytesOff / 1024, 'KB on': m.bytesOn / 1024, 'x trace time': m.traceMs > 0 ? m.primMs / m.traceMs : 0,
  };
}

function summary(label: string, ms: Measured[]): Row {
  const sum = (f: (m: Measured) => number) => ms.reduce((a, m) => a + f(m), 0);
  return {
    set: label, items: ms.length, outlines: sum((m) => m.outlines), recognised: sum((m) => m.recognised), 'share %': (100 * sum((m) => m.recognised)) / Math.max(1, sum((m) => m.outlines)),
    'median ΔE off': median(ms.map((m) => m.deOff)), 'median ΔE on': median(ms.map((m) => m.deOn)), 'worst ΔE change': Math.max(...ms.map((m) => m.deOn - m.deOff)),
    'median IoU off': median(ms.map((m) => m.iouOff)), 'median IoU on': median(ms.map((m) => m.iouOn)), 'worst IoU change': Math.min(...ms.map((m) => m.iouOn - m.iouOff)),
    'KB off': sum((m) => m.bytesOff) / 1024, 'KB on': sum((m) => m.bytesOn) / 1024, 'median x trace time': median(ms.map((m) => (m.traceMs > 0 ? m.primMs / m.traceMs : 0))),
  };
}

export default async function (ctx: BenchContext): Promise<void> {
  const runs = ctx.short ? 1 : 3;
  const summaries: Row[] = [];
  for (const style of ['stacked', 'cutout'] as const) {
    const geo: Measured[] = [];
    const rows: Row[] = [];
    for (const piece of GEOMETRIC_ART) {
      const m = await measure(await rasteriseSvg(piece.svg, 512), style, runs);
      geo.push(m);
      rows.push(row(piece.name, m));
    }
    ctx.table(`geometric art, ${style} (512 px)`, rows);
    summaries.push(summary(`geometric ${style}`, geo));
    const dir = corpusDir();
    if (!dir) {
      ctx.log('open corpus not found: corpus rows skipped');
      continue;
    }
    const files = readdirSync(dir).filter((f) => f.endsWith('.svg') && (!ctx.short || SHORT_CORPUS.includes(f)));
    const corpus: Measured[] = [];
    const crow: Row[] = [];
    for (const f of files) {
      const m = await measure(await renderCorpusPiece(f, 512), style, runs);
      corpus.push(m);
      if (m.recognised > 0) crow.push(row(f.replace(/\.svg$/, ''), m));
    }
    ctx.table(`corpus items with a recognised shape, ${style} (512 px)`, crow);
    summaries.push(summary(`corpus ${style}`, corpus));
  }
  ctx.table('primitive recognition: share, fidelity (off -> on), bytes, time as a ratio of tracing', summaries);
}
