// Local round-trip guard of the vector path: the vector render, shrunk back to the input size, is compared
// with the input window by window, so a detail the trace dropped (a 1 px whisker or string, a thin outline,
// a small emblem merged into a blob) is caught even when the whole-image mean error stays small. Windows
// that fail are taken from the raster route instead (Lanczos-3 + halo-free sharpen) through a feathered
// mask; when failing windows cover most of the visible art, the whole image falls back.
// Error per input pixel: |luma(input) - luma(back)| on the mid-grey composites (0..255), or ALPHA_WEIGHT x the
// alpha difference (0..1) where that is larger. Luma, not the max over RGB as in roundTripError (vector.ts): a
// JPEG's 4:2:0 chroma smears every colour edge by a pixel, which the clean vector render rightly does not
// reproduce, while lost lines and shapes show in luma. The alpha term: over mid-grey, ink of luma L that
// vanishes shows only as |L - 128| x its coverage, nothing for mid-luma ink (the teal hairline lettering of
// lettering-mountain-club, luma 131, erased by the trace at 2x and 4x while the luma error stayed <= 2); counted
// as black or white ink would be (128 per unit of alpha), lost coverage shows whatever the ink's brightness.
// Black or white ink on transparency and opaque images get the same number as from luma alone. A window fails on any of:
//  - lost thin structure: >= LOST_PIXELS pixels off by more than LOST_ERROR (a vanished 1 px line differs
//    by about half its contrast on every pixel it crossed; a traced edge displaced by a fraction of a pixel
//    stays far below it),
//  - smeared detail: >= SMEAR_PIXELS pixels off by more than SMEAR_ERROR (merged emblem parts, shifted ink),
//  - a mean error above WINDOW_MEAN (colour shifted over the window).
// Calibrated on corpus/open (bench `upscale`): at 4x from 256 px, of 35 flat pieces windows fail on the two
// whose vector render loses to resampling (lettering-brew-co, flag-br: patched 14 % and 12 % of the art, +1.9 and
// +3.6 dB over the render alone, above resample too) and on no other; the whiskers test art
// (test/engine/upscale/guard.test.ts) fails exactly where the trace erased whiskers. The alpha term adds, over all
// 40 pieces at 2x and 4x, lettering-mountain-club (2x +1.01 dB, 4x +0.73, its hairlines back) and 2 windows of
// si-docker at 2x (+0.13); no piece got worse.
import sharp from 'sharp';
import type { Raster } from '../raster/types.js';

/** Window side and stride in input pixels (windows overlap by half, so a detail on a border is seen whole). */
export const GUARD_WINDOW = 16;
const STRIDE = GUARD_WINDOW / 2;
export const LOST_ERROR = 64;
export const LOST_PIXELS = 6;
export const SMEAR_ERROR = 32;
export const SMEAR_PIXELS = 24;
export const WINDOW_MEAN = 12;
/** Error per unit of alpha lost or gained: what black or white ink over the mid-grey composite shows. */
export const ALPHA_WEIGHT = 128;
/** Above this share of the visible input area in failing windows, the whole image falls back. */
export const WHOLE_FALLBACK_SHARE = 0.5;
/** Feather of the patch mask, in input pixels on each side of a failing window's border. */
const FEATHER = 3;

export interface GuardReport {
  /** Mean round-trip error over visible pixels (the old whole-image guard's number). */
  meanError: number;
  /** Windows checked and windows that failed. */
  windows: number;
  failed: number;
  /** Share of the visible input area inside failing windows (0..1). */
  share: number;
  /** Per input pixel, 1 inside a failing window, else 0 (length width*height); null when nothing failed. */
  mask: Uint8Array | null;
}

/** Rec. 709 luma weights: the guard compares brightness, which JPEG keeps at full resolution (chroma is halved). */
const LUMA = [0.2126, 0.7152, 0.0722] as const;

function composite(d: Uint8ClampedArray | Uint8Array | Buffer, i: number, c: number): number {
  const a = d[i + 3]!;
  return (d[i + c]! * a + 128 * (255 - a)) / 255;
}

/** Per-pixel round-trip error of `big` (a render at an integer scale of `src`) against `src`; 0 where both are transparent. */
export async function roundTripMap(src: Raster, big: Raster): Promise<Float32Array> {
  const back = await sharp(Buffer.from(big.data.buffer, big.data.byteOffset, big.data.byteLength), { raw: { width: big.width, height: big.height, channels: 4 }, limitInputPixels: false })
    .resize(src.width, src.height, { kernel: 'cubic', fit: 'fill' })
    .raw()
    .toBuffer();
  const a = src.data, n = src.width * src.height;
  const err = new Float32Array(n);
  for (let p = 0; p < n; p++) {
    const i = p * 4;
    if (a[i + 3] === 0 && back[i + 3] === 0) continue;
    let d = 0;
    for (let c = 0; c < 3; c++) d += LUMA[c]! * (composite(a, i, c) - composite(back, i, c));
    err[p] = Math.max(Math.abs(d), (ALPHA_WEIGHT * Math.abs(a[i + 3]! - back[i + 3]!)) / 255);
  }
  return err;
}

