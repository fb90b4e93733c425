// Mockups on supplier garment photos (spec 4.12, 2.8 images.front/back) over real HTTP: a local S&S stub
// serves style, product and spec rows whose colour photos are photo-like garment images made for the test
// (an own blank rendered, put on a white sweep, then degraded with a lighting gradient, noise and JPEG).
// Checked: the print lands where the chest line measured on the photo puts it for the requested size
// (scale, centre, top below the collar), the print follows the photo's folds (a grid moves across folds
// and stays put on flat cloth), and an unreachable photo falls back to the own silhouette with a warning.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWN_STYLES } from '@inkprep/engine';
import { getGarmentAt } from '@inkprep/engine/internals';
import { Catalog, SsActivewearConnector } from '../../adapter-http/src/catalog/index.js';
import { useCatalog } from '../../adapter-http/src/routes/mockup.js';
import { form, post, startTestServer, type TestServer } from './harness.js';

const tee = OWN_STYLES.find((s) => s.id === 'classic-tee')!;
const PHOTO_PX = 1400;
const OUT = 1400;
let stub: http.Server;
let t: TestServer;
let photo: Buffer;

/** The red own tee at PHOTO_PX on a white sweep, lit unevenly, with sensor noise, saved as JPEG q80. */
async function makePhoto(): Promise<Buffer> {
  const g = await getGarmentAt(tee, 'front', { hex: '#b01c28' }, PHOTO_PX);
  const W = g.width, H = g.height, buf = Buffer.alloc(W * H * 3);
  let seed = 7;
  const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    const i = y * W + x, light = 1.0 - 0.2 * (x / W) - 0.08 * (y / H), a = g.mask[i]! / 255;
    for (let k = 0; k < 3; k++) buf[i * 3 + k] = Math.max(0, Math.min(255, Math.round((g.rgba[i * 4 + k]! * a + 250 * (1 - a)) * light + (rnd() + rnd() + rnd() - 1.5) * 6)));
  }
  return sharp(buf, { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 80 }).toBuffer();
}

beforeAll(async () => {
  photo = await makePhoto();
  stub = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const base = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    const json = (b: unknown) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(b)); };
    const row = (color: string, img: string, size: string, order: string) => ({ sku: `S${color}${size}`, styleID: 39, colorName: color, color1: '#b01c28', colorFrontImage: `${base}/img/${img}`, colorBackImage: `${base}/img/${img}`, sizeName: size, sizeOrder: order, qty: 5 });
    if (u.pathname === '/v2/styles/39') return json([{ styleID: 39, brandName: 'Gildan', styleName: '5000', title: 'Heavy Cotton T-Shirt', baseCategory: 'T-Shirts' }]);
    if (u.pathname === '/v2/products/') return json([row('Red', 'red_f.jpg', 'M', 'C'), row('Red', 'red_f.jpg', 'XL', 'E'), row('Cardinal', 'gone.jpg', 'M', 'C')]);
    if (u.pathname === '/v2/specs/') return json([{ sizeName: 'M', specName: 'Body Width', value: '20 1/2' }, { sizeName: 'XL', specName: 'Body Width', value: '24' }]);
    if (u.pathname === '/img/red_f.jpg') { res.writeHead(200, { 'content-type': 'image/jpeg' }); return res.end(photo); }
    res.writeHead(404); res.end();
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const port = (stub.address() as AddressInfo).port;
  useCatalog(new Catalog({ connectors: [new SsActivewearConnector({ baseUrl: `http://127.0.0.1:${port}/v2`, account: '1', apiKey: 'k', imageBase: `http://127.0.0.1:${port}/`, timeoutMs: 30_000, ttlMs: 60_000 })], deadlineMs: 35_000 })); // roomy: a hang guard for the local stub on a busy machine
  t = await startTestServer();
});

afterAll(async () => {
  useCatalog(null);
  await t?.close();
  stub.closeAllConnections();
  await new Promise<void>((r) => stub.close(() => r()));
});

/** Bounding box of pure green pixels. */
async function greenBox(png: Uint8Array) {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  for (let y = 0; y < info.height; y++) for (let x = 0; x < info.width; x++) {
    const o = (y * info.width + x) * info.channels;
    if (data[o + 1]! > 150 && data[o]! < 90 && data[o + 2]! < 90) { left = Math.min(left, x); right = Math.max(right, x + 1); top = Math.min(top, y); bottom = Math.max(bottom, y + 1); }
  }
  return { left, top, right, bottom, width: info.width };
}

