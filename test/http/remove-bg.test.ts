// POST /api/v1/remove-bg over real HTTP: PNG/JPEG in, transparent PNG out with X-Method / X-Warnings,
// PNG or JPEG only, 25 MP from the header (live setting), fair use (429 with Retry-After), the monthly
// provider allowance, what counts, and GET /api/v1/remove-bg staying unmetered.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, get, post, startTestServer, type TestServer } from './harness.js';

const HOUR = 3_600_000;
let t: TestServer;
let artPng: Uint8Array;
let artJpeg: Uint8Array;

/** A PNG whose header claims width x height (pixel data never decoded). */
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

beforeAll(async () => {
  t = await startTestServer();
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="64"><rect x="20" y="12" width="56" height="40" rx="8" fill="#1d3557"/><circle cx="48" cy="32" r="10" fill="#fff"/></svg>';
  artPng = new Uint8Array(await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).png().toBuffer());
  artJpeg = new Uint8Array(await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer());
});
afterAll(async () => {
  await t.close();
});

async function alphaAt(png: Uint8Array, x: number, y: number): Promise<number> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return data[(y * info.width + x) * 4 + 3]!;
}

describe('POST /api/v1/remove-bg', () => {
  it('PNG on white -> image/png, same size, transparent background and counter, X-Method matte', async () => {
    const r = await post(t, '/api/v1/remove-bg', form(artPng));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('x-method')).toBe('matte');
    expect(r.headers.get('x-warnings')).toBe('');
    const meta = await sharp(r.bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 96, 64, true]);
    expect(await alphaAt(r.bytes, 2, 2)).toBe(0);
    expect(await alphaAt(r.bytes, 48, 32)).toBe(0); // the white disc inside the shape is background-coloured and enclosed
    expect(await alphaAt(r.bytes, 28, 20)).toBe(255);
  });

  it('JPEG works; a client cannot pick a backend or a model file (fields are ignored)', async () => {
    const r = await post(t, '/api/v1/remove-bg', form(artJpeg, { backend: 'model', model: '/etc/passwd' }, 'art.jpg'));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-method')).toBe('matte');
    expect(await alphaAt(r.bytes, 2, 2)).toBe(0);
  });

  it('a photo-like upload without a model -> 422 not_separable (never a cut-out with holes), not counted', async () => {
    const { account, key } = await t.newAccount('photo');
    await t.store.updateAccount(account.id, { removeBgCap: 5 });
    const w = 64, h = 64, raw = Buffer.alloc(w * h * 3);
    let seed = 3;
    for (let i = 0; i < raw.length; i++) raw[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256;
    const photo = new Uint8Array(await sharp(raw, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer());
    const r = await post(t, '/api/v1/remove-bg', form(photo), key);
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ code: 'not_separable', model: expect.stringMatching(/^(absent|loading|failed)$/), reason: expect.any(String) });
    expect(typeof (r.json as { error: unknown }).error).toBe('string');
    // The service's hint on the engine's message: how to get the model.
    if ((r.json as { model: string }).model === 'absent') expect((r.json as { error: string }).error).toMatch(/no segmentation model is available \(run `inkprep models fetch`\)$/);
    expect((await get(t, '/api/v1/remove-bg', key)).json).toMatchObject({ fairUseUsed: 0 });
  });

  it('PNG or JPEG only: WebP -> 400 unsupported_format, not counted', async () => {
    const { account, key } = await t.newAccount('formats');
    await t.store.updateAccount(account.id, { removeBgCap: 5 });
    const webp = new Uint8Array(await sharp(artPng).webp().toBuffer());
    const r = await post(t, '/api/v1/remove-bg', form(webp, {}, 'art.webp'), key);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'unsupported_format' });
    expect((await get(t, '/api/v1/remove-bg', key)).json).toMatchObject({ fairUseUsed: 0 });
  });

  it('more than 25 megapixels -> 413 image_too_large from the header; the live setting applies', async () => {
    const big = await post(t, '/api/v1/remove-bg', form(pngHeaderOnly(5001, 5000)));
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ code: 'image_too_large', maxPixels: 25_000_000, pixels: 25_005_000 });
    await t.store.setSetting('remove_bg.maxPixels', 5000);
    try {
      const r = await post(t, '/api/v1/remove-bg', form(artPng));
      expect(r.status).toBe(413);
      expect(r.json).toMatchObject({ code: 'image_too_large', maxPixels: 5000, pixels: 96 * 64 });
      expect((await get(t, '/api/v1/remove-bg')).json).toMatchObject({ maxPixels: 5000 });
    } finally {
      await t.store.setSetting('remove_bg.maxPixels', null);
    }
  });

  it('fair use: 429 fair_use_exceeded with limit, used, retry_after_seconds and Retry-After; GET stays unmetered', async () => {
    const { account, key } = await t.newAccount('rb-fair');
    await t.store.updateAccount(account.id, { removeBgCap: 2 });
    expect((await get(t, '/api/v1/remove-bg', key)).json).toEqual({ maxPixels: 25_000_000, fairUsePerDay: 2, fairUseUsed: 0, fairUseRemaining: 2 });
    const start = t.clock.now();
    expect((await post(t, '/api/v1/remove-bg', form(artPng), key)).status).toBe(200);
    t.clock.advance(HOUR);
    expect((await post(t, '/api/v1/remove-bg', form(artJpeg, {}, 'a.jpg'), key)).status).toBe(200);
    const r = await post(t, '/api/v1/remove-bg', form(artPng), key);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: 'fair_use_exceeded', limit: 2, used: 2, retry_after_seconds: 23 * 3600 });
    expect(r.headers.get('retry-after')).toBe(String(23 * 3600));
    expect((await get(t, '/api/v1/remove-bg', key)).json).toEqual({ maxPixels: 25_000_000, fairUsePerDay: 2, fairUseUsed: 2, fairUseRemaining: 0 });
    t.clock.t = start + 24 * HOUR;
    expect((await post(t, '/api/v1/remove-bg', form(artPng), key)).status).toBe(200);
  });

  it('monthly provider allowance spent: 429 fair_use_exceeded with period month until the next UTC month', async () => {
    const { account, key } = await t.newAccount('rb-monthly');
    await t.store.updateAccount(account.id, { removeBgMonthlyAllowance: 1 });
    t.clock.t = Date.UTC(2026, 4, 31, 22, 0, 0);
    expect((await post(t, '/api/v1/remove-bg', form(artPng), key)).status).toBe(200);
    const r = await post(t, '/api/v1/remove-bg', form(artPng), key);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: 'fair_use_exceeded', limit: 1, used: 1, period: 'month', retry_after_seconds: 2 * 3600 });
    expect(r.headers.get('retry-after')).toBe(String(2 * 3600));
    // The 24 h fair-use figures are separate (uncapped here).
    expect((await get(t, '/api/v1/remove-bg', key)).json).toMatchObject({ fairUsePerDay: null, fairUseUsed: null, fairUseRemaining: null });
    t.clock.t = Date.UTC(2026, 5, 1, 0, 0, 0);
    expect((await post(t, '/api/v1/remove-bg', form(artPng), key)).status).toBe(200);
  });
});
