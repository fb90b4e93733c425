// Stated print density (DPI) of an encoded file, read from the file's own records: PNG pHYs (unit metre),
// JPEG EXIF XResolution/ResolutionUnit or JFIF APP0 units, WebP EXIF chunk. libvips reports 72 DPI for
// files that state nothing, so its number is never used: null means the file states no density.

/** 300 DPI stored as 11811 px/m reads back as 299.9994: snap to the whole DPI when within 0.05, else 2 decimals. */
function snap(dpi: number): number | null {
  if (!Number.isFinite(dpi) || dpi <= 0) return null;
  return Math.abs(dpi - Math.round(dpi)) < 0.05 ? Math.round(dpi) : Math.round(dpi * 100) / 100;
}

const u32be = (b: Uint8Array, p: number) => ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;

/** PNG: pHYs chunk before the first IDAT with unit 1 (metre); unit 0 states only an aspect ratio. */
export function pngDensity(b: Uint8Array): number | null {
  let p = 8;
  while (p + 12 <= b.length) {
    const len = u32be(b, p);
    const type = String.fromCharCode(b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!);
    if (type === 'IDAT' || type === 'IEND') return null;
    if (type === 'pHYs' && len === 9 && p + 17 <= b.length) return b[p + 16] === 1 ? snap(u32be(b, p + 8) * 0.0254) : null;
    p += 12 + len;
  }
  return null;
}

/**
 * EXIF (TIFF structure, optionally prefixed by "Exif\0\0"): IFD0 XResolution (0x011A, RATIONAL) in the unit
 * of ResolutionUnit (0x0128: 2 inch, the default; 3 centimetre; 1 none).
 */
export function exifDensity(exif: Uint8Array): number | null {
  let t = 0;
  if (exif.length >= 6 && exif[0] === 0x45 && exif[1] === 0x78 && exif[2] === 0x69 && exif[3] === 0x66 && exif[4] === 0 && exif[5] === 0) t = 6;
  if (exif.length < t + 8) return null;
  const le = exif[t] === 0x49 && exif[t + 1] === 0x49;
  if (!le && !(exif[t] === 0x4d && exif[t + 1] === 0x4d)) return null;
  const u16 = (p: number) => (le ? exif[p]! | (exif[p + 1]! << 8) : (exif[p]! << 8) | exif[p + 1]!);
  const u32 = (p: number) => (le ? (exif[p]! | (exif[p + 1]! << 8) | (exif[p + 2]! << 16) | (exif[p + 3]! << 24)) >>> 0 : u32be(exif, p));
  const ifd = t + u32(t + 4);
  if (ifd + 2 > exif.length) return null;
  const n = u16(ifd);
  let xres: number | null = null;
  let unit = 2;
  for (let i = 0; i < n; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > exif.length) break;
    const tag = u16(e);
    if (tag === 0x011a && u16(e + 2) === 5) {
      const off = t + u32(e + 8);
      if (off + 8 <= exif.length) {
        const den = u32(off + 4);
        if (den > 0) xres = u32(off) / den;
      }
    } else if (tag === 0x0128) {
      unit = u16(e + 8);
    }
  }
  if (xres === null || unit === 1) return null;
  return snap(unit === 3 ? xres * 2.54 : xres);
}

/** JPEG: EXIF resolution if the APP1 block states one, else JFIF APP0 density with units 1 (dpi) or 2 (dpcm). */
export function jpegDensity(b: Uint8Array, exif: Uint8Array | undefined): number | null {
  if (exif) {
    const d = exifDensity(exif);
    if (d !== null) return d;
  }
  // Walk the markers before the first scan looking for APP0 "JFIF\0".
  let p = 2;
  while (p + 4 <= b.length && b[p] === 0xff) {
    const marker = b[p + 1]!;
    if (marker === 0xda || marker === 0xd9) break;
    const len = (b[p + 2]! << 8) | b[p + 3]!;
    if (marker === 0xe0 && len >= 16 && p + 4 + 12 <= b.length && b[p + 4] === 0x4a && b[p + 5] === 0x46 && b[p + 6] === 0x49 && b[p + 7] === 0x46 && b[p + 8] === 0) {
      const units = b[p + 11];
      const x = (b[p + 12]! << 8) | b[p + 13]!;
      if (units === 1) return snap(x);
      if (units === 2) return snap(x * 2.54);
      return null;
    }
    p += 2 + len;
  }
  return null;
}

/** Stated density of a PNG, JPEG or WebP file in DPI, or null. `exif` is the EXIF block sharp's metadata found. */
export function statedDensity(b: Uint8Array, format: 'png' | 'jpeg' | 'webp', exif: Uint8Array | undefined): number | null {
  if (format === 'png') return pngDensity(b);
  if (format === 'jpeg') return jpegDensity(b, exif);
  return exif ? exifDensity(exif) : null;
}
