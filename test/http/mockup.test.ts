// Mockup and garment endpoints over real HTTP: GET /mockup/templates (+ preview pictures without a key),
// GET /garments (a down supplier degrades with a warning, never a 500), GET /garments/style, POST /mockup
// as an image with the X- headers and as 2.9 JSON with base64, legacy mode, and 400s naming the field.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Catalog, SsActivewearConnector } from '../../adapter-http/src/catalog/index.js';
import { warmBlanksEnabled } from '../../adapter-http/src/config.js';
import { startBlankWarmup, useCatalog, warmMockupBlanks } from '../../adapter-http/src/routes/mockup.js';
import { resolveMockup } from '@inkprep/engine/internals';
import { form, get, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let design: Uint8Array;
beforeAll(async () => {
  // S&S configured but unreachable (discard port): its failures must degrade, not break the endpoints.
  useCatalog(new Catalog({
    connectors: [new SsActivewearConnector({ baseUrl: 'http://127.0.0.1:9/v2', account: '1', apiKey: 'k', imageBase: 'https://img.example/', timeoutMs: 300, ttlMs: 1000 })],
    deadlineMs: 1000,
  }));
  t = await startTestServer();
  design = new Uint8Array(await sharp({ create: { width: 1200, height: 900, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 800, height: 600, channels: 4, background: { r: 230, g: 30, b: 30, alpha: 1 } } }, left: 200, top: 150 }])
    .png().toBuffer());
});
afterAll(async () => {
  useCatalog(null);
  await t.close();
});

