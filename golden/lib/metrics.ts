// Perceptual image metrics shared by the golden runner, tests and benches (vectorize, upscale, remove-bg):
// rasterise SVG (resvg), decode PNG/JPEG/WebP to straight-alpha RGBA, and compare two rasters:
//  - ΔE: CIE76 ΔE*ab per pixel after compositing both images over mid-grey (128,128,128) in 8-bit sRGB,
//    reported as mean over all pixels, mean over pixels opaque (alpha >= 128) in either image (the corpus
//    convention, corpus/open/README.md), 99th percentile and max;
//  - SSIM of the luminance of the grey composites (Wang et al. 2004, 8x8 windows, stride 4, C1/C2 from
//    K1 = 0.01, K2 = 0.03, L = 255);
//  - alpha IoU of the alpha >= 128 masks (1 when both are empty);
//  - background cover: share of fully transparent expected pixels that the actual image covers (alpha >= 128).
//
// Usage:
//   import { compareRasters, rasteriseSvg, decodeToRaster } from '../../golden/lib/metrics.js';
//   const m = compareRasters(actual, expected);   // same size required, else RangeError
//   if (m.meanDeltaE > 2 || m.ssim < 0.95) ...
import sharp from 'sharp';
import { Resvg } from '@resvg/resvg-js';
import type { Raster } from '@inkprep/engine';

/** Result of `compareRasters`. ΔE values are CIE76 ΔE*ab (1 ≈ just noticeable, > 10 clearly different). */
export interface RasterMetrics {
  width: number;
  height: number;
  /** Mean ΔE over all pixels of the grey composites. */
  meanDeltaE: number;
  /** Mean ΔE over pixels with alpha >= 128 in either image (0 when there are none). */
  meanDeltaEOpaque: number;
  /** 99th percentile of per-pixel ΔE (0.05 resolution). */
  p99DeltaE: number;
  /** Largest per-pixel ΔE. */
  maxDeltaE: number;
  /** Mean SSIM of the luminance of the grey composites, in [-1, 1] (1 = identical). */
  ssim: number;
  /** |A ∩ B| / |A ∪ B| of the alpha >= 128 masks (1 when both are empty). */
  alphaIoU: number;
  /** Share of fully transparent pixels of `expected` where `actual` has alpha >= 128 (0 when none are transparent). */
  backgroundCover: number;
}

/** Mid-grey every image is composited over before ΔE and SSIM. */
export const GREY = 128;

/** Decode PNG/JPEG/WebP (or anything sharp reads) to 8-bit sRGB RGBA with straight alpha. */
export async function decodeToRaster(bytes: Uint8Array): Promise<Raster> {
  const { data, info } = await sharp(bytes).toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  const out = new Uint8ClampedArray(data.length);
  out.set(data);
  return { width: info.width, height: info.height, data: out };
}

/** Encode a raster as PNG (for diff images and expected files). */
export async function rasterToPng(r: Raster): Promise<Uint8Array> {
  const buf = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } }).png().toBuffer();
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Options of `rasteriseSvg`. */
export interface RasteriseOptions {
  /** `width` (default): the output is `size` px wide; `long-side`: the longer side is `size` px (corpus ground truth: 1024). */
  fit?: 'width' | 'long-side';
  /** CSS background colour; default transparent. */
  background?: string;
}

/**
 * Render an SVG with resvg (system fonts not loaded, so renders are the same on every machine).
 * @param size output width in px (or long side with `fit: 'long-side'`), >= 1
 * @example const r = await rasteriseSvg(svgText, 512);
 */
export async function rasteriseSvg(svg: string | Uint8Array, size: number, opts: RasteriseOptions = {}): Promise<Raster> {
  const src = typeof svg === 'string' ? svg : Buffer.from(svg.buffer, svg.byteOffset, svg.byteLength);
  const font = { loadSystemFonts: false };
  let fitTo: { mode: 'width'; value: number } | { mode: 'height'; value: number } = { mode: 'width', value: Math.max(1, Math.round(size)) };
  if (opts.fit === 'long-side') {
    const probe = new Resvg(src, { font });
    if (probe.height > probe.width) fitTo = { mode: 'height', value: Math.max(1, Math.round(size)) };
  }
  const png = new Resvg(src, { font, fitTo, ...(opts.background ? { background: opts.background } : {}) }).render().asPng();
  return decodeToRaster(png);
}

