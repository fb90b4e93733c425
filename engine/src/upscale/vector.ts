// Vector path of the upscaler, for flat art: trace the raster with our vectorizer's stages (engine/src/vectorize,
// called in-thread as plain functions) at the TARGET resolution, then render the SVG, so edges are rendered
// from curves (razor sharp at any size) and colours are the palette's exact inks.
// Sub-pixel edges: the palette and the input-size label map come from the vectorizer (prepare + quantize at
// input size); the input is then enlarged to the output size (premultiplied Lanczos-3, pixel-centre aligned:
// lanczos.ts) and every output pixel is labelled with the nearest palette ink among the inks of its 3x3
// input neighbourhood (alpha split at 128). The label boundaries therefore fall where the interpolated anti-aliasing coverage crosses 50 %,
// i.e. between input pixels, instead of on the input's pixel grid; the tracer then fits curves to that map.
// Rendering uses librsvg through sharp (a runtime dependency; resvg is only a dev dependency).
import sharp from 'sharp';
import { InkprepError } from '../errors.js';
import type { Raster } from '../raster/types.js';
import { vectorizeRaster } from '../vectorize/pipeline.js';
import { DETAIL_PARAMS, type ResolvedVectorize } from '../vectorize/settings.js';
import { mergeSpecks } from '../vectorize/clean/specks.js';
import { solidFills } from '../vectorize/gradients/fit.js';
import { ALPHA_SPLIT, prepareImage } from '../vectorize/prepare/edge-cleanup.js';
import { quantize } from '../vectorize/quantize/index.js';
import { writeSvg } from '../vectorize/svg/index.js';
import { traceLabelMap } from '../vectorize/trace/index.js';
import { TRANSPARENT, type LabelMap } from '../vectorize/types.js';
import { enlargeLanczos3 } from './lanczos.js';

/** Render an SVG whose user units are source pixels (viewBox 0 0 w h) at exactly width x height pixels. */
export async function renderSvg(svg: string, srcWidth: number, srcHeight: number, width: number, height: number): Promise<Raster> {
  // Pin the outer size so librsvg's density maths is exact; the viewBox maps source px onto it.
  const sized = svg.replace(/<svg\b([^>]*)>/, (_m, attrs: string) => {
    const clean = attrs.replace(/\s(width|height)="[^"]*"/g, '');
    const vb = /viewBox=/.test(clean) ? clean : `${clean} viewBox="0 0 ${srcWidth} ${srcHeight}"`;
    return `<svg${vb} width="${width}" height="${height}" preserveAspectRatio="none">`;
  });
  const out = await sharp(Buffer.from(sized), { density: 72, limitInputPixels: false })
    .resize(width, height, { fit: 'fill' })
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (out.info.width !== width || out.info.height !== height) {
    throw new InkprepError('processing_failed', `SVG rendered at ${out.info.width}x${out.info.height}, expected ${width}x${height}`);
  }
  const data = new Uint8ClampedArray(out.data.length);
  data.set(out.data);
  return { width, height, data };
}

/**
 * The former whole-image round-trip guard's limit: mean per-pixel error (max over RGB of the grey composites,
 * 0..255, over pixels visible in either image) between the input and the render shrunk back. A mean is blind
 * to local losses (a vanished whisker barely moves it); the router now uses the windowed guard (guard.ts).
 * Kept for the bench's before/after and for callers that want the single number.
 */
export const VECTOR_MAX_ROUNDTRIP = 6;

/** Mean round-trip error of `big` (a render at scale x) against `src`, as defined for VECTOR_MAX_ROUNDTRIP. */
export async function roundTripError(src: Raster, big: Raster): Promise<number> {
  const back = await sharp(Buffer.from(big.data.buffer, big.data.byteOffset, big.data.byteLength), { raw: { width: big.width, height: big.height, channels: 4 }, limitInputPixels: false })
    .resize(src.width, src.height, { kernel: 'cubic', fit: 'fill' })
    .raw()
    .toBuffer();
  const a = src.data;
  let sum = 0, n = 0;
  for (let i = 0; i < a.length; i += 4) {
    const aa = a[i + 3]!, ab = back[i + 3]!;
    if (aa === 0 && ab === 0) continue;
    let d = 0;
    for (let c = 0; c < 3; c++) {
      const va = (a[i + c]! * aa + 128 * (255 - aa)) / 255;
      const vb = (back[i + c]! * ab + 128 * (255 - ab)) / 255;
      const e = Math.abs(va - vb);
      if (e > d) d = e;
    }
    sum += d;
    n++;
  }
  return n ? sum / n : 0;
}

