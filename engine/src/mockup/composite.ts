// Putting ink on cloth. Fabric mode: the design is displaced along the gradient of the blurred garment
// height field (ink follows the folds), multiplied by the (low-passed) garment luminance normalised by its median in
// the print area (L / median L, so dark blanks do not crush the ink and DTF film stays its true colour),
// brightened by a light screen on highlights, edge-feathered by a ~0.7 px blur of its alpha, and masked
// to the garment. Flat mode is a plain alpha paste. All work is confined to the print rectangle.
import { srgbToLinear8 } from '../colour/convert.js';

const TO_LIN = new Float32Array(256);
for (let i = 0; i < 256; i++) TO_LIN[i] = srgbToLinear8(i);
import { blur, smooth121 } from '../garments/field.js';
import { linearToSrgb8 } from '../garments/colorize.js';
import type { GarmentAsset } from '../garments/cache.js';
import type { Raster } from '../raster/types.js';

export interface PrintRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Median of the garment luminance (8-bit luma) under the print rectangle, where the garment is. */
export function medianLuma(g: GarmentAsset, r: PrintRect): number {
  const hist = new Uint32Array(256);
  let n = 0;
  const x0 = Math.max(0, r.left), y0 = Math.max(0, r.top);
  const x1 = Math.min(g.width, r.left + r.width), y1 = Math.min(g.height, r.top + r.height);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * g.width + x;
      if (g.mask[i]! < 128) continue;
      const o = i * 4;
      hist[(g.rgba[o]! * 54 + g.rgba[o + 1]! * 183 + g.rgba[o + 2]! * 19) >> 8]++;
      n++;
    }
  }
  if (n === 0) return 128;
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += hist[v]!;
    if (acc * 2 >= n) return Math.max(1, v);
  }
  return 255;
}

const prepared = new WeakMap<Raster, Float32Array>();

/**
 * The design as premultiplied linear light with its alpha softened by a [1 2 1] blur (sigma ~0.7 px, the
 * edge feather; colour is kept by scaling the premultiplied values), interleaved r,g,b,a. Cached per raster.
 */
export function preparedDesign(design: Raster): Float32Array {
  const hit = prepared.get(design);
  if (hit) return hit;
  const dw = design.width, dh = design.height, dd = design.data;
  const n = dw * dh;
  const pa = new Float32Array(n);
  for (let i = 0; i < n; i++) pa[i] = dd[i * 4 + 3]! / 255;
  const soft = smooth121(pa, dw, dh);
  const P = new Float32Array(n * 4);
  for (let i = 0, o = 0; i < n; i++, o += 4) {
    const s = soft[i]!;
    if (s <= 0) continue;
    P[o + 3] = s;
    if (pa[i]! <= 0) continue; // no colour of its own (as before: the feathered rim carries none)
    // straight colour x softened alpha = premultiplied with the feathered alpha
    P[o] = TO_LIN[dd[o]!]! * s;
    P[o + 1] = TO_LIN[dd[o + 1]!]! * s;
    P[o + 2] = TO_LIN[dd[o + 2]!]! * s;
  }
  prepared.set(design, P);
  return P;
}

/**
 * Composite `design` (already resized to rect.width x rect.height) onto `out` (a copy of the garment RGBA).
 * `fabric` 0-1, or null for a flat paste.
 */
export function compositeDesign(out: Uint8ClampedArray, g: GarmentAsset, design: Raster, rect: PrintRect, fabric: number | null, ppi: number): void {
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
  // Premultiplied linear design, feathered, interleaved r,g,b,a (one cache line per bilinear tap row);
  // kept per design raster (a resampled design is reused across colours, sizes and views).
  const P = preparedDesign(design);
  const med = medianLuma(g, rect);
  // Garment light under the print, low-passed: folds shade the film, knit grain and heather specks do not
  // (DTF film is a smooth opaque layer).
  const rw = x1 - x0, rh = y1 - y0;
  if (rw <= 0 || rh <= 0) return;
  const lum = new Float32Array(rw * rh);
  for (let y = 0; y < rh; y++) {
    for (let x = 0; x < rw; x++) {
      const o = ((y + y0) * W + x + x0) * 4;
      lum[y * rw + x] = TO_LIN[(out[o]! * 54 + out[o + 1]! * 183 + out[o + 2]! * 19) >> 8]!;
    }
  }
  const lumSoft = blur(lum, rw, rh, Math.max(1, 0.06 * ppi));
  const medLin = TO_LIN[med]!;
  // Displacement: inches of offset per unit slope, scaled by fabric; the field is in inches.
  const disp = 0.14 * fabric * ppi;
  const hgt = g.height_in;
  const H = g.height;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * W + x;
      const m = g.print_mask[i]! / 255;
      if (m <= 0) continue;
      const xl = x > 0 ? i - 1 : i, xr = x < W - 1 ? i + 1 : i;
      const yu = y > 0 ? i - W : i, yd = y < H - 1 ? i + W : i;
      const gx = ((hgt[xr]! - hgt[xl]!) * ppi) / 2;
      const gy = ((hgt[yd]! - hgt[yu]!) * ppi) / 2;
      // Sample the design where the fold pulls it from.
      const sx = x - rect.left + gx * disp;
      const sy = y - rect.top + gy * disp;
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
      // Light on the ink: normalised luminance multiply in shadows, a light screen in highlights.
      const o = i * 4;
      const o0 = out[o]!, o1 = out[o + 1]!, o2 = out[o + 2]!;
      const L = lumSoft[(y - y0) * rw + (x - x0)]!;
      const ratio = L / medLin;
      if (ratio < 1) {
        const k = 1 - fabric * 0.92 * (1 - Math.max(0.15, ratio));
        r *= k; gg *= k; b *= k;
      } else {
        const s = Math.min(0.06, fabric * 0.12 * (ratio - 1));
        r = 1 - (1 - r) * (1 - s); gg = 1 - (1 - gg) * (1 - s); b = 1 - (1 - b) * (1 - s);
      }
      const al = Math.min(1, a) * m;
      out[o] = linearToSrgb8(r * al + TO_LIN[o0]! * (1 - al));
      out[o + 1] = linearToSrgb8(gg * al + TO_LIN[o1]! * (1 - al));
      out[o + 2] = linearToSrgb8(b * al + TO_LIN[o2]! * (1 - al));
    }
  }
}
