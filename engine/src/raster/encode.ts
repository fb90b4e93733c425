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
  /** PNG/WebP: write RGB without an alpha channel (the caller knows the image is opaque); default false. */
  dropAlpha?: boolean;
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
  if (opts.dropAlpha && format !== 'jpeg') s = s.removeAlpha();
  if (format === 'png') s = s.png({ compressionLevel: opts.compressionLevel ?? 6, adaptiveFiltering: false });
  else if (format === 'jpeg') s = s.flatten({ background: opts.background ?? { r: 255, g: 255, b: 255 } }).jpeg({ quality: opts.quality ?? 92, chromaSubsampling: '4:4:4' });
  else s = s.webp({ quality: opts.quality ?? 92, alphaQuality: 100 });
  let buf: Uint8Array = await s.toBuffer();
  // libvips gives raw pixels a resolution of 1 px/mm and writes it as pHYs (25.4 DPI): a file written
  // without a dpi must state no density at all, not a wrong one.
  if (format === 'png' && !(opts.dpi && opts.dpi > 0)) buf = removePngChunk(buf, 'pHYs');
  const out = new Uint8Array(buf.length);
  out.set(buf);
  return out;
}

/** A PNG without any chunk of the given type (returns the input when there is none). */
function removePngChunk(png: Uint8Array, type: string): Uint8Array {
  const keep: Uint8Array[] = [png.subarray(0, 8)];
  let p = 8;
  let removed = false;
  while (p + 12 <= png.length) {
    const len = ((png[p]! << 24) | (png[p + 1]! << 16) | (png[p + 2]! << 8) | png[p + 3]!) >>> 0;
    const t = String.fromCharCode(png[p + 4]!, png[p + 5]!, png[p + 6]!, png[p + 7]!);
    const end = Math.min(png.length, p + 12 + len);
    if (t === type) removed = true;
    else keep.push(png.subarray(p, end));
    p = end;
  }
  if (!removed) return png;
  return Buffer.concat(keep);
}

/** Encode PNG with its print density. */
export function encodePng(r: Raster, opts: EncodeOptions = {}): Promise<Uint8Array> {
  return encodeImage(r, 'png', opts);
}

/** Encode one 8-bit plane (0 black .. 255 white) as a greyscale PNG with its print density. */
export async function encodeGreyPng(plane: Uint8Array, width: number, height: number, dpi?: number): Promise<Uint8Array> {
  let s = sharp(Buffer.from(plane.buffer, plane.byteOffset, plane.byteLength), { raw: { width, height, channels: 1 }, limitInputPixels: false });
  if (dpi && dpi > 0) s = s.withDensity(dpi);
  let buf: Uint8Array = await s.toColourspace('b-w').png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
  if (!(dpi && dpi > 0)) buf = removePngChunk(buf, 'pHYs');
  const out = new Uint8Array(buf.length);
  out.set(buf);
  return out;
}