describe('mockup on the supplier photo', () => {
  it('places the print true to size from the chest line measured on the photo', async () => {
    const design = new Uint8Array(await sharp({ create: { width: 1100, height: 550, channels: 4, background: { r: 20, g: 220, b: 40, alpha: 1 } } }).png().toBuffer());
    // Where the garment really is in the photo (the blank it was made from, at the output size).
    const g = await getGarmentAt(tee, 'front', { hex: '#b01c28' }, OUT);
    const chestPx = g.ppi * tee.shape.chest;
    for (const [size, chestIn] of [['M', 20.5], ['XL', 24]] as const) {
      const res = await post(t, '/api/v1/mockup', form(design, { style: 'ss:39', color: 'red', size, placement: 'full-front', output_size: String(OUT), fabric: 'false' }));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-warnings')).not.toMatch(/photo_unavailable/);
      const box = await greenBox(res.bytes);
      expect(box.width).toBe(g.width);
      const ppi = chestPx / chestIn;
      const w = 11 * ppi;
      expect(Math.abs(box.right - box.left - w) / w, size).toBeLessThan(0.02);
      expect(Math.abs((box.left + box.right) / 2 - g.center_x), size).toBeLessThanOrEqual(3);
      expect(Math.abs(box.top - (g.collar_y + 3 * ppi)), size).toBeLessThanOrEqual(4);
    }
  });

  it('the print follows the photo folds: a grid moves across folds, not on flat cloth', async () => {
    const W = 1500, raw = Buffer.alloc(W * W * 4);
    for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) if (x % 50 < 3 || y % 50 < 3) raw.set([250, 250, 250, 255], (y * W + x) * 4);
    const grid = new Uint8Array(await sharp(raw, { raw: { width: W, height: W, channels: 4 } }).png().toBuffer());
    const opts = { style: 'ss:39', color: 'red', size: 'M', placement: 'oversized', print_width_in: '15', output_size: String(OUT) };
    const flat = await post(t, '/api/v1/mockup', form(grid, { ...opts, fabric: 'false' }));
    const bent = await post(t, '/api/v1/mockup', form(grid, { ...opts, fabric: '1' }));
    const A = await sharp(flat.bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
    const B = await sharp(bent.bytes).greyscale().raw().toBuffer();
    const w = A.info.width;
    const box = await greenBox(flat.bytes); // no green: use the print's extent from the white lines instead
    expect(box.left).toBe(Infinity);
    // Print extent: the rows/columns where the white grid lines are.
    let x0 = w, x1 = 0, y0 = A.info.height, y1 = 0;
    for (let y = 0; y < A.info.height; y++) for (let x = 0; x < w; x++) if (A.data[y * w + x]! > 200 && y > 100) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    const win = 24, R = 6;
    const shifts: number[] = [];
    for (let wy = y0 + R + 2; wy + win + R < y1; wy += 18) for (let wx = x0 + R + 2; wx + win + R < x1; wx += 18) {
      let best = -2, bs = 0;
      for (let dy = -R; dy <= R; dy++) for (let dx = -R; dx <= R; dx++) {
        let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
        for (let y = wy; y < wy + win; y++) for (let x = wx; x < wx + win; x++) {
          const a = A.data[y * w + x]!, b = B[(y + dy) * w + x + dx]!;
          sa += a; sb += b; saa += a * a; sbb += b * b; sab += a * b;
        }
        const n = win * win, va = saa - (sa * sa) / n, vb = sbb - (sb * sb) / n;
        if (va < 1e3 || vb < 1e3) continue;
        const c = (sab - (sa * sb) / n) / Math.sqrt(va * vb);
        if (c > best) { best = c; bs = Math.hypot(dx, dy); }
      }
      if (best > 0.6) shifts.push(bs);
    }
    shifts.sort((a, b) => a - b);
    expect(shifts.length).toBeGreaterThan(200);
    expect(shifts[shifts.length - 1]!).toBeGreaterThanOrEqual(2); // across the photo's folds
    expect(shifts[Math.floor(shifts.length * 0.6)]!).toBe(0); // most of the chest is flat cloth
  });

  it('a photo that cannot be fetched falls back to the own silhouette with photo_unavailable', async () => {
    const design = new Uint8Array(await sharp({ create: { width: 1100, height: 550, channels: 4, background: { r: 20, g: 220, b: 40, alpha: 1 } } }).png().toBuffer());
    const res = await post(t, '/api/v1/mockup', form(design, { style: 'ss:39', color: 'cardinal', size: 'M', output_size: '600', fabric: 'false', response: 'json' }));
    expect(res.status).toBe(200);
    const j = res.json as { warnings: { code: string; message: string }[] };
    const w = j.warnings.find((x) => x.code === 'photo_unavailable');
    expect(w, JSON.stringify(j.warnings)).toBeDefined();
    expect(w!.message).toMatch(/HTTP 404/);
  });
});

describe('underbase on a supplier style', () => {
  it('takes the garment colour from the catalog (the red Gildan 5000 knocks out red art)', async () => {
    const art = new Uint8Array(await sharp({ create: { width: 60, height: 40, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([
        { input: { create: { width: 20, height: 20, channels: 4, background: { r: 0xb0, g: 0x1c, b: 0x28, alpha: 1 } } }, left: 5, top: 10 },
        { input: { create: { width: 20, height: 20, channels: 4, background: { r: 20, g: 60, b: 200, alpha: 1 } } }, left: 35, top: 10 },
      ]).png().toBuffer());
    const res = await post(t, '/api/v1/underbase', form(art, { style: 'ss:39', color: 'red', format: 'json', print_width_inches: '0.2' }));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ garment_color: '#b01c28', garment_source: expect.stringMatching(/^ss:39:/), knockout: 'garment' });
    // 20 x 20 px knocked out at 300 DPI, the blue square kept
    expect(res.json!.knocked_out_sq_in).toBeCloseTo(400 / 90000, 3);
    expect(res.json!.color_ink_sq_in).toBeCloseTo(400 / 90000, 3);
    const bad = await post(t, '/api/v1/underbase', form(art, { style: 'ss:39', color: 'ultraviolet' }));
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'invalid_option', field: 'color' });
  });
});
