// Background removal quality and speed on composites with known alpha, against a naive border flood fill.
// - Art: every non-flag SVG of the open corpus (flags are full-bleed) rendered with resvg, long side 7/8 of
//   the canvas, centred on an S x S transparent canvas (S = 1024; short mode: 4 pieces at 512).
// - Backgrounds: white, a solid colour, white saved as JPEG q85 (4:2:0), a light gradient with vignette,
//   a busy texture (the case the matte is not for: it must say so).
// - ours: matteArtwork (the pipeline of the op, without file decode/encode); baseline: flood fill from the
//   border with a fixed RGB tolerance (32) around the top-left colour, hard alpha, colours untouched.
// - Metrics per background type, averaged over the pieces: soft alpha IoU, mean |α - α_gt|, edge halo ΔE
//   (CIE76 between output and true colour at edge pixels where both alphas >= 0.25), background left %
//   (α-weighted over truly transparent pixels), foreground lost % (1 - α over truly opaque pixels), wall ms
//   and CPU ms of the call (CPU time is what to read on a loaded machine).
//   For JPEG the halo "floor" is an oracle that knows the true α and B and unmixes the JPEG pixels exactly.
// - Env REMOVE_BG_DUMP=<dir>: write each matte over dark grey and over magenta as PNG for a visual check.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { createEngine, type Raster } from '@inkprep/engine';
import { decodeImage, matteArtwork } from '@inkprep/engine/internals';
import type { BenchContext, Row } from '../lib/harness.js';
import { measureMatte as measure, type MatteMetrics as Metrics } from '../lib/matte-metrics.js';
import { busyTexture } from '../lib/busy-texture.js';
import { corpusDir } from '../../golden/lib/corpus.js';
import { renderCorpusPiece } from '../../golden/lib/art-render.js';

type BgKind = 'white' | 'solid' | 'jpeg-white' | 'gradient' | 'busy';
const ALL_KINDS: BgKind[] = ['white', 'solid', 'jpeg-white', 'gradient', 'busy'];
// REMOVE_BG_KINDS=gradient,white: measure only those backgrounds (a quicker re-run of one row).
const KINDS: BgKind[] = process.env.REMOVE_BG_KINDS ? ALL_KINDS.filter((k) => process.env.REMOVE_BG_KINDS!.split(',').includes(k)) : ALL_KINDS;
const SHORT_PIECES = ['si-docker.svg', 'noto-1f981-lion.svg', 'lettering-brew-co.svg', 'om-color-2693-anchor.svg'];

const renderArt = renderCorpusPiece;

function background(kind: BgKind, size: number): (x: number, y: number) => [number, number, number] {
  switch (kind) {
    case 'white':
    case 'jpeg-white':
      return () => [255, 255, 255];
    case 'solid':
      return () => [58, 110, 165];
    case 'gradient':
      return (x, y) => {
        const t = (x + y) / (2 * size);
        const dx = x / size - 0.5, dy = y / size - 0.5;
        const v = 1 - 0.12 * (dx * dx + dy * dy);
        return [(255 - 32 * t) * v, (255 - 22 * t) * v, (252 - 8 * t) * v];
      };
    case 'busy':
      return busyTexture();
  }
}

function composite(gt: Raster, bg: (x: number, y: number) => [number, number, number]): Raster {
  const out = new Uint8ClampedArray(gt.data.length);
  for (let y = 0; y < gt.height; y++) {
    for (let x = 0; x < gt.width; x++) {
      const i = (y * gt.width + x) * 4, a = gt.data[i + 3]! / 255, b = bg(x, y);
      for (let c = 0; c < 3; c++) out[i + c] = Math.round(gt.data[i + c]! * a + b[c]! * (1 - a));
      out[i + 3] = 255;
    }
  }
  return { width: gt.width, height: gt.height, data: out };
}

/** The baseline: flood fill from the border, tolerance 32 (RGB distance) to the top-left colour, hard cut. */
function naiveFlood(src: Raster, tol = 32): Uint8ClampedArray {
  const { width: w, height: h, data } = src;
  const out = data.slice();
  const r0 = data[0]!, g0 = data[1]!, b0 = data[2]!;
  const seen = new Uint8Array(w * h);
  const stack: number[] = [];
  const ok = (i: number): boolean => Math.hypot(data[i * 4]! - r0, data[i * 4 + 1]! - g0, data[i * 4 + 2]! - b0) <= tol;
  for (let x = 0; x < w; x++) stack.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y++) stack.push(y * w, y * w + w - 1);
  while (stack.length) {
    const i = stack.pop()!;
    if (seen[i] || !ok(i)) continue;
    seen[i] = 1;
    out[i * 4 + 3] = 0;
    const x = i % w, y = (i - x) / w;
    if (x > 0) stack.push(i - 1);
    if (x < w - 1) stack.push(i + 1);
    if (y > 0) stack.push(i - w);
    if (y < h - 1) stack.push(i + w);
  }
  return out;
}