/**
 * Trace `src` and render it at `scale` times its size: traced at the target size (sub-pixel edges) unless the
 * art has no anti-aliasing or `at: 'source'` asks for the input-size trace (edges on the input grid; bench only).
 * No guard here: the router checks the render window by window (guard.ts).
 */
export async function upscaleVector(src: Raster, scale: number, opts: { at?: 'target' | 'source'; onProgress?: (done: number, step: string) => void } = {}): Promise<Raster> {
  let out: Raster;
  const W = src.width * scale, H = src.height * scale;
  const progress = opts.onProgress ?? (() => {});
  const svg = opts.at === 'source' ? null : await traceAtTarget(src, scale, progress);
  progress(VECTOR_AT.render, 'render');
  if (svg) out = await renderSvg(svg, W, H, W, H);
  else out = await renderSvg(traceToSvg(src), src.width, src.height, W, H);
  return out;
}

/**
 * Vectorizer settings for upscaling: every ink kept (`colors: unlimited` merges only inks closer than a JND),
 * potrace's default corner rule (`detail: balanced`), and only 1 px specks merged so small details survive.
 */
export const TRACE_OPTIONS = Object.freeze({ colors: 'unlimited', detail: 'balanced', speck_size: 1, edge_cleanup: true } as const);

/**
 * TRACE_OPTIONS as the pipeline reads them, every other field at the vectorize op's default. Written out rather
 * than resolved so the upscaler does not reach up into the op layer; a test checks that `resolveVectorize` agrees.
 */
export const TRACE_SETTINGS: Readonly<ResolvedVectorize> = Object.freeze({
  colors: 'unlimited',
  detail: 'balanced',
  shapeStyle: 'stacked',
  speckSize: 1,
  edgeCleanup: true,
  smoothBands: true,
  gradients: false,
  printWidthInches: null,
  outputFormat: 'svg',
  dxfUnits: 'in',
  primitives: true,
  trace: Object.freeze({ ...DETAIL_PARAMS.balanced, turdSize: 0, shapeStyle: 'stacked', smooth: true }),
});

/** Where each step of the vector path starts, as a share of the path (4x of 300 and 600 px corpus flat art). */
const VECTOR_AT = { enlarge: 0.12, label: 0.35, trace: 0.52, render: 0.88 } as const;

/** Trace at the source size (edges on the input pixel grid); kept for comparison (`at: 'source'`). */
function traceToSvg(src: Raster): string {
  return vectorizeRaster(src, TRACE_SETTINGS).svg;
}

/**
 * Label the resampled image `big` (scale x `small`) with the inks of `small`: a pixel with alpha < 128 is
 * transparent; any other pixel takes the palette ink nearest to its colour (squared RGB distance) among the
 * inks present in the 3x3 input neighbourhood of the input pixel it lies in (all inks when that neighbourhood
 * is transparent). Restricting to local inks keeps an anti-aliased blend of two inks from becoming a sliver
 * of a third ink that happens to lie between them.
 */