/** Check a vector render window by window (see the file header). */
export async function checkRoundTrip(src: Raster, big: Raster): Promise<GuardReport> {
  const { width: w, height: h } = src;
  const err = await roundTripMap(src, big);
  let sum = 0, visible = 0;
  for (let p = 0; p < w * h; p++) {
    if (src.data[p * 4 + 3]! > 0 || err[p]! > 0) {
      sum += err[p]!;
      visible++;
    }
  }
  let windows = 0, failed = 0;
  let mask: Uint8Array | null = null;
  for (let y0 = 0; y0 < h; y0 += STRIDE) {
    const y1 = Math.min(h, y0 + GUARD_WINDOW);
    for (let x0 = 0; x0 < w; x0 += STRIDE) {
      const x1 = Math.min(w, x0 + GUARD_WINDOW);
      let s = 0, lost = 0, smear = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const e = err[y * w + x]!;
          s += e;
          if (e > LOST_ERROR) lost++;
          if (e > SMEAR_ERROR) smear++;
        }
      }
      windows++;
      if (lost >= LOST_PIXELS || smear >= SMEAR_PIXELS || s / ((x1 - x0) * (y1 - y0)) > WINDOW_MEAN) {
        failed++;
        mask ??= new Uint8Array(w * h);
        for (let y = y0; y < y1; y++) mask.fill(1, y * w + x0, y * w + x1);
      }
      if (x1 === w) break;
    }
    if (y1 === h) break;
  }
  let inside = 0;
  if (mask) for (let p = 0; p < w * h; p++) if (mask[p] && (src.data[p * 4 + 3]! > 0 || err[p]! > 0)) inside++;
  return { meanError: visible ? sum / visible : 0, windows, failed, share: visible ? inside / visible : 0, mask };
}

/** Box blur of a float plane, radius r, clamped at the borders (separable, one pass each way). */
function boxBlur(m: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h), out = new Float32Array(w * h), k = 2 * r + 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += m[y * w + Math.min(w - 1, Math.max(0, x + d))]!;
      tmp[y * w + x] = s / k;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += tmp[Math.min(h - 1, Math.max(0, y + d)) * w + x]!;
      out[y * w + x] = s / k;
    }
  }
  return out;
}

/**
 * Feathered weight of the raster route per input pixel: 1 inside failing windows, falling to 0 about
 * 2 * FEATHER px outside them (dilate by FEATHER, then a box blur of radius FEATHER).
 */
function featherMask(mask: Uint8Array, w: number, h: number): Float32Array {
  const m = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!mask[y * w + x]) continue;
      for (let yy = Math.max(0, y - FEATHER); yy <= Math.min(h - 1, y + FEATHER); yy++) m.fill(1, yy * w + Math.max(0, x - FEATHER), yy * w + Math.min(w, x + FEATHER + 1));
    }
  }
  const f = boxBlur(m, w, h, FEATHER);
  // Inside the failing windows themselves the raster route takes over completely.
  for (let p = 0; p < w * h; p++) if (mask[p]) f[p] = 1;
  return f;
}

/**
 * `vector` with the failing windows of `report` replaced by `raster` (both `scale` x the input size),
 * blended in premultiplied alpha through the feathered mask (bilinear up to the output size).
 */
export function patchFailingWindows(vector: Raster, raster: Raster, report: GuardReport, srcWidth: number, srcHeight: number): Raster {
  if (!report.mask) return vector;
  const m = featherMask(report.mask, srcWidth, srcHeight);
  const W = vector.width, H = vector.height, sx = srcWidth / W, sy = srcHeight / H;
  const out = new Uint8ClampedArray(vector.data);
  const v = vector.data, r = raster.data;
  for (let Y = 0; Y < H; Y++) {
    const fy = Math.min(srcHeight - 1, Math.max(0, (Y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy), y1 = Math.min(srcHeight - 1, y0 + 1), ty = fy - y0;
    for (let X = 0; X < W; X++) {
      const fx = Math.min(srcWidth - 1, Math.max(0, (X + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx), x1 = Math.min(srcWidth - 1, x0 + 1), tx = fx - x0;
      const k = (m[y0 * srcWidth + x0]! * (1 - tx) + m[y0 * srcWidth + x1]! * tx) * (1 - ty) + (m[y1 * srcWidth + x0]! * (1 - tx) + m[y1 * srcWidth + x1]! * tx) * ty;
      if (k <= 0) continue;
      const o = (Y * W + X) * 4;
      const av = v[o + 3]! * (1 - k), ar = r[o + 3]! * k, a = av + ar;
      if (a <= 0) {
        out[o + 3] = 0;
        continue;
      }
      for (let c = 0; c < 3; c++) out[o + c] = (v[o + c]! * av + r[o + c]! * ar) / a;
      out[o + 3] = a;
    }
  }
  return { width: W, height: H, data: out };
}
