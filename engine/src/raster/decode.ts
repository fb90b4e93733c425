// Decoding at the edge: PNG/JPEG/WebP bytes -> 8-bit sRGB RGBA Raster via sharp, with a pixel limit
// checked from the header before any pixel is decoded (decompression-bomb guard).
import sharp, { type Metadata, type OutputInfo, type Sharp } from 'sharp';
import { InkprepError } from '../errors.js';
import { sniffFormat, sniffOtherImage } from './sniff.js';
import { statedDensity } from './density.js';
import type { DecodedImage, DecodeInfo, ImageFormat } from './types.js';

/** Default largest image the engine decodes, in pixels (100 MP). */
export const DEFAULT_MAX_PIXELS = 100_000_000;

export interface DecodeOptions {
  /** Largest width x height accepted, checked from the header; default 100,000,000. */
  maxPixels?: number;
  /** Accepted formats; default all of png, jpeg, webp. */
  formats?: readonly ImageFormat[];
  /**
   * Default true: the pixels are copied into an ArrayBuffer of our own, which can move between threads. False:
   * the raster views sharp's output buffer (native memory that cannot be transferred) and saves that copy, for
   * pixels used only on the thread that decoded them (a 100 MP image: 400 MB less at the peak).
   */
  copy?: boolean;
}

sharp.cache(false);

/**
 * Read the header only: format, size, density. Throws `unsupported_format`, `image_unreadable`
 * or `image_too_large` (with `maxPixels`, `pixels`) without decoding pixels.
 */
export async function probeImage(bytes: Uint8Array, opts: DecodeOptions = {}): Promise<DecodeInfo> {
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS;
  const format = sniffFormat(bytes);
  if (!format) {
    const other = sniffOtherImage(bytes);
    if (other) throw new InkprepError('unsupported_format', `Image format ${other} is not supported; send PNG, JPEG or WebP`, { format: other });
    throw new InkprepError('image_unreadable', 'The file cannot be read as an image (expected PNG, JPEG or WebP)');
  }
  if (opts.formats && !opts.formats.includes(format)) {
    throw new InkprepError('unsupported_format', `Image format ${format} is not accepted here; send ${opts.formats.map((f) => f.toUpperCase()).join(' or ')}`, { format });
  }
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'none' }).metadata();
  } catch (err) {
    throw new InkprepError('image_unreadable', `The ${format.toUpperCase()} file cannot be read: ${cleanMessage(err)}`, {}, { cause: err });
  }
  if (!meta.width || !meta.height) throw new InkprepError('image_unreadable', 'The image has no dimensions');
  const orientation = meta.orientation ?? 1;
  const swap = orientation >= 5 && orientation <= 8;
  const width = swap ? meta.height : meta.width;
  const height = swap ? meta.width : meta.height;
  const pixels = meta.width * (meta.pageHeight ?? meta.height);
  if (pixels > maxPixels) {
    throw new InkprepError('image_too_large', `The image is ${meta.width}x${meta.height} (${pixels} pixels); the limit is ${maxPixels} pixels`, { maxPixels, pixels });
  }
  const bits = depthBits(meta.depth);
  return {
    width,
    height: swap ? meta.width : (meta.pageHeight ?? height),
    format,
    isJpeg: format === 'jpeg',
    hasAlpha: !!meta.hasAlpha,
    density: statedDensity(bytes, format, meta.exif),
    space: meta.space ?? 'srgb',
    bitsPerSample: bits,
    channels: meta.channels ?? 0,
    icc: !!meta.icc,
    orientation,
    interlaced: !!meta.isProgressive,
    palette: !!meta.isPalette,
    bytes: bytes.length,
  };
}

/**
 * Decode to 8-bit sRGB RGBA with straight alpha: EXIF orientation applied; ICC profiles, CMYK,
 * 16-bit, greyscale, palette and interlaced sources converted. Only the first frame of an animation.
 * @throws InkprepError `unsupported_format` | `image_unreadable` | `image_too_large`
 */
export async function decodeImage(bytes: Uint8Array, opts: DecodeOptions = {}): Promise<DecodedImage> {
  const info = await probeImage(bytes, opts);
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS;
  let out: { data: Buffer; info: OutputInfo };
  try {
    out = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', pages: 1 })
      .autoOrient()
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    const msg = cleanMessage(err);
    if (/pixel limit/i.test(msg)) throw new InkprepError('image_too_large', `The image exceeds ${maxPixels} pixels`, { maxPixels, pixels: info.width * info.height });
    throw new InkprepError('image_unreadable', `The ${info.format.toUpperCase()} file is damaged or truncated: ${msg}`, {}, { cause: err });
  }
  if (out.info.channels !== 4) throw new InkprepError('image_unreadable', `Unexpected channel count ${out.info.channels} after decoding`);
  // Copy into an ArrayBuffer we own: sharp's buffers are backed by native memory that cannot be transferred between threads.
  let data: Uint8ClampedArray;
  if (opts.copy === false) data = new Uint8ClampedArray(out.data.buffer, out.data.byteOffset, out.data.length);
  else {
    data = new Uint8ClampedArray(out.data.length);
    data.set(out.data);
  }
  info.width = out.info.width;
  info.height = out.info.height;
  return { raster: { width: out.info.width, height: out.info.height, data }, info };
}

function depthBits(depth: string | undefined): number {
  switch (depth) {
    case 'ushort':
    case 'short':
      return 16;
    case 'uint':
    case 'int':
    case 'float':
      return 32;
    case 'double':
    case 'complex':
      return 64;
    default:
      return 8;
  }
}

function cleanMessage(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.split('\n')[0]!.replace(/^(Input buffer|Input file) /, '').slice(0, 200);
}