describe('GET /api/v1/mockup/templates', () => {
  it('lists templates (2.6) and their preview pictures are served without a key', async () => {
    const res = await get(t, '/api/v1/mockup/templates');
    expect(res.status).toBe(200);
    const list = res.json!.templates as Array<{ id: string; name: string; category: string; preview_url: string; width_px: number; height_px: number; placements: { id: string; name: string }[] }>;
    expect(list[0]).toMatchObject({ id: 'tee-white', name: 'White T-Shirt', category: 't-shirt', preview_url: '/api/v1/mockup/preview?template=tee-white' });
    const pic = await get(t, list[0]!.preview_url + '&size=400', null);
    expect(pic.status).toBe(200);
    expect(pic.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(pic.bytes).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(400);
    expect((await get(t, '/api/v1/mockup/templates', null)).status).toBe(401);
    expect((await get(t, '/api/v1/mockup/preview?template=nope', null)).json).toMatchObject({ code: 'invalid_option', field: 'template_id' });
  });
});

describe('GET /api/v1/garments and /garments/style', () => {
  it('returns own featured blanks; the down supplier is reported with a warning', async () => {
    const res = await get(t, '/api/v1/garments?q=tee');
    expect(res.status).toBe(200);
    const body = res.json as { styles: { key: string; thumb: string }[]; suppliers: { id: string; status: string }[]; warnings: { code: string }[] };
    expect(body.styles.map((s) => s.key)).toEqual(['own:classic-tee', 'own:womens-tee', 'own:long-sleeve-tee']);
    expect(body.suppliers).toEqual([expect.objectContaining({ id: 'own', status: 'ok' }), expect.objectContaining({ id: 'ss', status: 'unavailable' })]);
    expect(body.warnings[0]!.code).toBe('supplier_unavailable');
    expect((await get(t, '/api/v1/garments?supplier=own')).json!.warnings).toEqual([]);
    expect((await get(t, '/api/v1/garments?supplier=acme')).json).toMatchObject({ code: 'invalid_option', field: 'supplier' });
  });

  it('style detail (2.8) for an own blank; 400 without key; 503 when the supplier is down', async () => {
    const res = await get(t, '/api/v1/garments/style?key=own:hoodie');
    expect(res.status).toBe(200);
    const d = res.json as { key: string; sizes: string[]; chest_by_size_in: Record<string, number>; colors: { id: string; images: { front: string } }[]; placements: { id: string }[] };
    expect(d.key).toBe('own:hoodie');
    expect(d.chest_by_size_in.L).toBe(24);
    expect(d.placements.map((p) => p.id)).toEqual(['left-chest', 'right-chest', 'center-chest', 'full-front', 'upper-back', 'full-back']);
    const img = await get(t, d.colors.find((c) => c.id === 'navy')!.images.front.replace('size=1200', 'size=400'), null);
    expect(img.status).toBe(200);
    expect((await get(t, '/api/v1/garments/style')).json).toMatchObject({ code: 'invalid_option', field: 'key' });
    const down = await get(t, '/api/v1/garments/style?key=ss:39');
    expect(down.status).toBe(503);
    expect(down.json).toMatchObject({ code: 'supplier_unavailable', supplier: 'ss' });
  });
});

describe('POST /api/v1/mockup', () => {
  it('image response with X- headers', async () => {
    const res = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', color: 'navy', placement: 'left-chest', output_size: '512', fabric: '0.8' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-garment')).toBe('own:classic-tee');
    expect(res.headers.get('x-placement')).toBe('left-chest');
    expect(res.headers.get('x-print-width-in')).toBe('3.5');
    expect(res.headers.get('x-print-height-in')).toBe('2.63');
    expect(res.headers.get('x-effective-dpi')).toBe('342.9');
    expect(res.headers.get('x-warnings')).toBe('');
    const meta = await sharp(res.bytes).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(512);
  });

  it('semi-transparent art: X-Warnings names semi_transparent_art; preview_fix=auto reports the fix it previewed', async () => {
    // A soft-edged red glow (Gaussian alpha, no hard edge): the scan recommends halftone.
    const W = 600, raw = Buffer.alloc(W * W * 4);
    for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) {
      const a = Math.exp(-((x - 300) ** 2 + (y - 300) ** 2) / (2 * 110 ** 2));
      raw.set([230, 30, 30, Math.round(255 * a)], (y * W + x) * 4);
    }
    const glow = new Uint8Array(await sharp(raw, { raw: { width: W, height: W, channels: 4 } }).png().toBuffer());
    const plain = await post(t, '/api/v1/mockup', form(glow, { style: 'own:classic-tee', placement: 'left-chest', output_size: '512' }));
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-warnings')!.split(',')).toContain('semi_transparent_art');
    expect(plain.headers.get('x-preview-fix')).toBe('none');
    const fixed = await post(t, '/api/v1/mockup', form(glow, { style: 'own:classic-tee', placement: 'left-chest', output_size: '512', preview_fix: 'auto', response: 'json' }));
    const j = fixed.json as { print: { preview_fix: string | null; description: string }; warnings: { code: string; message: string }[] };
    expect(j.print.preview_fix).toBe('halftone');
    expect(j.print.description).toMatch(/previewing fix_halftone=true/);
    expect(j.warnings.find((w) => w.code === 'semi_transparent_art')!.message).toMatch(/recommends fix_halftone=true/);
    const bad = await post(t, '/api/v1/mockup', form(glow, { style: 'own:classic-tee', preview_fix: 'yes' }));
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'invalid_option', field: 'preview_fix' });
  });

  it('json response (2.9) with base64 image and warnings; legacy mode; 400 naming the field', async () => {
    const res = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', placement: 'full-front', print_width_in: '13', response: 'json', format: 'jpeg', output_size: '500', frame: 'square' }));
    expect(res.status).toBe(200);
    const j = res.json as { garment: { key: string }; view: string; placement: string; print: Record<string, unknown>; warnings: { code: string; message: string }[]; image: { content_type: string; width: number; height: number; base64: string } };
    expect(j.garment.key).toBe('own:classic-tee');
    expect(j.view).toBe('front');
    expect(j.print).toMatchObject({ width_in: 12, top_in: 3, offset_x_in: 0, artwork_px: { width: 1200, height: 900 }, effective_dpi: 100 });
    expect(j.warnings.map((w) => w.code)).toEqual(['width_clamped', 'low_dpi']);
    expect(j.image).toMatchObject({ content_type: 'image/jpeg', width: 500, height: 500 });
    const meta = await sharp(Buffer.from(j.image.base64, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 500, 500]);

    const legacy = await post(t, '/api/v1/mockup', form(design, { garment: 'black t-shirt', placement: 'Left Chest', scale: '0.5', output_size: '400' }));
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('x-garment')).toBe('tee-black');
    expect(legacy.headers.get('x-print-width-in')).toBe('2.25');

    for (const [fields, field] of [
      [{ style: 'own:classic-tee', color: 'plaid' }, 'color'],
      [{ style: 'own:hoodie', placement: 'oversized' }, 'placement'],
      [{ style: 'own:classic-tee', output_size: '100' }, 'output_size'],
      [{ style: 'nope:1' }, 'style'],
    ] as const) {
      const bad = await post(t, '/api/v1/mockup', form(design, fields));
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ code: 'invalid_option', field });
    }
    const down = await post(t, '/api/v1/mockup', form(design, { style: 'ss:39' }));
    expect(down.status).toBe(503);
    expect(down.json).toMatchObject({ code: 'supplier_unavailable' });
  });
});

