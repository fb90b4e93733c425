// POST /api/v1/upscale over real HTTP (spec 4.5 -> 2.5): live budgets and pre-shrink arithmetic, the 413
// body, hosted URL fetchable at the right size with transparency, provider fallback when storage fails,
// scale validation, fair-use metering; GET result routes.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostingFor, LocalDiskStorage, setHosting, TemporaryHolder, type ResultStorage } from '../../adapter-http/src/storage/index.js';
import { form, get, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-upscale-'));
  t = await startTestServer({ config: { dataDir } });
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(async () => {
  // Small live budgets keep the tests fast: 4x runs at 400 px (max 1600), 2x at 900 px (max 3600).
  await t.store.setSetting('upscale.budget4x', 400);
  await t.store.setSetting('upscale.budget', 900);
  setHosting(dataDir, { storage: new LocalDiskStorage({ dir: path.join(dataDir, 'results') }), holder: new TemporaryHolder() });
});

/** A w x h PNG: a green square on transparency. */
async function art(w: number, h: number): Promise<Uint8Array> {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    if (x >= w / 4 && x < (3 * w) / 4 && y >= h / 4 && y < (3 * h) / 4) data.set([30, 160, 60, 255], (y * w + x) * 4);
  }
  return new Uint8Array(await sharp(data, { raw: { width: w, height: h, channels: 4 } }).png().toBuffer());
}

/** A w x h opaque photo-like PNG (a warm tone with pixel noise), or as JPEG. */
async function photo(w: number, h: number, format: 'png' | 'jpeg' = 'png'): Promise<Uint8Array> {
  const data = Buffer.alloc(w * h * 3);
  let s = 7;
  for (let i = 0; i < w * h; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    const n = ((s >>> 24) % 17) - 8;
    data.set([150 + n, 120 + n, 90 + n + ((i % w) >> 2)], i * 3);
  }
  const img = sharp(data, { raw: { width: w, height: h, channels: 3 } });
  return new Uint8Array(await (format === 'png' ? img.png() : img.jpeg()).toBuffer());
}

/** IHDR colour type of a PNG: 2 = RGB, 6 = RGBA. */
function pngColourType(png: Uint8Array): number {
  expect(Buffer.from(png.subarray(12, 16)).toString('latin1')).toBe('IHDR');
  return png[25]!;
}

