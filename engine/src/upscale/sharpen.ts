// Halo-free sharpening after resampling: an unsharp mask (v + amount * (v - gaussian(v))) whose result is
// clamped to the minimum and maximum of the pixel's 3x3 neighbourhood, so edges get steeper but can never
// overshoot into the bright/dark halos a plain unsharp mask draws next to them. RGB only; alpha untouched.
import sharp from 'sharp';
import type { Raster } from '../raster/types.js';

export interface SharpenOptions {
  /** Gaussian sigma in output pixels; default 1.0. */
  sigma?: number;
  /** Unsharp amount; default 0.6 ("mild"). */
  amount?: number;
}

/**
 * Sharpen a raster in place (RGB), clamped to the local 3x3 range. Returns the same raster.
 * The Gaussian runs in libvips (sharp); the clamp is a separable 3x3 min/max here.
 */
export async function sharpenHaloFree(r: Raster, opts: SharpenOptions = {}): Promise<Raster> {
  const sigma = Math.max(0.3, opts.sigma ?? 1.0);
  const amount = opts.amount ?? 0.6;
  const { width: w, height: h, data } = r;
  const n = w * h;
  const rgb = Buffer.allocUnsafe(n * 3);
  for (let i = 0, j = 0; i < n * 4; i += 4, j += 3) {
    rgb[j] = data[i]!;
    rgb[j + 1] = data[i + 1]!;
    rgb[j + 2] = data[i + 2]!;
  }
  const blur = await sharp(rgb, { raw: { width: w, height: h, channels: 3 }, limitInputPixels: false }).blur(sigma).raw().toBuffer();
  // Horizontal 3-wide min and max, then vertical, per channel (interleaved RGB).
  const hmin = new Uint8Array(n * 3), hmax = new Uint8Array(n * 3);
  for (let y = 0; y < h; y++) {
    const row = y * w * 3;
    for (let x = 0; x < w; x++) {
      const l = row + (x > 0 ? x - 1 : 0) * 3, c = row + x * 3, rr = row + (x < w - 1 ? x + 1 : x) * 3;
      for (let ch = 0; ch < 3; ch++) {
        const a = rgb[l + ch]!, b = rgb[c + ch]!, d = rgb[rr + ch]!;
        hmin[c + ch] = a < b ? (a < d ? a : d) : b < d ? b : d;
        hmax[c + ch] = a > b ? (a > d ? a : d) : b > d ? b : d;
      }
    }
  }
  const rowLen = w * 3;
  for (let y = 0; y < h; y++) {
    const up = (y > 0 ? y - 1 : 0) * rowLen, mid = y * rowLen, dn = (y < h - 1 ? y + 1 : y) * rowLen;
    for (let x = 0; x < rowLen; x++) {
      const a = hmin[up + x]!, b = hmin[mid + x]!, d = hmin[dn + x]!;
      const lo = a < b ? (a < d ? a : d) : b < d ? b : d;
      const e = hmax[up + x]!, f = hmax[mid + x]!, g = hmax[dn + x]!;
      const hi = e > f ? (e > g ? e : g) : f > g ? f : g;
      const v0 = rgb[mid + x]!;
      let v = v0 + amount * (v0 - blur[mid + x]!);
      if (v < lo) v = lo;
      else if (v > hi) v = hi;
      const px = mid + x;
      const pixel = (px / 3) | 0;
      data[pixel * 4 + (px - pixel * 3)] = v;
    }
  }
  return r;
}
