// The artwork as the mockup renderer reads it: its size, and its pixels resampled to the print size on
// demand (through the design cache). Encoded artwork is decoded and resampled in one libvips pipeline.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { decodeImage, probeImage } from '../raster/decode.js';
import type { Raster } from '../raster/types.js';
import { designCacheGet, designCachePut } from './design-cache.js';

// Downscale kernel for the design: Mitchell (a preview; ~1/3 less CPU than Lanczos-3 on a 3300 px PNG and no ringing).
const DESIGN_KERNEL = 'mitchell' as const;

/** `d` resampled to w x h with the design kernel (itself when already that size). */
export async function resizeDesign(d: Raster, w: number, h: number): Promise<Raster> {
  if (w === d.width && h === d.height) return d;
  const buf = await sharp(Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength), { raw: { width: d.width, height: d.height, channels: 4 }, limitInputPixels: false })
    .resize(w, h, { kernel: DESIGN_KERNEL, fit: 'fill' })
    .raw()
    .toBuffer();
  return { width: w, height: h, data: new Uint8ClampedArray(buf.buffer, buf.byteOffset, buf.byteLength) };
}

/** The artwork as the renderer needs it: its size, and a way to get it resampled to the print size. */
export interface DesignSource {
  width: number;
  height: number;
  /** Identity of the artwork's bytes (caches judgements about it), when known. */
  key?: string;
  resized(w: number, h: number): Promise<Raster>;
}

export function rasterSource(r: Raster): DesignSource {
  return { width: r.width, height: r.height, resized: (w, h) => resizeDesign(r, w, h) };
}

/**
 * Encoded artwork: the header is probed (format, pixel limit, orientation) and the pixels are decoded and
 * resampled to the print size in one libvips pipeline (no full-size copy), converted to 8-bit sRGB RGBA.
 * Sources that libvips cannot shrink that way (e.g. 16-bit or CMYK) go through decodeImage.
 */
export async function bytesSource(bytes: Uint8Array, maxPixels: number): Promise<DesignSource> {
  const info = await probeImage(bytes, { maxPixels });
  const simple = info.bitsPerSample === 8 && (info.space === 'srgb' || info.space === 'b-w') && !info.icc;
  const hash = createHash('sha1').update(bytes).digest('hex');
  let decoded: Promise<Raster> | null = null;
  const full = () => (decoded ??= decodeImage(bytes, { maxPixels }).then((d) => d.raster));
  return {
    width: info.width,
    height: info.height,
    key: hash,
    async resized(w, h) {
      const key = `${hash}:${w}x${h}`;
      const hit = designCacheGet(key);
      if (hit) return hit;
      let r: Raster | null = null;
      if (simple) {
        try {
          const buf = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', pages: 1 })
            .autoOrient()
            .toColourspace('srgb')
            .ensureAlpha()
            .resize(w, h, { kernel: DESIGN_KERNEL, fit: 'fill' })
            .raw()
            .toBuffer();
          if (buf.length === w * h * 4) r = { width: w, height: h, data: new Uint8ClampedArray(buf.buffer, buf.byteOffset, buf.byteLength) };
        } catch {
          r = null;
        }
      }
      r ??= await resizeDesign(await full(), w, h);
      designCachePut(key, r);
      return r;
    },
  };
}

/**
 * Encoded artwork read for a batch of mockups: decoded once, on the first size the design cache does not
 * hold, and every print size resampled from that one decode (bytesSource would decode the file again for
 * each new size). The decoded pixels live as long as the source.
 */
export async function decodedOnceSource(bytes: Uint8Array, maxPixels: number): Promise<DesignSource> {
  const info = await probeImage(bytes, { maxPixels });
  const hash = createHash('sha1').update(bytes).digest('hex');
  let decoded: Promise<Raster> | null = null;
  // Sizes being resampled now: items rendered side by side wait for one resample of their size.
  const pending = new Map<string, Promise<Raster>>();
  return {
    width: info.width,
    height: info.height,
    key: hash,
    resized(w, h) {
      const key = `${hash}:${w}x${h}`;
      const hit = designCacheGet(key);
      if (hit) return Promise.resolve(hit);
      let p = pending.get(key);
      if (!p) {
        decoded ??= decodeImage(bytes, { maxPixels }).then((d) => d.raster);
        p = decoded.then((full) => resizeDesign(full, w, h)).then((r) => {
          designCachePut(key, r);
          return r;
        }).finally(() => pending.delete(key));
        pending.set(key, p);
      }
      return p;
    },
  };
}
