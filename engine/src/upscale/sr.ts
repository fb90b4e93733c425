// Super-resolution path: runs the ESRGAN-slim model (see model.ts) over the image in overlapping tiles
// so peak memory stays within a bound whatever the image size. Each tile carries a margin of PAD source
// pixels (the network's receptive field is ~10 px) that is cut away after inference, so tile seams are
// invisible. The image is reflect-padded by PAD on every side first, so tiles at the border get real-looking
// context too: the network's own zero ('same') padding would darken the outermost output rows and columns
// (a dark 1-2 px line along the edges). Colour under transparency is bled first (bleed.ts); alpha is resampled with Lanczos-3 as
// its own plane, so edges keep no dark or light fringe.
import { InkprepError } from '../errors.js';
import sharp from 'sharp';
import type { Raster } from '../raster/types.js';
import { bleedColour } from './bleed.js';
import { getModel, type ModelScale, type ModelVariant } from './model.js';

/** Source pixels of context around each tile. */
export const PAD = 10;
/** Default memory bound for one tile's activations, in bytes. */
export const DEFAULT_TILE_MEMORY = 96 * 1024 * 1024;

/** Channels of the model's last feature map before the output conv (3 * scale^2 in esrgan-slim). */
function upChannels(scale: ModelScale): number {
  return 3 * scale * scale;
}

/** Largest tile side (without margins) whose activations fit `memory` bytes. */
export function tileSide(scale: ModelScale, memory = DEFAULT_TILE_MEMORY): number {
  const perPixel = scale * scale * (upChannels(scale) + 3) * 4 + 2048;
  return Math.max(32, Math.floor(Math.sqrt(memory / perPixel)) - 2 * PAD);
}

export interface SrOptions {
  /** Weights variant; default DEFAULT_VARIANT (model.ts). */
  variant?: ModelVariant;
  /** Pixel range the network is fed and returns: 1 (0..1) or 255 (0..255); default 1. */
  range?: 1 | 255;
  /** Memory bound per tile in bytes; default 96 MiB. */
  tileMemory?: number;
  /** Called after each tile with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

/** Source index of coordinate `i` in 0..n-1 reflected at the borders (edge pixel not repeated: -1 -> 1). */
function reflect(i: number, n: number): number {
  if (n === 1) return 0;
  const period = 2 * (n - 1);
  let j = ((i % period) + period) % period;
  if (j >= n) j = period - j;
  return j;
}

/** Lanczos-3 of the alpha plane alone (one byte per pixel). */
async function resizeAlpha(src: Raster, width: number, height: number): Promise<Uint8Array> {
  const n = src.width * src.height;
  const a = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) a[i] = src.data[i * 4 + 3]!;
  return sharp(a, { raw: { width: src.width, height: src.height, channels: 1 }, limitInputPixels: false })
    .resize(width, height, { kernel: 'lanczos3', fit: 'fill' })
    .extractChannel(0) // sharp widens one-channel raw input to sRGB; keep the single plane
    .raw()
    .toBuffer();
}

/**
 * Upscale a raster by 2 or 4 with the model.
 * @throws InkprepError `processing_failed` when the model runtime is unavailable.
 */
export async function upscaleModel(src: Raster, scale: ModelScale, opts: SrOptions = {}): Promise<Raster> {
  const model = await getModel(scale, opts.variant);
  const range = opts.range ?? 1;
  if (!model) throw new InkprepError('processing_failed', 'The super-resolution model is not available');
  const { width: w, height: h } = src;
  const W = w * scale, H = h * scale;
  const bled = bleedColour(src);
  const alpha = await resizeAlpha(src, W, H);
  const out = new Uint8ClampedArray(W * H * 4);
  const side = tileSide(scale, opts.tileMemory);
  const tilesX = Math.ceil(w / side), tilesY = Math.ceil(h / side);
  const total = tilesX * tilesY;
  let done = 0;
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      const x0 = tx * side, y0 = ty * side;
      const x1 = Math.min(w, x0 + side), y1 = Math.min(h, y0 + side);
      // Window with PAD px of context on every side; outside the image the context is the reflection.
      const px0 = x0 - PAD, py0 = y0 - PAD;
      const tw = x1 - x0 + 2 * PAD, th = y1 - y0 + 2 * PAD;
      const plane = tw * th;
      const input = new Float32Array(3 * plane);
      for (let y = 0; y < th; y++) {
        const sy = reflect(py0 + y, h);
        for (let x = 0; x < tw; x++) {
          const s = (sy * w + reflect(px0 + x, w)) * 4;
          const d = y * tw + x;
          input[d] = (bled.data[s]! * range) / 255;
          input[plane + d] = (bled.data[s + 1]! * range) / 255;
          input[2 * plane + d] = (bled.data[s + 2]! * range) / 255;
        }
      }
      const res = await model.run(input, tw, th);
      const TW = tw * scale, TP = TW * th * scale;
      const ox = (x0 - px0) * scale, oy = (y0 - py0) * scale;
      for (let y = 0; y < (y1 - y0) * scale; y++) {
        const Y = y0 * scale + y;
        for (let x = 0; x < (x1 - x0) * scale; x++) {
          const X = x0 * scale + x;
          const s = (oy + y) * TW + ox + x;
          const d = (Y * W + X) * 4;
          out[d] = (res[s]! * 255) / range;
          out[d + 1] = (res[TP + s]! * 255) / range;
          out[d + 2] = (res[2 * TP + s]! * 255) / range;
          out[d + 3] = alpha[Y * W + X]!;
        }
      }
      done++;
      opts.onProgress?.(done, total);
    }
  }
  return { width: W, height: H, data: out };
}
