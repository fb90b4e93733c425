// Decode of every source variant the engine promises to normalise to 8-bit sRGB RGBA, plus the failure
// modes (unreadable, unsupported, too large). Fixtures are generated in fixtures.ts.
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { PNG } from 'pngjs';
import { probeImage, InkprepError } from '@inkprep/engine';
import { decodeImage, encodePng, rgbToLab, deltaE76 } from '@inkprep/engine/internals';
import { CARD_H, CARD_W, bombPng, card, px, withChunkAfterIhdr } from './fixtures.js';

async function rejects(p: Promise<unknown>): Promise<InkprepError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(InkprepError);
    return err as InkprepError;
  }
  throw new Error('expected a rejection');
}

function dE(a: number[], b: number[]): number {
  const p = rgbToLab(a[0]!, a[1]!, a[2]!), q = rgbToLab(b[0]!, b[1]!, b[2]!);
  return deltaE76(p[0], p[1], p[2], q[0], q[1], q[2]);
}

describe('decodeImage variants', () => {
  it('plain PNG: exact RGBA, straight alpha, report fields', async () => {
    const { raster, info } = await decodeImage(await card().png().toBuffer());
    expect([raster.width, raster.height, raster.data.length]).toEqual([CARD_W, CARD_H, CARD_W * CARD_H * 4]);
    expect(raster.data).toBeInstanceOf(Uint8ClampedArray);
    expect(px(raster, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(px(raster, 25, 5)).toEqual([0, 0, 255, 255]);
    expect(px(raster, CARD_W - 1, 0)[3]).toBe(0);
    expect(info).toMatchObject({ width: CARD_W, height: CARD_H, format: 'png', isJpeg: false, hasAlpha: true, bitsPerSample: 8, orientation: 1 });
  });

  it('EXIF orientation 6 JPEG: width/height swapped and pixels rotated 90° clockwise', async () => {
    const jpeg = await card().flatten({ background: '#fff' }).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
    expect((await sharp(jpeg).metadata()).width).toBe(CARD_W); // stored landscape
    const { raster, info } = await decodeImage(jpeg);
    expect([raster.width, raster.height]).toEqual([CARD_H, CARD_W]);
    expect([info.width, info.height, info.orientation, info.isJpeg]).toEqual([CARD_H, CARD_W, 6, true]);
    // The card's left (red) half is now the top half; its right (blue) half the bottom.
    expect(dE(px(raster, 10, 5), [255, 0, 0])).toBeLessThan(3);
    expect(dE(px(raster, 10, 30), [0, 0, 255])).toBeLessThan(3);
    // The probe reports the same oriented size without decoding.
    expect((await probeImage(jpeg)).width).toBe(CARD_H);
  });

  it('CMYK JPEG: converted to sRGB (not the raw ink values)', async () => {
    const colour = [200, 120, 60];
    const flat = sharp({ create: { width: 16, height: 16, channels: 3, background: { r: colour[0]!, g: colour[1]!, b: colour[2]! } } });
    const jpeg = await flat.toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer();
    const { raster, info } = await decodeImage(jpeg);
    expect(info.space).toBe('cmyk');
    expect(info.channels).toBe(4);
    expect(px(raster, 8, 8)[3]).toBe(255);
    // Within the CMYK round-trip error of libvips' default profile; the ink values read as RGB would be far off.
    expect(dE(px(raster, 8, 8), colour)).toBeLessThan(12);
  });

  it('16-bit PNG: scaled to 8 bits', async () => {
    const png = await card().toColourspace('rgb16').png().toBuffer();
    const { raster, info } = await decodeImage(png);
    expect(info.bitsPerSample).toBe(16);
    expect(px(raster, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(px(raster, 25, 5)).toEqual([0, 0, 255, 255]);
    expect(px(raster, CARD_W - 1, 3)[3]).toBe(0);
    // A mid value: 16-bit 0x8080 is 8-bit 128.
    const mid = new PNG({ width: 2, height: 1, bitDepth: 16, colorType: 2, inputColorType: 2, inputHasAlpha: false });
    const data16 = Buffer.alloc(2 * 3 * 2);
    for (let i = 0; i < 6; i++) data16.writeUInt16BE(0x8080, i * 2);
    mid.data = data16;
    const midPng = PNG.sync.write(mid, { bitDepth: 16, colorType: 2, inputColorType: 2, inputHasAlpha: false });
    const m = await decodeImage(midPng);
    expect(m.info.bitsPerSample).toBe(16);
    expect(px(m.raster, 1, 0)).toEqual([128, 128, 128, 255]);
  });

  it('palette PNG with tRNS: transparency kept', async () => {
    const png = await card().png({ palette: true }).toBuffer();
    expect(png.includes('tRNS')).toBe(true);
    const { raster, info } = await decodeImage(png);
    expect(info.palette).toBe(true);
    expect(info.hasAlpha).toBe(true);
    expect(px(raster, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(px(raster, 25, 5)).toEqual([0, 0, 255, 255]);
    expect(px(raster, CARD_W - 1, 10)[3]).toBe(0);
  });

  it('greyscale + alpha PNG: expanded to grey RGB with alpha', async () => {
    const png = await card().toColourspace('b-w').png().toBuffer();
    const { raster, info } = await decodeImage(png);
    expect(info.channels).toBe(2);
    const p = px(raster, 0, 0);
    expect(p[0]).toBe(p[1]);
    expect(p[1]).toBe(p[2]);
    expect(p[3]).toBe(255);
    expect(px(raster, CARD_W - 1, 0)[3]).toBe(0);
  });

  it('interlaced (Adam7) PNG: same pixels as the non-interlaced file', async () => {
    const inter = await card().png({ progressive: true }).toBuffer();
    expect(inter[8 + 8 + 12]).toBe(1); // IHDR interlace method byte
    const a = await decodeImage(inter);
    const b = await decodeImage(await card().png().toBuffer());
    expect(a.info.interlaced).toBe(true);
    expect(Buffer.from(a.raster.data).equals(Buffer.from(b.raster.data))).toBe(true);
  });

  it('progressive JPEG', async () => {
    const jpeg = await card().flatten({ background: '#fff' }).jpeg({ progressive: true, quality: 95 }).toBuffer();
    const { raster, info } = await decodeImage(jpeg);
    expect(info.interlaced).toBe(true);
    expect(info.hasAlpha).toBe(false);
    expect(dE(px(raster, 5, 5), [255, 0, 0])).toBeLessThan(3);
    expect(px(raster, 5, 5)[3]).toBe(255);
  });

  it('WebP with alpha (lossless): exact pixels and alpha', async () => {
    const { raster, info } = await decodeImage(await card().webp({ lossless: true }).toBuffer());
    expect(info.format).toBe('webp');
    expect(info.hasAlpha).toBe(true);
    expect(px(raster, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(px(raster, 25, 5)).toEqual([0, 0, 255, 255]);
    expect(px(raster, CARD_W - 1, 0)[3]).toBe(0);
  });

  it('Display P3 ICC profile: stored P3 values are converted back to sRGB', async () => {
    const png = await card().withIccProfile('p3').png().toBuffer();
    const stored = PNG.sync.read(png);
    expect(Array.from(stored.data.subarray(0, 3))).not.toEqual([255, 0, 0]); // the file holds P3 numbers
    const { raster, info } = await decodeImage(png);
    expect(info.icc).toBe(true);
    expect(dE(px(raster, 0, 0), [255, 0, 0])).toBeLessThan(2);
    expect(dE(px(raster, 25, 5), [0, 0, 255])).toBeLessThan(2);
  });

  it('density: PNG pHYs and JPEG JFIF reported in DPI, absent -> null', async () => {
    expect((await decodeImage(await card().withDensity(300).png().toBuffer())).info.density).toBe(300);
    // encodePng without dpi writes no pHYs at all (libvips alone would state 1 px/mm = 25.4 DPI).
    const plain = await decodeImage(await card().png().toBuffer());
    expect((await decodeImage(await encodePng(plain.raster))).info.density).toBeNull();
    expect((await decodeImage(await encodePng(plain.raster, { dpi: 300 }))).info.density).toBe(300);
    expect((await decodeImage(await card().flatten().withDensity(150).jpeg().toBuffer())).info.density).toBe(150);
    expect((await decodeImage(await card().flatten().jpeg().toBuffer())).info.density).toBeNull();
    // pHYs with unit 0 states an aspect ratio only: no density.
    const aspectOnly = Buffer.alloc(9);
    aspectOnly.writeUInt32BE(1000, 0);
    aspectOnly.writeUInt32BE(1000, 4);
    expect((await probeImage(withChunkAfterIhdr(await card().png().toBuffer(), 'pHYs', aspectOnly))).density).toBeNull();
  });
});

describe('decodeImage failures', () => {
  it('truncated PNG, JPEG and WebP -> image_unreadable', async () => {
    const noisy = sharp({ create: { width: 200, height: 200, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
    for (const bytes of [await card().png().toBuffer(), await noisy.clone().jpeg().toBuffer(), await noisy.clone().webp().toBuffer()]) {
      const err = await rejects(decodeImage(bytes.subarray(0, bytes.length >> 1)));
      expect(err.code).toBe('image_unreadable');
    }
  });

  it('corrupt bytes, empty input and non-images -> image_unreadable', async () => {
    const png = Buffer.from(await card().png().toBuffer());
    for (let i = 40; i < png.length - 20; i++) png[i] = (png[i]! * 31 + 7) & 255; // scramble after IHDR
    for (const bytes of [png, new Uint8Array(0), Buffer.from('just some text, not an image'), Buffer.from([0x89, 0x50, 0x4e, 0x47])]) {
      expect((await rejects(decodeImage(bytes))).code).toBe('image_unreadable');
    }
  });

  it('GIF, TIFF and SVG bytes -> unsupported_format naming the format', async () => {
    const cases: [Uint8Array, string][] = [
      [await card().gif().toBuffer(), 'gif'],
      [await card().tiff().toBuffer(), 'tiff'],
      [Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), 'svg'],
    ];
    for (const [bytes, format] of cases) {
      const err = await rejects(decodeImage(bytes));
      expect(err.code).toBe('unsupported_format');
      expect(err.details.format).toBe(format);
    }
  });

  it('a format the caller excludes -> unsupported_format', async () => {
    const err = await rejects(decodeImage(await card().flatten().jpeg().toBuffer(), { formats: ['png'] }));
    expect(err.code).toBe('unsupported_format');
  });

  it('decompression bomb (20000x20000 PNG of a few KB) -> image_too_large from the header, no big allocation', async () => {
    const bomb = bombPng(20000, 20000);
    expect(bomb.length).toBeLessThan(100_000);
    const before = process.memoryUsage().rss;
    const err = await rejects(decodeImage(bomb));
    expect(err.code).toBe('image_too_large');
    expect(err.details).toEqual({ maxPixels: 100_000_000, pixels: 400_000_000 });
    // Decoding would need 1.6 GB of RGBA; the guard rejects before any pixel buffer exists.
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
  });

  it('a stricter maxPixels applies to normal images too', async () => {
    const png = await card().png().toBuffer();
    const err = await rejects(decodeImage(png, { maxPixels: CARD_W * CARD_H - 1 }));
    expect(err.code).toBe('image_too_large');
    expect(err.details).toEqual({ maxPixels: CARD_W * CARD_H - 1, pixels: CARD_W * CARD_H });
    await expect(decodeImage(png, { maxPixels: CARD_W * CARD_H })).resolves.toBeTruthy();
  });
});