export function labelAtTarget(small: LabelMap, big: Raster, scale: number): LabelMap {
  const { width: w, height: h, labels: sl, palette } = small;
  const W = big.width, H = big.height, d = big.data;
  const k = palette.length / 3;
  const labels = new Uint16Array(W * H);
  const cand = new Int32Array(9);
  for (let Y = 0; Y < H; Y++) {
    const y = Math.min(h - 1, Math.floor(Y / scale));
    for (let X = 0; X < W; X++) {
      const i = Y * W + X, o = i * 4;
      if (d[o + 3]! < ALPHA_SPLIT) {
        labels[i] = TRANSPARENT;
        continue;
      }
      const x = Math.min(w - 1, Math.floor(X / scale));
      let nc = 0;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
          const l = sl[yy * w + xx]!;
          if (l === TRANSPARENT) continue;
          let seen = false;
          for (let c = 0; c < nc; c++) if (cand[c] === l) seen = true;
          if (!seen) cand[nc++] = l;
        }
      }
      const r = d[o]!, g = d[o + 1]!, b = d[o + 2]!;
      let best = 0, bestD = Infinity;
      const n = nc || k;
      for (let c = 0; c < n; c++) {
        const l = nc ? cand[c]! : c;
        const dr = r - palette[l * 3]!, dg = g - palette[l * 3 + 1]!, db = b - palette[l * 3 + 2]!;
        const dd = dr * dr + dg * dg + db * db;
        if (dd < bestD) {
          bestD = dd;
          best = l;
        }
      }
      labels[i] = best;
    }
  }
  return { width: W, height: H, labels, palette };
}

/**
 * Share of the label map's boundary pixels (a 4-neighbour has another label or transparency) whose input pixel
 * is a blend: alpha strictly between 0 and 255, or any channel more than AA_INK_DIFF from its ink. Near 0 the
 * art has no anti-aliasing (pixel-aligned flags, pixel art): its edges already lie on the pixel grid, and the
 * input-size trace reproduces them exactly, corners included.
 */
export function antiAliasedShare(src: Raster, map: LabelMap): number {
  const { width: w, height: h, labels, palette } = map;
  const d = src.data;
  let boundary = 0, blended = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x, l = labels[i]!;
      const edge = (x > 0 && labels[i - 1] !== l) || (x < w - 1 && labels[i + 1] !== l) || (y > 0 && labels[i - w] !== l) || (y < h - 1 && labels[i + w] !== l);
      if (!edge) continue;
      boundary++;
      const o = i * 4, a = d[o + 3]!;
      if (a > 0 && a < 255) blended++;
      else if (l !== TRANSPARENT && a === 255) {
        for (let c = 0; c < 3; c++) {
          if (Math.abs(d[o + c]! - palette[l * 3 + c]!) > AA_INK_DIFF) {
            blended++;
            break;
          }
        }
      }
    }
  }
  return boundary ? blended / boundary : 0;
}

/** A channel further than this from its ink marks a blended (anti-aliased) pixel. */
const AA_INK_DIFF = 24;
/** Below this share of blended boundary pixels the art counts as not anti-aliased (see antiAliasedShare). */
export const MIN_AA_SHARE = 0.05;

/**
 * SVG (user units = output pixels) traced from the label map at the output size (see the file header), or
 * null when the input carries no anti-aliasing to place edges from (antiAliasedShare < MIN_AA_SHARE): the caller
 * then traces at the input size.
 */
async function traceAtTarget(src: Raster, scale: number, progress: (done: number, step: string) => void): Promise<string | null> {
  const opts = TRACE_SETTINGS;
  progress(0, 'quantize');
  const { map } = quantize(prepareImage(src, opts.edgeCleanup), opts.colors);
  mergeSpecks(map, opts.speckSize);
  if (antiAliasedShare(src, map) < MIN_AA_SHARE) return null;
  progress(VECTOR_AT.enlarge, 'enlarge');
  const big = enlargeLanczos3(src, scale);
  progress(VECTOR_AT.label, 'label');
  const bigMap = labelAtTarget(map, big, scale);
  // specks smaller than one input pixel across are interpolation artefacts
  mergeSpecks(bigMap, Math.min(16, opts.speckSize * scale));
  progress(VECTOR_AT.trace, 'trace');
  const traced = traceLabelMap(bigMap, opts.trace, (done) => progress(VECTOR_AT.trace + done * (VECTOR_AT.render - VECTOR_AT.trace), 'trace'));
  return writeSvg(traced, solidFills(bigMap), { width: bigMap.width, height: bigMap.height }).svg;
}
