// Encoding at the edge: PNG with pHYs density, JPEG (alpha flattened) and WebP round trips.
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { decodeImage, encodeImage, encodePng, rgbToLab, deltaE76 } from '@inkprep/engine/internals';
import { px } from './fixtures.js';

/** 32x16: left half orange opaque, right half teal half-transparent, last column fully transparent. */
function sample(): Raster {
  const w = 32, h = 16;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(x < 16 ? [240, 140, 20, 255] : [20, 160, 150, x === w - 1 ? 0 : 128], (y * w + x) * 4);
  return { width: w, height: h, data };
}

function dE(a: number[], b: number[]): number {
  const p = rgbToLab(a[0]!, a[1]!, a[2]!), q = rgbToLab(b[0]!, b[1]!, b[2]!);
  return deltaE76(p[0], p[1], p[2], q[0], q[1], q[2]);
}

function ownsBuffer(a: Uint8Array): boolean {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength;
}

describe('encodeImage', () => {
  it('PNG: lossless round trip, density written as pHYs and read back by sharp', async () => {
    const png = await encodePng(sample(), { dpi: 300 });
    expect(ownsBuffer(png)).toBe(true);
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe('png');
    expect(meta.density).toBeCloseTo(300, 1);
    const back = await decodeImage(png);
    expect(back.info.density).toBe(300);
    expect(Buffer.from(back.raster.data).equals(Buffer.from(sample().data))).toBe(true);
  });

  it('PNG without dpi states no density', async () => {
    const png = await encodePng(sample());
    expect(Buffer.from(png).includes('pHYs')).toBe(false);
    expect((await decodeImage(png)).info.density).toBeNull();
  });

  it('encodes a raster whose data is a view into a larger buffer', async () => {
    const s = sample();
    const big = new Uint8ClampedArray(s.data.length + 64);
    big.set(s.data, 64);
    const png = await encodePng({ width: s.width, height: s.height, data: big.subarray(64) });
    expect(Buffer.from((await decodeImage(png)).raster.data).equals(Buffer.from(s.data))).toBe(true);
  });

  it('JPEG: alpha flattened over white (or the given background), density in JFIF', async () => {
    const jpeg = await encodeImage(sample(), 'jpeg', { dpi: 150, quality: 95 });
    expect(ownsBuffer(jpeg)).toBe(true);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.hasAlpha, meta.density]).toEqual(['jpeg', false, 150]);
    const { raster } = await decodeImage(jpeg);
    expect(dE(px(raster, 4, 8), [240, 140, 20])).toBeLessThan(2);
    expect(dE(px(raster, 31, 8), [255, 255, 255])).toBeLessThan(2); // transparent -> white
    expect(dE(px(raster, 24, 8), [138, 208, 203])).toBeLessThan(3); // 50 % teal over white
    const onBlack = await decodeImage(await encodeImage(sample(), 'jpeg', { background: { r: 0, g: 0, b: 0 } }));
    expect(dE(px(onBlack.raster, 31, 8), [0, 0, 0])).toBeLessThan(2);
  });

  it('WebP: alpha kept, colours close', async () => {
    const webp = await encodeImage(sample(), 'webp', { quality: 95 });
    expect(ownsBuffer(webp)).toBe(true);
    expect((await sharp(webp).metadata()).format).toBe('webp');
    const { raster, info } = await decodeImage(webp);
    expect(info.hasAlpha).toBe(true);
    expect(dE(px(raster, 4, 8), [240, 140, 20])).toBeLessThan(3);
    expect(px(raster, 31, 8)[3]).toBe(0);
    expect(Math.abs(px(raster, 24, 8)[3]! - 128)).toBeLessThanOrEqual(2);
  });
});
