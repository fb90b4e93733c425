// Encoding at the edge: Raster -> PNG (with pHYs density), JPEG or WebP bytes via sharp.
import sharp, { type Sharp } from 'sharp';
import type { Raster } from './types.js';

export type OutputFormat = 'png' | 'jpeg' | 'webp';

export interface EncodeOptions {
  /** Density written into the file (PNG pHYs / JPEG JFIF / EXIF) in DPI; omitted when undefined. */
  dpi?: number;
  /** JPEG/WebP quality 1-100; default 92. */
  quality?: number;
  /** PNG zlib level 0-9; default 6. */
  compressionLevel?: number;
  /** JPEG has no alpha: composite over this colour first; default white. */
  background?: { r: number; g: number; b: number };
}

function fromRaster(r: Raster): Sharp {
  return sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), {
    raw: { width: r.width, height: r.height, channels: 4 },
    limitInputPixels: false,
  });
}

/** Encode a Raster. Returns a Uint8Array that owns its memory (safe to transfer between threads). */
export async function encodeImage(r: Raster, format: OutputFormat, opts: EncodeOptions = {}): Promise<Uint8Array> {
  let s = fromRaster(r);
  if (opts.dpi && opts.dpi > 0) s = s.withDensity(opts.dpi);
  if (format === 'png') s = s.png({ compressionLevel: opts.compressionLevel ?? 6, adaptiveFiltering: false });
  else if (format === 'jpeg') s = s.flatten({ background: opts.background ?? { r: 255, g: 255, b: 255 } }).jpeg({ quality: opts.quality ?? 92, chromaSubsampling: '4:4:4' });
  else s = s.webp({ quality: opts.quality ?? 92, alphaQuality: 100 });
  const buf = await s.toBuffer();
  const out = new Uint8Array(buf.length);
  out.set(buf);
  return out;
}

/** Encode PNG with its print density. */
export function encodePng(r: Raster, opts: EncodeOptions = {}): Promise<Uint8Array> {
  return encodeImage(r, 'png', opts);
}