describe('warmMockupBlanks', () => {
  it('renders every own blank front and back once with valid options', async () => {
    const calls: Record<string, unknown>[] = [];
    await warmMockupBlanks({ mockup: async (_input, opts) => { calls.push(opts as Record<string, unknown>); return resolveMockup(opts as never) as never; } });
    expect(calls.map((c) => `${c.style} ${c.placement}`)).toEqual([
      'own:classic-tee full-front', 'own:classic-tee full-back', 'own:womens-tee full-front', 'own:womens-tee full-back',
      'own:long-sleeve-tee full-front', 'own:long-sleeve-tee full-back', 'own:hoodie full-front', 'own:hoodie full-back',
    ]);
  });
});

describe('blank warm-up at server start', () => {
  it('is on by default, off under tests, and INKPREP_WARM_BLANKS decides when set', () => {
    expect(warmBlanksEnabled({})).toBe(true);
    expect(warmBlanksEnabled({ VITEST: 'true' })).toBe(false);
    expect(warmBlanksEnabled({ NODE_ENV: 'test' })).toBe(false);
    expect(warmBlanksEnabled({ VITEST: 'true', INKPREP_WARM_BLANKS: '1' })).toBe(true);
    expect(warmBlanksEnabled({ INKPREP_WARM_BLANKS: '0' })).toBe(false);
    expect(warmBlanksEnabled(process.env)).toBe(false);
  });

  it('runs in the background one blank at a time, only when the pool is idle, and stops at close', async () => {
    // Fake timers: the warm-up polls the pool every 250 ms and starts after setImmediate; the test moves the
    // clock instead of sleeping (real sleeps of 400 ms were a race on a busy machine).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
    try {
      let running = 1; // a request is running: the warm-up must wait
      const calls: string[] = [];
      const closers: (() => void)[] = [];
      let release: () => void = () => {};
      const engine = {
        stats: () => ({ threads: 2, running, queued: 0 }),
        mockup: (_input: unknown, opts: Record<string, unknown>, call: { signal?: AbortSignal }) => new Promise((resolve, reject) => {
          calls.push(`${opts.style} ${opts.placement}`);
          release = () => resolve({});
          call.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
      };
      const logs: string[] = [];
      const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) };
      startBlankWarmup({ engine: engine as never, log: log as never, onClose: (fn) => { closers.push(fn as () => void); } }, true);
      expect(calls).toEqual([]); // never synchronous: listening is not delayed
      await vi.advanceTimersByTimeAsync(2_000);
      expect(calls).toEqual([]); // pool busy: still waiting after many polls
      running = 0;
      await vi.advanceTimersByTimeAsync(250);
      expect(calls).toEqual(['own:classic-tee full-front']);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(calls).toEqual(['own:classic-tee full-front']); // one at a time: the next waits for this one
      release();
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toEqual(['own:classic-tee full-front', 'own:classic-tee full-back']);
      expect(closers).toHaveLength(1);
      closers[0]!(); // server close: the running render is aborted, nothing more starts
      await vi.advanceTimersByTimeAsync(2_000);
      expect(calls).toHaveLength(2);
      expect(logs).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