const EPS = 216 / 24389;
const KAPPA = 24389 / 27;
const LIN = new Float64Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  LIN[i] = c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}
const f = (t: number) => (t > EPS ? Math.cbrt(t) : (KAPPA * t + 16) / 116);

/** Lab (D65) of packed 0xRRGGBB, cached: art has few distinct colours. */
class LabCache {
  private map = new Map<number, number>();
  private vals: number[] = [];
  /** Index into `vals` of the Lab triple. */
  get(key: number): number {
    let idx = this.map.get(key);
    if (idx !== undefined) return idx;
    const lr = LIN[(key >> 16) & 255]!, lg = LIN[(key >> 8) & 255]!, lb = LIN[key & 255]!;
    const fx = f((0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / 0.95047);
    const fy = f(0.2126729 * lr + 0.7151522 * lg + 0.072175 * lb);
    const fz = f((0.0193339 * lr + 0.119192 * lg + 0.9503041 * lb) / 1.08883);
    idx = this.vals.length;
    this.vals.push(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz));
    if (this.map.size < 1 << 20) this.map.set(key, idx);
    return idx;
  }
  at(i: number): number {
    return this.vals[i]!;
  }
}

/** Per-pixel ΔE map (Float32, one value per pixel) and the grey-composite luminance of both images. */
function deltaEAndLuma(a: Raster, b: Raster): { de: Float32Array; ya: Float32Array; yb: Float32Array } {
  const n = a.width * a.height;
  const de = new Float32Array(n);
  const ya = new Float32Array(n);
  const yb = new Float32Array(n);
  const cache = new LabCache();
  const A = a.data, B = b.data;
  for (let i = 0, p = 0; i < n; i++, p += 4) {
    const aa = A[p + 3]!, ab = B[p + 3]!;
    const ra = (A[p]! * aa + GREY * (255 - aa) + 127) / 255 | 0;
    const ga = (A[p + 1]! * aa + GREY * (255 - aa) + 127) / 255 | 0;
    const ba = (A[p + 2]! * aa + GREY * (255 - aa) + 127) / 255 | 0;
    const rb = (B[p]! * ab + GREY * (255 - ab) + 127) / 255 | 0;
    const gb = (B[p + 1]! * ab + GREY * (255 - ab) + 127) / 255 | 0;
    const bb = (B[p + 2]! * ab + GREY * (255 - ab) + 127) / 255 | 0;
    ya[i] = 0.2126 * ra + 0.7152 * ga + 0.0722 * ba;
    yb[i] = 0.2126 * rb + 0.7152 * gb + 0.0722 * bb;
    if (ra === rb && ga === gb && ba === bb) continue;
    const ia = cache.get((ra << 16) | (ga << 8) | ba);
    const ib = cache.get((rb << 16) | (gb << 8) | bb);
    const dL = cache.at(ia) - cache.at(ib), d1 = cache.at(ia + 1) - cache.at(ib + 1), d2 = cache.at(ia + 2) - cache.at(ib + 2);
    de[i] = Math.sqrt(dL * dL + d1 * d1 + d2 * d2);
  }
  return { de, ya, yb };
}

/** Mean SSIM over 8x8 windows with stride 4 (one window over the whole image when it is smaller). */
export function ssimLuma(ya: Float32Array, yb: Float32Array, width: number, height: number): number {
  const C1 = (0.01 * 255) ** 2, C2 = (0.03 * 255) ** 2;
  const win = Math.min(8, width, height);
  const stride = win === 8 ? 4 : win;
  let total = 0, count = 0;
  const xs: number[] = [];
  for (let x = 0; x + win <= width; x += stride) xs.push(x);
  if (xs[xs.length - 1]! + win < width) xs.push(width - win);
  const ys: number[] = [];
  for (let y = 0; y + win <= height; y += stride) ys.push(y);
  if (ys[ys.length - 1]! + win < height) ys.push(height - win);
  const m = win * win;
  for (const y0 of ys) {
    for (const x0 of xs) {
      let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (let y = y0; y < y0 + win; y++) {
        let i = y * width + x0;
        for (let k = 0; k < win; k++, i++) {
          const va = ya[i]!, vb = yb[i]!;
          sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
        }
      }
      const ma = sa / m, mb = sb / m;
      const va = saa / m - ma * ma, vb = sbb / m - mb * mb, cov = sab / m - ma * mb;
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      count++;
    }
  }
  return count ? total / count : 1;
}

