// Trace micro-bench: time of traceLabelMap + writeSvg alone (no decode, no quantize) on exact label maps
// of the open corpus, against VTracer's native binding on the same image in the same run (VTracer also
// clusters, but on an image with <= 20 exact colours that is a small share of its time), and potrace
// (npm, bilevel; its time includes its own Jimp decode) on the 1-colour items.
// Label maps: each corpus SVG rendered by resvg without anti-aliasing at 1024 px long side (short mode:
// 512 px, 8 items), thresholded exactly (alpha < 128 transparent; the 20 most frequent colours, rarer
// gradient colours to the nearest). Geometry quality: alpha IoU (>= 128) of the rendered SVG against the
// label map, shapes (moveto count), bytes.
import type { BenchContext, Row } from '../lib/harness.js';
import { corpusItems, labelMapToRgba, renderCrisp, toLabelMap } from '../lib/label-maps.js';
import { countSvg, median, runPotrace, runVtracer } from '../lib/vectorize-metrics.js';
import { traceLabelMap, writeSvg, TRANSPARENT, type Fill, type LabelMap, type TraceParams } from '@inkprep/engine/internals';
import { Resvg } from '@resvg/resvg-js';
import type { Raster } from '@inkprep/engine';

const SHORT_IDS = ['gi-barn-owl', 'si-nasa', 'lettering-mountain-club', 'noto-1f981-lion', 'tw-1f98a-fox', 'noto-1f680-rocket', 'flag-br', 'om-black-2693-anchor'];
const BALANCED: TraceParams = { alphaMax: 1, optTolerance: 0.2, turdSize: 0, shapeStyle: 'stacked', smooth: true };

function fillsOf(map: LabelMap): Fill[] {
  const fills: Fill[] = [];
  for (let i = 0; i < map.palette.length / 3; i++) fills.push({ kind: 'solid', rgb: [map.palette[i * 3]!, map.palette[i * 3 + 1]!, map.palette[i * 3 + 2]!] });
  return fills;
}

function iou(map: LabelMap, svg: string): number {
  const px = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: 'width', value: map.width } }).render().pixels;
  let inter = 0;
  let uni = 0;
  const n = Math.min(map.labels.length, px.length / 4);
  for (let i = 0; i < n; i++) {
    const a = map.labels[i] !== TRANSPARENT;
    const b = px[i * 4 + 3]! >= 128;
    if (a && b) inter++;
    if (a || b) uni++;
  }
  return uni ? inter / uni : 1;
}

function timeIt(runs: number, f: () => void): number {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  return median(t);
}

export default async function traceSuite(ctx: BenchContext): Promise<void> {
  const size = ctx.short ? 512 : 1024;
  const runs = ctx.short ? 2 : 5;
  const items = corpusItems().filter((it) => !ctx.short || SHORT_IDS.includes(it.id));
  const rows: Row[] = [];
  for (const it of items) {
    const map = toLabelMap(renderCrisp(it.file, size));
    const fills = fillsOf(map);
    const raster: Raster = { width: map.width, height: map.height, data: new Uint8ClampedArray(labelMapToRgba(map).buffer) };
    const traceSvg = (params: TraceParams): string => writeSvg(traceLabelMap(map, params), fills, { width: map.width, height: map.height }).svg;
    let stacked = '';
    let cutout = '';
    let vt = '';
    // warm up once each, then interleave to share the machine's noise
    stacked = traceSvg(BALANCED);
    vt = runVtracer(raster);
    const msStacked = timeIt(runs, () => (stacked = traceSvg(BALANCED)));
    const msVt = timeIt(runs, () => (vt = runVtracer(raster)));
    const msCutout = timeIt(runs, () => (cutout = traceSvg({ ...BALANCED, shapeStyle: 'cutout' })));
    const colours = map.palette.length / 3;
    let msPotrace: number | null = null;
    let potraceShapes: number | null = null;
    if (colours === 1 && !ctx.short) {
      const t0 = performance.now();
      const ps = await runPotrace(raster, '#000');
      msPotrace = performance.now() - t0;
      potraceShapes = countSvg(ps).shapes;
    }
    const cs = countSvg(stacked);
    const cv = countSvg(vt);
    rows.push({
      id: it.id,
      category: it.category,
      colours,
      'ours ms': msStacked,
      'cutout ms': msCutout,
      'vtracer ms': msVt,
      'x vtracer': msStacked / msVt,
      'potrace ms': msPotrace,
      'ours IoU': iou(map, stacked),
      'cutout IoU': iou(map, cutout),
      'vtracer IoU': iou(map, vt),
      'ours shapes': cs.shapes,
      'vtracer shapes': cv.shapes,
      'potrace shapes': potraceShapes,
      'ours KB': cs.bytes / 1024,
      'vtracer KB': cv.bytes / 1024,
    });
  }
  ctx.table(`trace per item (${size} px label maps, median of ${runs})`, rows);
  const med = (k: string): number => median(rows.map((r) => Number(r[k])).filter((v) => Number.isFinite(v)));
  const summary: Row[] = [
    { method: 'inkprep stacked', ms: med('ours ms'), IoU: med('ours IoU'), shapes: med('ours shapes'), KB: med('ours KB') },
    { method: 'inkprep cutout', ms: med('cutout ms'), IoU: med('cutout IoU'), shapes: null, KB: null },
    { method: 'vtracer (baseline)', ms: med('vtracer ms'), IoU: med('vtracer IoU'), shapes: med('vtracer shapes'), KB: med('vtracer KB') },
  ];
  ctx.table('trace medians', ctx.ratio(summary, 'vtracer (baseline)', 'ms', 'method'));
  const byCat = new Map<string, Row[]>();
  for (const r of rows) {
    const c = String(r.category);
    if (!byCat.has(c)) byCat.set(c, []);
    byCat.get(c)!.push(r);
  }
  const catRows: Row[] = [];
  for (const [category, rs] of byCat) {
    const m = (k: string): number => median(rs.map((r) => Number(r[k])));
    catRows.push({ category, items: rs.length, 'ours ms': m('ours ms'), 'vtracer ms': m('vtracer ms'), 'ours IoU': m('ours IoU'), 'vtracer IoU': m('vtracer IoU'), 'ours shapes': m('ours shapes'), 'vtracer shapes': m('vtracer shapes') });
  }
  ctx.table('trace medians per category', catRows);
}
