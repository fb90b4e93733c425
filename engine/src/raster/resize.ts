// Resampling a Raster with a Lanczos-3 kernel in premultiplied alpha (libvips through sharp): colour is
// weighted by alpha before filtering and divided back after, so transparent pixels (whatever RGB they
// hold) never bleed a dark or stray fringe into edges.
import sharp from 'sharp';
import type { Raster } from './types.js';

/** Target size; with one side only, the other keeps the aspect ratio (rounded, at least 1 px). */
export interface ResizeTarget {
  width?: number;
  height?: number;
}

/** Output size for a target: aspect kept with one side, exact with both. */
export function resizeDimensions(width: number, height: number, t: ResizeTarget): { width: number; height: number } {
  if (t.width && t.height) return { width: t.width, height: t.height };
  if (t.width) return { width: t.width, height: Math.max(1, Math.round((height * t.width) / width)) };
  if (t.height) return { width: Math.max(1, Math.round((width * t.height) / height)), height: t.height };
  return { width, height };
}

/**
 * Resize with Lanczos-3 in premultiplied alpha. Returns the input unchanged when the size is the same.
 * @example const big = await resizeRaster(r, { width: 3600 });
 */
export async function resizeRaster(r: Raster, target: ResizeTarget): Promise<Raster> {
  const { width, height } = resizeDimensions(r.width, r.height, target);
  if (width === r.width && height === r.height) return r;
  // sharp premultiplies RGBA before resampling and unpremultiplies after (libvips vips_premultiply).
  const out = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), {
    raw: { width: r.width, height: r.height, channels: 4 },
    limitInputPixels: false,
  })
    .resize(width, height, { kernel: 'lanczos3', fit: 'fill' })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const data = new Uint8ClampedArray(out.data.length);
  data.set(out.data);
  return { width: out.info.width, height: out.info.height, data };
}