/**
 * Compare `actual` with `expected` (same width and height, else RangeError). Pure, no allocation per pixel.
 * @example const { meanDeltaE, ssim, alphaIoU } = compareRasters(mine, reference);
 */
export function compareRasters(actual: Raster, expected: Raster): RasterMetrics {
  if (actual.width !== expected.width || actual.height !== expected.height) {
    throw new RangeError(`compareRasters: size ${actual.width}x${actual.height} differs from expected ${expected.width}x${expected.height}`);
  }
  const { width, height } = actual;
  const n = width * height;
  if (n === 0) return { width, height, meanDeltaE: 0, meanDeltaEOpaque: 0, p99DeltaE: 0, maxDeltaE: 0, ssim: 1, alphaIoU: 1, backgroundCover: 0 };
  const { de, ya, yb } = deltaEAndLuma(actual, expected);
  const BIN = 0.05;
  const hist = new Uint32Array(Math.ceil(300 / BIN) + 1);
  let sum = 0, sumOpaque = 0, nOpaque = 0, max = 0, inter = 0, union = 0, transparent = 0, covered = 0;
  const A = actual.data, B = expected.data;
  for (let i = 0; i < n; i++) {
    const d = de[i]!;
    sum += d;
    if (d > max) max = d;
    hist[Math.min(hist.length - 1, Math.floor(d / BIN))]!++;
    const oa = A[i * 4 + 3]! >= 128, ob = B[i * 4 + 3]! >= 128;
    if (oa || ob) { union++; sumOpaque += d; nOpaque++; }
    if (oa && ob) inter++;
    if (B[i * 4 + 3] === 0) { transparent++; if (oa) covered++; }
  }
  let p99 = 0;
  const target = Math.ceil(n * 0.99);
  for (let k = 0, acc = 0; k < hist.length; k++) {
    acc += hist[k]!;
    if (acc >= target) { p99 = Math.min(max, (k + 1) * BIN); break; }
  }
  return {
    width,
    height,
    meanDeltaE: sum / n,
    meanDeltaEOpaque: nOpaque ? sumOpaque / nOpaque : 0,
    p99DeltaE: p99,
    maxDeltaE: max,
    ssim: ssimLuma(ya, yb, width, height),
    alphaIoU: union ? inter / union : 1,
    backgroundCover: transparent ? covered / transparent : 0,
  };
}

/**
 * A picture of the differences for a person: the expected image's luminance faded to 25 %, pixels whose
 * ΔE > 2 painted red (brighter = larger ΔE, full red at ΔE >= 20), and pixels where only one image is
 * opaque painted blue (actual only) or green (expected only).
 */
export function diffRaster(actual: Raster, expected: Raster): Raster {
  const { de, yb } = deltaEAndLuma(actual, expected);
  const n = actual.width * actual.height;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    const p = i * 4;
    const oa = actual.data[p + 3]! >= 128, ob = expected.data[p + 3]! >= 128;
    const g = 64 + yb[i]! * 0.25;
    out[p + 3] = 255;
    if (oa !== ob) {
      out[p] = 0; out[p + 1] = ob ? 200 : 0; out[p + 2] = oa ? 255 : 0;
    } else if (de[i]! > 2) {
      out[p] = 120 + Math.min(1, de[i]! / 20) * 135; out[p + 1] = 0; out[p + 2] = 0;
    } else {
      out[p] = g; out[p + 1] = g; out[p + 2] = g;
    }
  }
  return { width: actual.width, height: actual.height, data: out };
}