/** Halo floor for lossy input: the true α and background removed exactly from the decoded pixels. */
function oracle(input: Raster, gt: Raster, bg: (x: number, y: number) => [number, number, number]): Uint8ClampedArray {
  const out = new Uint8ClampedArray(gt.data.length);
  for (let i = 0; i < gt.width * gt.height; i++) {
    const a = gt.data[i * 4 + 3]! / 255, b = bg(i % gt.width, Math.floor(i / gt.width));
    for (let c = 0; c < 3; c++) out[i * 4 + c] = a > 0 ? b[c]! + (input.data[i * 4 + c]! - b[c]!) / a : 0;
    out[i * 4 + 3] = gt.data[i * 4 + 3]!;
  }
  return out;
}

async function dump(dir: string, name: string, out: Uint8ClampedArray, size: number): Promise<void> {
  for (const [label, col] of [['dark', [32, 32, 40]], ['magenta', [255, 0, 255]]] as const) {
    const c = new Uint8ClampedArray(out.length);
    for (let i = 0; i < size * size; i++) {
      const a = out[i * 4 + 3]! / 255;
      for (let k = 0; k < 3; k++) c[i * 4 + k] = out[i * 4 + k]! * a + col[k]! * (1 - a);
      c[i * 4 + 3] = 255;
    }
    await sharp(Buffer.from(c.buffer), { raw: { width: size, height: size, channels: 4 } }).png().toFile(path.join(dir, `${name}-${label}.png`));
  }
}

/** CPU milliseconds of this process since `since` (the matte is single-threaded: robust to other load on the machine). */
function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

function mean(xs: number[]): number {
  return xs.reduce((s, v) => s + v, 0) / Math.max(1, xs.length);
}
function median(xs: number[]): number {
  const a = [...xs].sort((p, q) => p - q);
  return a.length ? a[Math.floor(a.length / 2)]! : 0;
}

