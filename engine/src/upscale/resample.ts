// Resampling path of the upscaler: Lanczos-3 (libvips through sharp) followed by a mild, halo-free unsharp
// mask (sharpen.ts). Used for art that is neither flat nor painted, and as the fallback when another path
// is unavailable. Alpha edges: colour is first bled under (near-)transparent pixels (bleed.ts), then colour
// and alpha are resampled as separate planes. Like premultiplied resampling this never pulls the RGB that
// transparent pixels happen to hold into an edge (no dark/light fringe), and unlike it the colour of
// low-alpha pixels keeps full precision and stays defined for the sharpen that follows.
import sharp from 'sharp';
import type { Raster } from '../raster/types.js';
import { bleedColour } from './bleed.js';
import { sharpenHaloFree } from './sharpen.js';

/** Lanczos-3 resize of colour (bled, as opaque RGB) and alpha as separate planes. */
export async function resizeBled(src: Raster, width: number, height: number): Promise<Raster> {
  const n = src.width * src.height;
  const bled = bleedColour(src);
  const rgb = Buffer.allocUnsafe(n * 3);
  const a = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) {
    rgb[i * 3] = bled.data[i * 4]!;
    rgb[i * 3 + 1] = bled.data[i * 4 + 1]!;
    rgb[i * 3 + 2] = bled.data[i * 4 + 2]!;
    a[i] = src.data[i * 4 + 3]!;
  }
  const opts = { limitInputPixels: false as const };
  const [c, al] = await Promise.all([
    sharp(rgb, { raw: { width: src.width, height: src.height, channels: 3 }, ...opts }).resize(width, height, { kernel: 'lanczos3', fit: 'fill' }).raw().toBuffer(),
    sharp(a, { raw: { width: src.width, height: src.height, channels: 1 }, ...opts }).resize(width, height, { kernel: 'lanczos3', fit: 'fill' }).extractChannel(0).raw().toBuffer(),
  ]);
  const m = width * height;
  const data = new Uint8ClampedArray(m * 4);
  for (let i = 0; i < m; i++) {
    data[i * 4] = c[i * 3]!;
    data[i * 4 + 1] = c[i * 3 + 1]!;
    data[i * 4 + 2] = c[i * 3 + 2]!;
    data[i * 4 + 3] = al[i]!;
  }
  return { width, height, data };
}

/** Upscale by `scale` with Lanczos-3, then sharpen mildly without halos (sigma scales with the factor). */
export async function upscaleResample(src: Raster, scale: number): Promise<Raster> {
  const big = await resizeBled(src, src.width * scale, src.height * scale);
  return sharpenHaloFree(big, { sigma: 0.5 * scale, amount: 0.6 });
}
