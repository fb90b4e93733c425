// Image header facts (format, width, height) read from the first bytes of PNG, JPEG and WebP files in
// plain JS, so the route layer can enforce formats and pixel limits before anything is decoded, without
// calling libvips on the main thread (libvips work belongs to the engine's worker threads).
// PNG: IHDR (ISO/IEC 15948 11.2.2). JPEG: the first SOFn segment (ITU T.81 B.2.2). WebP: the VP8 / VP8L /
// VP8X chunk (RFC 9649 sections 2.5, 3.2, 2.7).
import { InkprepError, probeImage, sniffFormat, type ImageFormat } from '@inkprep/engine';

/** What the route layer knows about an upload before decoding. */
export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
  /** Encoded size in bytes. */
  bytes: number;
}

/** Width and height from the header, or null when the header is truncated or malformed. */
export function readDimensions(b: Uint8Array, format: ImageFormat): { width: number; height: number } | null {
  const u16be = (o: number) => (b[o]! << 8) | b[o + 1]!;
  const u32be = (o: number) => ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
  if (format === 'png') {
    if (b.length < 24 || b[12] !== 0x49 || b[13] !== 0x48 || b[14] !== 0x44 || b[15] !== 0x52) return null;
    return { width: u32be(16), height: u32be(20) };
  }
  if (format === 'jpeg') {
    let o = 2;
    while (o + 4 <= b.length) {
      if (b[o] !== 0xff) return null;
      const m = b[o + 1]!;
      if (m === 0xff) { o++; continue; } // fill byte
      if (m === 0xd8 || m === 0x01 || (m >= 0xd0 && m <= 0xd7)) { o += 2; continue; } // no length
      if (m === 0xd9 || m === 0xda) return null; // end of image / start of scan before any frame header
      const len = u16be(o + 2);
      if (len < 2) return null;
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
        if (o + 9 > b.length) return null;
        return { height: u16be(o + 5), width: u16be(o + 7) };
      }
      o += 2 + len;
    }
    return null;
  }
  // webp: RIFF....WEBP then the first chunk at 12
  if (b.length < 30) return null;
  const tag = String.fromCharCode(b[12]!, b[13]!, b[14]!, b[15]!);
  if (tag === 'VP8 ') {
    return { width: ((b[27]! << 8) | b[26]!) & 0x3fff, height: ((b[29]! << 8) | b[28]!) & 0x3fff };
  }
  if (tag === 'VP8L') {
    if (b[20] !== 0x2f) return null;
    return { width: 1 + (((b[22]! & 0x3f) << 8) | b[21]!), height: 1 + (((b[24]! & 0x0f) << 10) | (b[23]! << 2) | ((b[22]! & 0xc0) >> 6)) };
  }
  if (tag === 'VP8X') {
    return { width: 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16)), height: 1 + (b[27]! | (b[28]! << 8) | (b[29]! << 16)) };
  }
  return null;
}

/**
 * Check an upload's format and pixel count from its header.
 * @throws InkprepError `unsupported_format` (another image format, or one this endpoint does not take),
 *   `image_unreadable` (not an image, or a damaged header), `image_too_large` (with `maxPixels`, `pixels`)
 */
export async function checkImageHeader(bytes: Uint8Array, opts: { maxPixels: number; formats: readonly ImageFormat[] }): Promise<ImageHeader> {
  const format = sniffFormat(bytes);
  // Not PNG/JPEG/WebP: probeImage names the format (or calls it unreadable) from the magic bytes alone,
  // before it would ever reach the decoder.
  if (!format) await probeImage(bytes, opts);
  if (!format) throw new InkprepError('image_unreadable', 'The file cannot be read as an image (expected PNG, JPEG or WebP)');
  if (!opts.formats.includes(format)) {
    throw new InkprepError('unsupported_format', `Image format ${format} is not accepted here; send ${opts.formats.map((f) => f.toUpperCase()).join(' or ')}`, { format });
  }
  const dims = readDimensions(bytes, format);
  if (!dims || dims.width === 0 || dims.height === 0) throw new InkprepError('image_unreadable', `The ${format.toUpperCase()} file is damaged: its header cannot be read`);
  const pixels = dims.width * dims.height;
  if (pixels > opts.maxPixels) {
    throw new InkprepError('image_too_large', `The image is ${dims.width}x${dims.height} (${pixels} pixels); the limit is ${opts.maxPixels} pixels`, { maxPixels: opts.maxPixels, pixels });
  }
  return { format, width: dims.width, height: dims.height, bytes: bytes.byteLength };
}
