// The route layer's header reader: dimensions of PNG, JPEG (baseline and progressive) and WebP (lossy,
// lossless, extended) agree with what the files are; limits and formats are enforced; damaged headers fail.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { checkImageHeader, readDimensions } from '@inkprep/http';

async function make(fmt: 'png' | 'jpeg' | 'jpeg-progressive' | 'webp' | 'webp-lossless' | 'webp-alpha', w: number, h: number): Promise<Uint8Array> {
  const img = sharp({ create: { width: w, height: h, channels: 4, background: { r: 10, g: 200, b: 30, alpha: fmt === 'webp-alpha' ? 0.5 : 1 } } });
  const out = fmt === 'png' ? img.png() : fmt === 'jpeg' ? img.jpeg() : fmt === 'jpeg-progressive' ? img.jpeg({ progressive: true }) : fmt === 'webp-lossless' ? img.webp({ lossless: true }) : img.webp();
  return new Uint8Array(await out.toBuffer());
}

describe('readDimensions / checkImageHeader', () => {
  it('reads width and height of every accepted format', async () => {
    for (const [fmt, w, h] of [['png', 37, 21], ['jpeg', 640, 3], ['jpeg-progressive', 101, 203], ['webp', 300, 170], ['webp-lossless', 17, 4099], ['webp-alpha', 64, 48]] as const) {
      const bytes = await make(fmt, w, h);
      const format = fmt.startsWith('png') ? 'png' : fmt.startsWith('jpeg') ? 'jpeg' : 'webp';
      expect(readDimensions(bytes, format), fmt).toEqual({ width: w, height: h });
      expect(await checkImageHeader(bytes, { maxPixels: w * h, formats: ['png', 'jpeg', 'webp'] })).toMatchObject({ format, width: w, height: h });
    }
  });

  it('enforces the pixel limit and the endpoint formats; names other formats; rejects damaged headers', async () => {
    const png = await make('png', 100, 50);
    await expect(checkImageHeader(png, { maxPixels: 4999, formats: ['png'] })).rejects.toMatchObject({ code: 'image_too_large', details: { maxPixels: 4999, pixels: 5000 } });
    await expect(checkImageHeader(await make('webp', 8, 8), { maxPixels: 1e6, formats: ['png', 'jpeg'] })).rejects.toMatchObject({ code: 'unsupported_format' });
    await expect(checkImageHeader(new TextEncoder().encode('GIF89a\x01\x00\x01\x00'), { maxPixels: 1e6, formats: ['png'] })).rejects.toMatchObject({ code: 'unsupported_format' });
    await expect(checkImageHeader(new TextEncoder().encode('just some text'), { maxPixels: 1e6, formats: ['png'] })).rejects.toMatchObject({ code: 'image_unreadable' });
    await expect(checkImageHeader(png.subarray(0, 20), { maxPixels: 1e6, formats: ['png'] })).rejects.toMatchObject({ code: 'image_unreadable' });
    const jpeg = await make('jpeg', 10, 10);
    await expect(checkImageHeader(jpeg.subarray(0, 30), { maxPixels: 1e6, formats: ['jpeg'] })).rejects.toMatchObject({ code: 'image_unreadable' });
  });
});
