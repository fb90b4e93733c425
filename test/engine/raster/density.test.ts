// Stated density from the file's own records (PNG pHYs, JPEG EXIF/JFIF, WebP EXIF), never libvips' 72 default.
import { describe, expect, it } from 'vitest';
import { probeImage } from '@inkprep/engine';
import { exifDensity, jpegDensity } from '../../../engine/src/raster/density.js';
import { card } from './fixtures.js';

/** Minimal EXIF/TIFF IFD0 with XResolution = num/den and ResolutionUnit = unit. */
function tiff(le: boolean, num: number, den: number, unit: number | null): Uint8Array {
  const b = Buffer.alloc(8 + 2 + 2 * 12 + 4 + 8);
  const w16 = (v: number, p: number) => (le ? b.writeUInt16LE(v, p) : b.writeUInt16BE(v, p));
  const w32 = (v: number, p: number) => (le ? b.writeUInt32LE(v, p) : b.writeUInt32BE(v, p));
  b.write(le ? 'II' : 'MM', 0, 'latin1');
  w16(42, 2);
  w32(8, 4);
  const entries = unit === null ? 1 : 2;
  w16(entries, 8);
  const dataOff = 8 + 2 + entries * 12 + 4;
  w16(0x011a, 10); w16(5, 12); w32(1, 14); w32(dataOff, 18);
  if (unit !== null) { w16(0x0128, 22); w16(3, 24); w32(1, 26); w16(unit, 30); }
  w32(num, dataOff); w32(den, dataOff + 4);
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), b]);
}

describe('density', () => {
  it('EXIF XResolution in inches (default unit), centimetres, or no unit', () => {
    expect(exifDensity(tiff(true, 300, 1, null))).toBe(300);
    expect(exifDensity(tiff(false, 600, 2, 2))).toBe(300);
    expect(exifDensity(tiff(true, 118, 1, 3))).toBe(299.72);
    expect(exifDensity(tiff(false, 72, 1, 1))).toBeNull();
    expect(exifDensity(new Uint8Array([1, 2, 3]))).toBeNull();
  });

  it('JPEG JFIF units: dpi, dots per cm, none', async () => {
    const plain = Buffer.from(await card().flatten().jpeg().toBuffer()); // libvips writes no APP0
    expect(jpegDensity(plain, undefined)).toBeNull();
    const app0 = Buffer.from([0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
    const jpeg = Buffer.concat([plain.subarray(0, 2), app0, plain.subarray(2)]);
    const at = jpeg.indexOf('JFIF\0', 0, 'latin1');
    expect(jpegDensity(jpeg, undefined)).toBeNull(); // units 0: aspect ratio only
    jpeg[at + 7] = 2; // dots per cm
    jpeg.writeUInt16BE(118, at + 8);
    expect(jpegDensity(jpeg, undefined)).toBe(299.72);
    jpeg[at + 7] = 1;
    jpeg.writeUInt16BE(240, at + 8);
    expect((await probeImage(jpeg)).density).toBe(240);
  });

  it('WebP density from its EXIF chunk; none without one', async () => {
    expect((await probeImage(await card().withDensity(300).webp().toBuffer())).density).toBe(300);
    expect((await probeImage(await card().webp().toBuffer())).density).toBeNull();
  });

  it('JPEG with an EXIF block states its density', async () => {
    expect((await probeImage(await card().flatten().withDensity(200).withMetadata().jpeg().toBuffer())).density).toBe(200);
  });
});
