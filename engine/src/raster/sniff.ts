// Magic-byte sniffing: only PNG, JPEG and WebP bytes ever reach the decoder (never SVG, TIFF, GIF, ...).
import type { ImageFormat } from './types.js';

/** Accepted format of the bytes, or null. */
export function sniffFormat(b: Uint8Array): ImageFormat | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50) return 'webp';
  return null;
}

/** Name of a recognised but unsupported image format, or null when the bytes are not a known image. */
export function sniffOtherImage(b: Uint8Array): string | null {
  const head = Buffer.from(b.subarray(0, Math.min(b.length, 512)));
  const ascii = head.toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'gif';
  if (ascii.startsWith('II*\0') || ascii.startsWith('MM\0*')) return 'tiff';
  if (ascii.startsWith('BM')) return 'bmp';
  if (head.length >= 12 && ascii.slice(4, 12).match(/^ftyp(avif|heic|heix|mif1|msf1)/)) return 'heif';
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(ascii)) return 'svg';
  if (ascii.startsWith('%PDF')) return 'pdf';
  if (head.length >= 4 && head[0] === 0 && head[1] === 0 && head[2] === 1 && head[3] === 0) return 'ico';
  if (ascii.startsWith('8BPS')) return 'psd';
  if (head.length >= 12 && head[0] === 0 && head[1] === 0 && head[2] === 0 && head[3] === 0x0c && ascii.slice(4, 8) === 'jP  ') return 'jp2';
  return null;
}
