// Putting ink on cloth. Fabric mode: the design is displaced along the garment's fold relief (ink follows
// the folds: sampled where the fold pulls it from, by the relief's slope and, as seen from a camera a
// little above, by its height; zero on flat cloth), then lit by the cloth's own light (its folds, shadows
// and knit grain, 1 = the body's median, so a dark blank does not darken the ink: DTF film is opaque and
// keeps its colour), mixed in by `fabric`, and masked to the printable garment. The design is sampled
// bilinearly from its premultiplied linear pixels with no feathering, so ink edges stay as crisp as the
// artwork. Flat mode is a plain alpha paste. All work is confined to the print rectangle.
import { srgbToLinear8 } from '../colour/convert.js';
import { linearToSrgb8 } from '../garments/colorize.js';
import type { GarmentAsset } from '../garments/cache.js';
import { SHADE_SCALE } from '../garments/shade.js';
import type { Raster } from '../raster/types.js';

const TO_LIN = new Float32Array(256);
for (let i = 0; i < 256; i++) TO_LIN[i] = srgbToLinear8(i);

/** Inches the ink moves per unit slope of the fold relief, at fabric 1. */
export const DISPLACE_SLOPE_IN = 0.2;
/** Inches the ink moves down per inch of fold height, at fabric 1 (camera ~15 degrees above the garment). */
export const DISPLACE_HEIGHT = 0.26;

export interface PrintRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

const prepared = new WeakMap<Raster, Float32Array>();

/** The design as premultiplied linear light, interleaved r,g,b,a. Cached per raster. */
export function preparedDesign(design: Raster): Float32Array {
  const hit = prepared.get(design);
  if (hit) return hit;
  const dd = design.data;
  const n = design.width * design.height;
  const P = new Float32Array(n * 4);
  for (let i = 0, o = 0; i < n; i++, o += 4) {
    const a = dd[o + 3]! / 255;
    if (a <= 0) continue;
    P[o + 3] = a;
    P[o] = TO_LIN[dd[o]!]! * a;
    P[o + 1] = TO_LIN[dd[o + 1]!]! * a;
    P[o + 2] = TO_LIN[dd[o + 2]!]! * a;
  }
  prepared.set(design, P);
  return P;
}

/**
 * Composite `design` (already resized to rect.width x rect.height) onto `out` (a copy of the garment RGBA).
 * `fabric` 0-1, or null for a flat paste.
 */
export function compositeDesign(out: Uint8ClampedArray, g: GarmentAsset, design: Raster, rect: PrintRect, fabric: number | null): void {
  const W = g.width;
  const dw = design.width, dh = design.height;
  const dd = design.data;
  const x0 = Math.max(0, rect.left), y0 = Math.max(0, rect.top);
  const x1 = Math.min(g.width, rect.left + dw), y1 = Math.min(g.height, rect.top + dh);
  if (fabric === null) {
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const i = y * W + x;
        const s = ((y - rect.top) * dw + (x - rect.left)) * 4;
        const a = (dd[s + 3]! / 255) * (g.print_mask[i]! / 255);
        if (a <= 0) continue;
        const o = i * 4;
        out[o] = dd[s]! * a + out[o]! * (1 - a);
        out[o + 1] = dd[s + 1]! * a + out[o + 1]! * (1 - a);
        out[o + 2] = dd[s + 2]! * a + out[o + 2]! * (1 - a);
      }
    }
    return;
  }
  // Premultiplied linear design, interleaved r,g,b,a (one cache line per bilinear tap row); kept per
  // design raster (a resampled design is reused across colours, sizes and views).
  const P = preparedDesign(design);
  if (x1 <= x0 || y1 <= y0) return;
  // The relief is in inches of the picture (not of the size shown), so its pixel scale is the picture's.
  const gppi = g.ppi;
  const kSlope = DISPLACE_SLOPE_IN * fabric * gppi;
  const kHeight = DISPLACE_HEIGHT * fabric * gppi;
  const fold = g.fold_in;
  const light = g.light;
  const H = g.height;
  const invScale = 1 / SHADE_SCALE;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * W + x;
      const m = g.print_mask[i]! / 255;
      if (m <= 0) continue;
      const xl = x > 0 ? i - 1 : i, xr = x < W - 1 ? i + 1 : i;
      const yu = y > 0 ? i - W : i, yd = y < H - 1 ? i + W : i;
      const gx = ((fold[xr]! - fold[xl]!) * gppi) / 2;
      const gy = ((fold[yd]! - fold[yu]!) * gppi) / 2;
      // Sample the design where the fold pulls it from.
      const sx = x - rect.left + gx * kSlope;
      const sy = y - rect.top + gy * kSlope - fold[i]! * kHeight;
      if (sx < -1 || sy < -1 || sx > dw || sy > dh) continue;
      const fx = Math.floor(sx), fy = Math.floor(sy);
      const tx = sx - fx, ty = sy - fy;
      let a: number, r: number, gg: number, b: number;
      if (fx >= 0 && fy >= 0 && fx < dw - 1 && fy < dh - 1) {
        // Fast path: all four taps inside the design.
        const j = (fy * dw + fx) * 4, jd = j + dw * 4;
        const w00 = (1 - tx) * (1 - ty), w10 = tx * (1 - ty), w01 = (1 - tx) * ty, w11 = tx * ty;
        a = P[j + 3]! * w00 + P[j + 7]! * w10 + P[jd + 3]! * w01 + P[jd + 7]! * w11;
        if (a <= 1e-4) continue;
        r = P[j]! * w00 + P[j + 4]! * w10 + P[jd]! * w01 + P[jd + 4]! * w11;
        gg = P[j + 1]! * w00 + P[j + 5]! * w10 + P[jd + 1]! * w01 + P[jd + 5]! * w11;
        b = P[j + 2]! * w00 + P[j + 6]! * w10 + P[jd + 2]! * w01 + P[jd + 6]! * w11;
      } else {
        a = 0; r = 0; gg = 0; b = 0;
        for (let k = 0; k < 4; k++) {
          const cx = fx + (k & 1), cy = fy + (k >> 1);
          if (cx < 0 || cy < 0 || cx >= dw || cy >= dh) continue;
          const wgt = (k & 1 ? tx : 1 - tx) * (k >> 1 ? ty : 1 - ty);
          const j = (cy * dw + cx) * 4;
          a += P[j + 3]! * wgt; r += P[j]! * wgt; gg += P[j + 1]! * wgt; b += P[j + 2]! * wgt;
        }
      }
      if (a <= 1e-4) continue;
      r /= a; gg /= a; b /= a;
      // The cloth's light on the ink (folds, shadows, knit grain), mixed in by fabric.
      const o = i * 4;
      const o0 = out[o]!, o1 = out[o + 1]!, o2 = out[o + 2]!;
      const k = Math.min(1.4, Math.max(0.1, 1 + fabric * (light[i]! * invScale - 1)));
      r *= k; gg *= k; b *= k;
      const al = Math.min(1, a) * m;
      out[o] = linearToSrgb8(r * al + TO_LIN[o0]! * (1 - al));
      out[o + 1] = linearToSrgb8(gg * al + TO_LIN[o1]! * (1 - al));
      out[o + 2] = linearToSrgb8(b * al + TO_LIN[o2]! * (1 - al));
    }
  }
}