export default async function removeBgBench(ctx: BenchContext): Promise<void> {
  const dir = corpusDir();
  if (!dir) {
    ctx.log('remove-bg: corpus not found (set INKPREP_CORPUS); nothing measured');
    return;
  }
  const size = ctx.short ? 512 : 1024;
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { items: { file: string }[] };
  const pieces = ctx.short ? SHORT_PIECES : manifest.items.map((i) => i.file).filter((f) => !f.startsWith('flag-'));
  const dumpDir = process.env.REMOVE_BG_DUMP;
  if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  ctx.log(`remove-bg: ${pieces.length} pieces at ${size}x${size}, backgrounds ${KINDS.join(', ')}`);

  type Acc = { ours: Metrics[]; plain: Metrics[]; codecOff: Metrics[]; naive: Metrics[]; oursMs: number[]; plainMs: number[]; codecOffMs: number[]; naiveMs: number[]; oursCpu: number[]; plainCpu: number[]; codecOffCpu: number[]; naiveCpu: number[]; floor: number[]; notSeparable: number; worst: { file: string; iou: number; left: number; lost: number }[] };
  const acc = new Map<BgKind, Acc>(KINDS.map((k) => [k, { ours: [], plain: [], codecOff: [], naive: [], oursMs: [], plainMs: [], codecOffMs: [], naiveMs: [], oursCpu: [], plainCpu: [], codecOffCpu: [], naiveCpu: [], floor: [], notSeparable: 0, worst: [] }]));
  for (const file of pieces) {
    const gt = await renderArt(file, size);
    for (const kind of KINDS) {
      const bg = background(kind, size);
      let input = composite(gt, bg);
      if (kind === 'jpeg-white') {
        const jpg = await sharp(Buffer.from(input.data.buffer), { raw: { width: size, height: size, channels: 4 } }).flatten().jpeg({ quality: 85 }).toBuffer();
        input = (await decodeImage(new Uint8Array(jpg))).raster;
      }
      const a = acc.get(kind)!;
      let t = performance.now(), c = process.cpuUsage();
      const ours = matteArtwork(input, kind === 'jpeg-white' ? { jpeg: true } : {}); // like the op: JPEG known, else detected
      a.oursMs.push(performance.now() - t);
      a.oursCpu.push(cpuMs(c));
      // Before issue 20's region rules, same run: the plain enclosed-region and despeckle rules.
      t = performance.now(); c = process.cpuUsage();
      const plain = matteArtwork(input, kind === 'jpeg-white' ? { jpeg: true, regionRules: false } : { regionRules: false });
      a.plainMs.push(performance.now() - t);
      a.plainCpu.push(cpuMs(c));
      a.plain.push(measure(plain.data, gt));
      if (kind === 'jpeg-white') {
        // Before the JPEG region rules (issue 20, off-white regions read from their flat pixels), same run.
        t = performance.now(); c = process.cpuUsage();
        const codecOff = matteArtwork(input, { jpeg: true, codecRegionRules: false });
        a.codecOffMs.push(performance.now() - t);
        a.codecOffCpu.push(cpuMs(c));
        a.codecOff.push(measure(codecOff.data, gt));
      }
      t = performance.now(); c = process.cpuUsage();
      const naive = naiveFlood(input);
      a.naiveMs.push(performance.now() - t);
      a.naiveCpu.push(cpuMs(c));
      const m = measure(ours.data, gt);
      a.ours.push(m);
      a.naive.push(measure(naive, gt));
      if (!ours.separability.separable) a.notSeparable++;
      if (kind === 'jpeg-white') a.floor.push(measure(oracle(input, gt, bg), gt).halo);
      a.worst.push({ file, iou: m.iou, left: m.bgLeft, lost: m.fgLost });
      if (dumpDir) await dump(dumpDir, `${file.replace(/\.svg$/, '')}-${kind}`, ours.data, size);
    }
  }

  const rows: Row[] = [];
  for (const kind of KINDS) {
    const a = acc.get(kind)!;
    const methods = [['ours (matte)', a.ours, a.oursMs, a.oursCpu], ['matte, without JPEG region rules (before)', a.codecOff, a.codecOffMs, a.codecOffCpu], ['matte, plain region rules (before)', a.plain, a.plainMs, a.plainCpu], ['naive flood tol 32', a.naive, a.naiveMs, a.naiveCpu]] as const;
    for (const [method, ms, ts, cs] of methods.filter((m) => m[1].length > 0)) {
      rows.push({
        background: kind,
        method,
        'alpha IoU': mean(ms.map((m) => m.iou)),
        'min IoU': Math.min(...ms.map((m) => m.iou)),
        'IoU >= 0.995': `${ms.filter((m) => m.iou >= 0.995).length}/${ms.length}`,
        'mean |da|': mean(ms.map((m) => m.meanAbsAlpha)),
        'halo dE': mean(ms.map((m) => m.halo)),
        'bg left %': mean(ms.map((m) => m.bgLeft)),
        'fg lost %': mean(ms.map((m) => m.fgLost)),
        'pieces fg lost > 0.5%': `${ms.filter((m) => m.fgLost > 0.5).length}/${ms.length}`,
        'max fg lost %': Math.max(...ms.map((m) => m.fgLost)),
        'p50 ms': median(ts),
        'max ms': Math.max(...ts),
        'p50 cpu ms': median(cs),
        'flagged busy': method.startsWith('ours') ? `${a.notSeparable}/${pieces.length}` : '',
      });
    }
  }
  ctx.table(`remove-bg quality by background (${pieces.length} pieces, ${size}x${size}; means over pieces)`, rows);
  const floor = acc.get('jpeg-white')?.floor;
  if (floor) ctx.log(`jpeg-white halo floor (oracle with true alpha and background on the JPEG pixels): ${mean(floor).toFixed(2)} dE`);

  const targets: Row[] = (['white', 'solid', 'jpeg-white', 'gradient'] as BgKind[]).filter((k) => KINDS.includes(k)).map((kind) => {
    const a = acc.get(kind)!;
    const iou = mean(a.ours.map((m) => m.iou)), da = mean(a.ours.map((m) => m.meanAbsAlpha)), halo = mean(a.ours.map((m) => m.halo));
    return { background: kind, 'mean IoU': iou.toFixed(4), 'IoU >= 0.995': iou >= 0.995, 'mean |da| <= 0.01': da <= 0.01, 'halo dE < 3': halo < 3, [`< 300 ms wall (${size}px p50)`]: median(a.oursMs) < 300, [`< 300 ms cpu (${size}px p50)`]: median(a.oursCpu) < 300 };
  });
  ctx.table('targets (ours, means over pieces)', targets);

  const worst: Row[] = [];
  for (const kind of KINDS) {
    const a = acc.get(kind)!;
    for (const w of [...a.worst].sort((p, q) => p.iou - q.iou).slice(0, 3)) worst.push({ background: kind, piece: w.file, IoU: w.iou, 'bg left %': w.left, 'fg lost %': w.lost });
  }
  ctx.table('where we lose: lowest IoU per background', worst);

  // Speed of the whole op (decode + matte + encode PNG) on one piece, through tinybench, with the naive flood as baseline.
  const gt = await renderArt(pieces[0]!, size);
  const flat = composite(gt, () => [255, 255, 255]);
  const png = new Uint8Array(await sharp(Buffer.from(flat.data.buffer), { raw: { width: size, height: size, channels: 4 } }).png().toBuffer());
  const engine = createEngine({ threads: 0 });
  const b = ctx.bench(`remove-bg ${pieces[0]} on white ${size}x${size}`);
  b.add('baseline: naive flood fill', () => { naiveFlood(flat); });
  b.add('matteArtwork (pixels in, pixels out)', () => { matteArtwork(flat); });
  b.add('engine.removeBg (PNG in, PNG out)', async () => { await engine.removeBg(png, {}, { transfer: false }); });
  await ctx.runBench(b, { baseline: 'baseline: naive flood fill' });
  await engine.close();
}
