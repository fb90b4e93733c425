// Op `removeBg` through the Engine facade: PNG/JPEG in, PNG out with straight alpha and the same size,
// method + warnings, the 25 MP default limit checked from the header, formats, options.
import { deflateSync, crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, REMOVE_BG_MAX_PIXELS } from '@inkprep/engine';
import { composite, decodePng, jpegRoundTrip, logoSvg, measure, renderSvg } from './helpers.js';

const engine = createEngine({ threads: 0 });
afterAll(() => engine.close());

/** A PNG whose header claims width x height; the pixel data is a single tiny row (never decoded). */
function pngHeaderOnly(width: number, height: number): Uint8Array {
  const chunk = (type: string, body: Buffer): Buffer => {
    const len = Buffer.alloc(4); len.writeUInt32BE(body.length);
    const tb = Buffer.concat([Buffer.from(type, 'latin1'), body]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(tb));
    return Buffer.concat([len, tb, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4); ihdr[8] = 8; ihdr[9] = 2;
  return new Uint8Array(Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(16))), chunk('IEND', Buffer.alloc(0))]));
}

describe('engine.removeBg', () => {
  it('PNG on white -> transparent PNG, same size, method matte, no warnings, DPI kept', async () => {
    const gt = await renderSvg(logoSvg(128));
    const flat = composite(gt, () => [255, 255, 255]);
    const png = new Uint8Array(await sharp(Buffer.from(flat.data.buffer), { raw: { width: 128, height: 128, channels: 4 } }).withDensity(300).png().toBuffer());
    const res = await engine.removeBg(png);
    expect(res.method).toBe('matte');
    expect(res.warnings).toEqual([]);
    expect([res.width, res.height]).toEqual([128, 128]);
    const meta = await sharp(res.data).metadata();
    expect(meta.format).toBe('png');
    expect(meta.hasAlpha).toBe(true);
    expect(meta.density).toBe(300);
    const out = await decodePng(res.data);
    expect(measure(out, gt).iou).toBeGreaterThan(0.99);
  });

  it('JPEG input works and takes the JPEG tolerances (no stray pixels on the background)', async () => {
    const gt = await renderSvg(logoSvg(128));
    const res = await engine.removeBg(await jpegRoundTrip(composite(gt, () => [255, 255, 255]), 80));
    const out = await decodePng(res.data);
    expect(res.stats.noiseDeltaE).toBeGreaterThanOrEqual(2);
    expect(res.stats.compression).toBe('jpeg');
    let stray = 0;
    for (let i = 0; i < 128 * 12; i++) if (out.data[i * 4 + 3]! > 0) stray++;
    expect(stray).toBe(0);
    expect(measure(out, gt).iou).toBeGreaterThan(0.97);
  });

  it('a PNG saved from a JPEG is recognised by its ringing (colour tolerances of the JPEG path)', async () => {
    const gt = await renderSvg(logoSvg(128));
    const fromJpeg = await decodePng(await jpegRoundTrip(composite(gt, () => [255, 255, 255]), 75));
    const png = new Uint8Array(await sharp(Buffer.from(fromJpeg.data.buffer), { raw: { width: 128, height: 128, channels: 4 } }).png().toBuffer());
    const res = await engine.removeBg(png);
    expect(res.stats.compression).toBe('detected');
    const out = await decodePng(res.data);
    let stray = 0;
    for (let i = 0; i < 128 * 12; i++) if (out.data[i * 4 + 3]! > 0) stray++;
    expect(stray).toBe(0);
    // A clean PNG is not mistaken for one.
    const clean = await engine.removeBg(new Uint8Array(await sharp(Buffer.from(composite(gt, () => [255, 255, 255]).data.buffer), { raw: { width: 128, height: 128, channels: 4 } }).png().toBuffer()));
    expect(clean.stats.compression).toBe('none');
  });

  it('accepts PNG and JPEG only', async () => {
    const webp = new Uint8Array(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).webp().toBuffer());
    await expect(engine.removeBg(webp)).rejects.toMatchObject({ code: 'unsupported_format' });
    const gif = new Uint8Array(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } }).gif().toBuffer());
    await expect(engine.removeBg(gif)).rejects.toMatchObject({ code: 'unsupported_format' });
    await expect(engine.removeBg(new Uint8Array([1, 2, 3, 4]))).rejects.toMatchObject({ code: 'image_unreadable' });
  });

  it('rejects more than 25 megapixels from the header, before decoding pixels', async () => {
    expect(REMOVE_BG_MAX_PIXELS).toBe(25_000_000);
    await expect(engine.removeBg(pngHeaderOnly(5001, 5000))).rejects.toMatchObject({ code: 'image_too_large', details: { maxPixels: 25_000_000, pixels: 25_005_000 } });
    // A stricter per-call limit wins.
    await expect(engine.removeBg(pngHeaderOnly(100, 100), {}, { maxPixels: 5000 })).rejects.toMatchObject({ code: 'image_too_large', details: { maxPixels: 5000 } });
  });

  it('validates options naming the field', async () => {
    await expect(engine.removeBg(pngHeaderOnly(8, 8), { backend: 'magic' as never })).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'backend' } });
    // An engine created without models has none to force.
    await expect(engine.removeBg(pngHeaderOnly(8, 8), { backend: 'model' })).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'backend' } });
    await expect(engine.removeBg(pngHeaderOnly(8, 8), { model: { path: 'm.onnx', input_size: 'huge' } })).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'model.input_size' } });
  });
});