describe('POST /api/v1/upscale', () => {
  it('returns 2.5 JSON with a lasting service-hosted URL; the image is 4x, transparent where the input was', async () => {
    const res = await post(t, '/api/v1/upscale', form(await art(20, 16)));
    expect(res.status).toBe(200);
    const body = res.json!;
    expect(body).toMatchObject({
      scale: 4, preShrunk: false, from: { width: 20, height: 16 }, to: { width: 20, height: 16 },
      output_hosted_by: 'service', output_url_expires: false,
    });
    expect(['vector', 'model', 'resample']).toContain(body.route);
    const url = body.output_url as string;
    expect(url).toMatch(/^\/api\/v1\/upscale\/results\/[A-Za-z0-9_-]{32}\.png$/);
    const img = await get(t, url, null); // no key needed: the URL is the secret
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    const { data, info } = await sharp(img.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([80, 64]);
    expect(data[3]).toBe(0);
    expect(data[(32 * 80 + 40) * 4 + 3]).toBe(255);
    // Still there later (a second read) and under the data folder.
    expect((await get(t, url, null)).status).toBe(200);
    expect(await hostingFor(dataDir).storage.get(url.slice(url.lastIndexOf('/') + 1))).not.toBeNull();
  });

  it('pre-shrinks input between the budget and 4x it, using the live settings', async () => {
    const res = await post(t, '/api/v1/upscale', form(await art(40, 30))); // 1200 px > 400, <= 1600
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ preShrunk: true, from: { width: 40, height: 30 }, to: { width: 23, height: 17 }, width: 92, height: 68 });
    // The scale actually applied to the upload: 92 / 40.
    expect(res.json!.effectiveScale).toBe(2.3);
    await t.store.setSetting('upscale.budget4x', 1200);
    expect((await post(t, '/api/v1/upscale', form(await art(40, 30)))).json).toMatchObject({ preShrunk: false, to: { width: 40, height: 30 } });
  });

  it('opaque input (PNG or JPEG) gives an RGB PNG; input with transparency keeps RGBA', async () => {
    for (const format of ['png', 'jpeg'] as const) {
      const res = await post(t, '/api/v1/upscale', form(await photo(20, 15, format), { scale: '2' }, `p.${format === 'png' ? 'png' : 'jpg'}`));
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ preShrunk: false, effectiveScale: 2, width: 40, height: 30 });
      const img = await get(t, res.json!.output_url as string, null);
      expect(pngColourType(img.bytes), format).toBe(2);
      expect((await sharp(img.bytes).metadata()).channels).toBe(3);
    }
    const res = await post(t, '/api/v1/upscale', form(await art(20, 16)));
    expect(res.json!.effectiveScale).toBe(4);
    expect(pngColourType((await get(t, res.json!.output_url as string, null)).bytes)).toBe(6);
  });

  it('413 image_too_large with maxPixels and pixels above 4x the budget (per scale)', async () => {
    const res = await post(t, '/api/v1/upscale', form(await art(41, 40))); // 1640 > 1600
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'image_too_large', maxPixels: 1600, pixels: 1640 });
    expect(typeof res.json!.error).toBe('string');
    // The same image is fine at 2x (max 3600), shrunk to the 900 px budget.
    const two = await post(t, '/api/v1/upscale', form(await art(41, 40), { scale: '2' }));
    expect(two.status).toBe(200);
    expect(two.json).toMatchObject({ scale: 2, preShrunk: true, from: { width: 41, height: 40 } });
  });

  it('validates scale: 2 or 4, default 4', async () => {
    for (const bad of ['3', '8', 'four', '4.5']) {
      const res = await post(t, '/api/v1/upscale', form(await art(8, 8), { scale: bad }));
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_option', field: 'scale' });
    }
    expect((await post(t, '/api/v1/upscale', form(await art(8, 8), { scale: '2' }))).json).toMatchObject({ scale: 2, width: 16 });
  });

  it('accepts PNG and JPEG only', async () => {
    const jpeg = new Uint8Array(await sharp(Buffer.from(await art(12, 12))).flatten({ background: '#fff' }).jpeg().toBuffer());
    expect((await post(t, '/api/v1/upscale', form(jpeg, {}, 'a.jpg'))).status).toBe(200);
    const webp = new Uint8Array(await sharp(Buffer.from(await art(12, 12))).webp().toBuffer());
    expect((await post(t, '/api/v1/upscale', form(webp, {}, 'a.webp'))).json).toMatchObject({ code: 'unsupported_format' });
  });

  it('falls back to a short-lived provider link when the storage write fails', async () => {
    const failing: ResultStorage = {
      kind: 'failing',
      put: () => Promise.reject(new Error('disk full')),
      get: () => Promise.resolve(null),
      delete: () => Promise.resolve(false),
      sweep: () => Promise.resolve(0),
    };
    let now = Date.now();
    const holder = new TemporaryHolder({ ttlMs: 60_000, clock: () => now });
    setHosting(dataDir, { storage: failing, holder });
    const res = await post(t, '/api/v1/upscale', form(await art(16, 16)));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ output_hosted_by: 'provider', output_url_expires: true, scale: 4 });
    expect(Date.parse(res.json!.output_url_expires_at as string)).toBe(now + 60_000);
    const url = res.json!.output_url as string;
    expect(url).toMatch(/^\/api\/v1\/upscale\/held\/[A-Za-z0-9_-]{32}\.png$/);
    const img = await get(t, url, null);
    expect(img.status).toBe(200);
    expect((await sharp(img.bytes).metadata()).width).toBe(64);
    expect(t.logs.some((l) => /storage write failed/.test(String(l.msg)))).toBe(true);
    now += 60_001;
    expect((await get(t, url, null)).status).toBe(404);
  });

  it('unknown or malformed result keys are 404', async () => {
    expect((await get(t, '/api/v1/upscale/results/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.png', null)).status).toBe(404);
    expect((await get(t, '/api/v1/upscale/results/..%2F..%2Finkprep.db', null)).status).toBe(404);
    expect((await get(t, '/api/v1/upscale/held/nope.png', null)).status).toBe(404);
  });

  it('counts against the upscale fair-use cap (429 fair_use_exceeded when reached); GET /upscale reports it', async () => {
    const { account, key } = await t.newAccount('capped');
    await t.store.updateAccount(account.id, { upscaleCap: 1 });
    expect((await post(t, '/api/v1/upscale', form(await art(8, 8)), key)).status).toBe(200);
    const over = await post(t, '/api/v1/upscale', form(await art(8, 8)), key);
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({ code: 'fair_use_exceeded', limit: 1, used: 1 });
    expect((await get(t, '/api/v1/upscale', key)).json).toMatchObject({ budget4x: 400, maxPixels4x: 1600, fairUsePerDay: 1, fairUseUsed: 1, fairUseRemaining: 0 });
  });
});

describe('LocalDiskStorage', () => {
  it('put/get/delete with unguessable keys; retention sweep', async () => {
    let now = 1_000_000;
    const dir = path.join(dataDir, 'retention');
    const s = new LocalDiskStorage({ dir, retentionMs: 1000, clock: () => now });
    const key = await s.put({ bytes: new Uint8Array([1, 2, 3]), contentType: 'image/png' });
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}\.png$/);
    now = Date.now();
    expect(Array.from((await s.get(key))!.bytes)).toEqual([1, 2, 3]);
    expect(await s.get('../../etc/passwd')).toBeNull();
    now += 2000;
    expect(await s.get(key)).toBeNull(); // past retention
    expect(await s.sweep(now)).toBe(1);
    const k2 = await s.put({ bytes: new Uint8Array([9]), contentType: 'image/png' });
    expect(await s.delete(k2)).toBe(true);
    expect(await s.delete(k2)).toBe(false);
  });
});
