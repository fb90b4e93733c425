// Conformance of the HTTP API with docs/artwork-api-v1.md, walked section by section over real
// HTTP. Where another file already proves a row, it is not repeated here:
//   2.2 scan report fields/types ......................... scan-fix.test.ts
//   2.6/2.7/2.8/2.9 basic shapes, mockup X- header values .. mockup.test.ts (types, key format, no prices: here)
//   4.5 upscale scale 2|4 default 4, 413 body, pre-shrink .. upscale.test.ts
//   4.8 vectorize field validation, stat headers, queue ..... vectorize.test.ts, queue.test.ts
//   5   auth headers, 401/402/403, status reads need key .... auth.test.ts
//   7   every error-table row ............................. errors.test.ts
//   8   daily limit, rolling window, unmetered status reads,
//       fair-use caps, vectorize 25 MB, remove-bg 25 MP ....... limits.test.ts, body.test.ts, remove-bg.test.ts
// This file adds: every section 4 endpoint at its path and method (with both key headers); the field
// validation matrix of fix, scan, upscale and mockup; documented defaults (scan 12 in, fix alpha 144 / lpi 35 /
// 300 DPI, halftone wins over the threshold, vectorize defaults, mockup defaults); PNG/JPEG/WebP inputs; content
// types and headers; exact field names and types of 2.1-2.9; no price fields; transparency kept and solid
// backgrounds traced (4.8); legacy mockup fields and case-insensitive names (section 9); status reads need the
// key and never count (5.6, 8); the default daily limit 999,999 (8).
// Not checkable over HTTP here: plan-gated key creation (auth.test.ts does it on the store), the 120 s client
// timeout (vectorize.test.ts proves the server does not time out first), processing times.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, get, post, startTestServer, tinyPng, type TestServer } from './harness.js';

let t: TestServer;
let png: Uint8Array;
let design: Uint8Array;
beforeAll(async () => {
  t = await startTestServer();
  png = await tinyPng();
  design = new Uint8Array(await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 200, height: 120, channels: 4, background: { r: 30, g: 200, b: 30, alpha: 1 } } }, left: 50, top: 40 }])
    .png().toBuffer());
});
afterAll(async () => {
  await t.close();
});

async function bearerPost(path: string, body: FormData): Promise<Response> {
  return fetch(t.url + path, { method: 'POST', body, headers: { authorization: `Bearer ${t.key}` } });
}

function expectInvalid(res: { status: number; json: Record<string, unknown> | null }, field: string, what: string): void {
  expect(res.status, what).toBe(400);
  expect(res.json, what).toMatchObject({ code: 'invalid_option', field });
  expect(typeof res.json!.error, what).toBe('string');
}

/** Every key anywhere in a JSON value. */
function allKeys(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) allKeys(x, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.push(k); allKeys(x, out); }
  return out;
}

async function alphaGrid(values: number[]): Promise<Uint8Array> {
  // one row per alpha value, 16 px wide, black ink
  const w = 16;
  const data = Buffer.alloc(w * values.length * 4);
  values.forEach((a, y) => { for (let x = 0; x < w; x++) data[(y * w + x) * 4 + 3] = a; });
  return new Uint8Array(await sharp(data, { raw: { width: w, height: values.length, channels: 4 } }).png().toBuffer());
}

describe('spec 4: every endpoint at its path and method; one key (x-api-key or Bearer) works for all (5.1, 5.5)', () => {
  it('the POST endpoints answer with Bearer auth and reject a missing image with 400', async () => {
    for (const path of ['/api/v1/scan', '/api/v1/fix', '/api/v1/remove-bg', '/api/v1/upscale', '/api/v1/vectorize', '/api/v1/mockup']) {
      const res = await bearerPost(path, form(null, {}));
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      const body = await res.json() as Record<string, unknown>;
      expect(typeof body.error, path).toBe('string');
    }
  });

  it('the GET endpoints answer 200 JSON with Bearer auth and with x-api-key', async () => {
    for (const path of ['/api/v1/remove-bg', '/api/v1/upscale', '/api/v1/vectorize', '/api/v1/mockup/templates', '/api/v1/garments', '/api/v1/garments?q=tee', '/api/v1/garments/style?key=own:classic-tee']) {
      const b = await fetch(t.url + path, { headers: { authorization: `Bearer ${t.key}` } });
      expect(b.status, path).toBe(200);
      expect(b.headers.get('content-type'), path).toMatch(/^application\/json/);
      await b.arrayBuffer();
      expect((await get(t, path)).status, path).toBe(200);
    }
  });

  it('paths start with /api/v1 (9): the same paths without the version are not served', async () => {
    expect((await get(t, '/scan')).status).toBe(404);
    expect((await get(t, '/api/v2/vectorize')).status).toBe(404);
  });
});

describe('4.1 POST /scan', () => {
  it('application/json; print_width_inches defaults to 12 (dpi = width / 12) and is used when sent', async () => {
    const img = new Uint8Array(await sharp({ create: { width: 600, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: { create: { width: 300, height: 150, channels: 4, background: { r: 0, g: 0, b: 200, alpha: 1 } } }, left: 150, top: 75 }]).png().toBuffer());
    const def = await post(t, '/api/v1/scan', form(img));
    expect(def.status).toBe(200);
    expect(def.headers.get('content-type')).toMatch(/^application\/json/);
    expect(def.json!.dpi).toBe(50);
    expect((await post(t, '/api/v1/scan', form(img, { print_width_inches: '2' }))).json!.dpi).toBe(300);
  });

  it('2.2 value types: recommended is one of remove/halftone/either/none with a reason; arrays and numbers', async () => {
    const r = (await post(t, '/api/v1/scan', form(png))).json!;
    expect(r).toMatchObject({ dpi: expect.any(Number), ink_coverage_percent: expect.any(Number), speck_count: expect.any(Number), is_jpeg: false, issues: expect.any(Array), suggestions: expect.any(Array) });
    expect(['remove', 'halftone', 'either', 'none']).toContain((r.transparency_fix as { recommended: string }).recommended);
    expect(typeof (r.transparency_fix as { reason: unknown }).reason).toBe('string');
    const jpeg = new Uint8Array(await sharp(png).flatten({ background: '#ffffff' }).jpeg().toBuffer());
    expect((await post(t, '/api/v1/scan', form(jpeg, {}, 'a.jpg'))).json!.is_jpeg).toBe(true);
  });

  it('print_width_inches must be a positive number', async () => {
    for (const v of ['wide', '0', '-1']) expectInvalid(await post(t, '/api/v1/scan', form(png, { print_width_inches: v })), 'print_width_inches', v);
  });
});

describe('4.1/4.2/4.8/4.12 input formats', () => {
  it('scan, fix, vectorize and mockup take PNG, JPEG and WebP; fix always answers image/png', async () => {
    const jpeg = new Uint8Array(await sharp(png).flatten({ background: '#ffffff' }).jpeg().toBuffer());
    const webp = new Uint8Array(await sharp(png).webp({ lossless: true }).toBuffer());
    for (const [img, name] of [[jpeg, 'a.jpg'], [webp, 'a.webp']] as const) {
      for (const [path, fields] of [['/api/v1/scan', {}], ['/api/v1/fix', {}], ['/api/v1/vectorize', {}], ['/api/v1/mockup', { output_size: '400' }]] as const) {
        const res = await post(t, path, form(img, fields, name));
        expect(res.status, `${path} ${name}`).toBe(200);
        if (path === '/api/v1/fix') expect(res.headers.get('content-type')).toBe('image/png');
      }
    }
  });
});

describe('4.2 POST /fix', () => {
  it('validates every field: alpha_threshold 0-255, halftone_lpi 15-65, booleans true/false, sizes, print width', async () => {
    const bad: [string, string][] = [
      ['alpha_threshold', '256'], ['alpha_threshold', '-1'], ['alpha_threshold', 'high'],
      ['halftone_lpi', '14'], ['halftone_lpi', '66'], ['halftone_lpi', 'fine'],
      ['fix_alpha_threshold', 'yes'], ['fix_alpha_threshold', '1'], ['fix_halftone', 'on'], ['fix_trim', 'y'], ['fix_despeckle', '0'],
      ['resize_width_px', '0'], ['resize_width_px', 'big'], ['resize_height_px', '-5'],
      ['print_width_inches', 'wide'], ['print_width_inches', '0'],
    ];
    for (const [field, value] of bad) expectInvalid(await post(t, '/api/v1/fix', form(png, { [field]: value })), field, `${field}=${value}`);
    for (const [field, value] of [['alpha_threshold', '0'], ['alpha_threshold', '255'], ['halftone_lpi', '15'], ['halftone_lpi', '65'], ['fix_trim', 'false']] as const) {
      expect((await post(t, '/api/v1/fix', form(png, { [field]: value }))).status, `${field}=${value}`).toBe(200);
    }
  });

  it('image/png; alpha_threshold defaults to 144 (lower cuts more)', async () => {
    const img = await alphaGrid([40, 100, 143, 144, 200, 255]);
    const run = async (fields: Record<string, string>): Promise<number[]> => {
      const res = await post(t, '/api/v1/fix', form(img, { fix_alpha_threshold: 'true', ...fields }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const { data, info } = await sharp(res.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return Array.from({ length: info.height }, (_, y) => data[(y * info.width + 8) * 4 + 3]!);
    };
    const def = await run({});
    expect(def).toEqual(await run({ alpha_threshold: '144' }));
    expect(def.slice(0, 3).every((a) => a === 0)).toBe(true);
    expect(def.slice(3).every((a) => a > 0)).toBe(true);
    const low = await run({ alpha_threshold: '90' });
    expect(low[1]).toBeGreaterThan(0);
  });

  it('halftone_lpi defaults to 35; without print_width_inches 300 DPI is assumed', async () => {
    const glow = Buffer.alloc(120 * 120 * 4);
    for (let y = 0; y < 120; y++) for (let x = 0; x < 120; x++) {
      const d = Math.hypot(x - 60, y - 60);
      glow[(y * 120 + x) * 4 + 3] = Math.max(0, Math.min(255, Math.round(255 * (1 - d / 60))));
    }
    const img = new Uint8Array(await sharp(glow, { raw: { width: 120, height: 120, channels: 4 } }).png().toBuffer());
    const fix = async (fields: Record<string, string>): Promise<Uint8Array> => {
      const res = await post(t, '/api/v1/fix', form(img, { fix_halftone: 'true', ...fields }));
      expect(res.status).toBe(200);
      return new Uint8Array(await sharp(res.bytes).ensureAlpha().raw().toBuffer());
    };
    const def = await fix({});
    expect(Buffer.from(def).equals(Buffer.from(await fix({ halftone_lpi: '35' })))).toBe(true);
    expect(Buffer.from(def).equals(Buffer.from(await fix({ halftone_lpi: '15' })))).toBe(false);
    expect(Buffer.from(def).equals(Buffer.from(await fix({ print_width_inches: String(120 / 300) })))).toBe(true);
    // with both fix_halftone and fix_alpha_threshold, halftone wins and the threshold is skipped
    expect(Buffer.from(def).equals(Buffer.from(await fix({ fix_alpha_threshold: 'true', alpha_threshold: '250' })))).toBe(true);
  });
});

describe('4.3/4.4 remove-bg', () => {
  it('POST returns image/png; GET returns exactly the 2.3 fields, fairUse null when uncapped, numbers when capped', async () => {
    const res = await post(t, '/api/v1/remove-bg', form(png));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const g = await get(t, '/api/v1/remove-bg');
    expect(Object.keys(g.json!).sort()).toEqual(['fairUsePerDay', 'fairUseRemaining', 'fairUseUsed', 'maxPixels']);
    expect(g.json).toEqual({ maxPixels: 25_000_000, fairUsePerDay: null, fairUseUsed: null, fairUseRemaining: null });
    const { account, key } = await t.newAccount('capped');
    await t.store.updateAccount(account.id, { removeBgCap: 5 });
    await post(t, '/api/v1/remove-bg', form(png), key);
    const c = await get(t, '/api/v1/remove-bg', key);
    expect(c.json).toEqual({ maxPixels: 25_000_000, fairUsePerDay: 5, fairUseUsed: 1, fairUseRemaining: 4 });
  });
});

describe('4.5/4.6 upscale', () => {
  it('GET returns the 2.4 fields with their types; maxPixels include the 4x shrink allowance', async () => {
    const g = (await get(t, '/api/v1/upscale')).json!;
    expect(Object.keys(g).sort()).toEqual(['autoShrink', 'budget', 'budget4x', 'fairUsePerDay', 'fairUseRemaining', 'fairUseUsed', 'maxPixels', 'maxPixels4x', 'scales', 'shrinkAllowance'].sort());
    for (const k of ['maxPixels', 'maxPixels4x', 'budget', 'budget4x']) expect(typeof g[k], k).toBe('number');
    expect(g).toMatchObject({ autoShrink: true, shrinkAllowance: 4, scales: [2, 4], fairUsePerDay: null, fairUseUsed: null, fairUseRemaining: null });
    expect(g.maxPixels).toBe((g.budget as number) * 4);
    expect(g.maxPixels4x).toBe((g.budget4x as number) * 4);
  });

  it('POST returns 2.5 JSON with the exact types; scale must be 2 or 4', async () => {
    const res = await post(t, '/api/v1/upscale', form(png, { scale: '2' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const j = res.json!;
    expect(typeof j.output_url).toBe('string');
    expect(j).toMatchObject({ scale: 2, preShrunk: false, output_hosted_by: 'service', output_url_expires: false });
    for (const k of ['from', 'to']) if (k in j) expect(j[k]).toEqual({ width: expect.any(Number), height: expect.any(Number) });
    expect((await fetch(new URL(j.output_url as string, t.url))).status).toBe(200);
    expect((await post(t, '/api/v1/upscale', form(png, { scale: '2.0' }))).json).toMatchObject({ scale: 2 });
    for (const v of ['3', '1', '8', 'x', '2.5']) expectInvalid(await post(t, '/api/v1/upscale', form(png, { scale: v })), 'scale', `scale=${v}`);
  });
});

describe('4.7/4.8 vectorize', () => {
  it('GET returns exactly { queue: { converting: boolean, waiting: number, max_waiting: number } } (2.1)', async () => {
    const g = (await get(t, '/api/v1/vectorize')).json!;
    expect(Object.keys(g)).toEqual(['queue']);
    const q = g.queue as Record<string, unknown>;
    expect(Object.keys(q).sort()).toEqual(['converting', 'max_waiting', 'waiting']);
    expect(typeof q.converting).toBe('boolean');
    expect(typeof q.waiting).toBe('number');
    expect(typeof q.max_waiting).toBe('number');
  });

  it('POST image/svg+xml with numeric stat headers; the documented defaults equal sending them explicitly', async () => {
    const def = await post(t, '/api/v1/vectorize', form(png));
    expect(def.status).toBe(200);
    expect(def.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    for (const h of ['x-paths', 'x-colors-used', 'x-trace-ms', 'x-queue-ms']) expect(def.headers.get(h), h).toMatch(/^\d+(\.\d+)?$/);
    const explicit = await post(t, '/api/v1/vectorize', form(png, { colors: 'auto', detail: 'balanced', shape_style: 'stacked', speck_size: '4', edge_cleanup: 'true', smooth_bands: 'true', gradients: 'false', output_format: 'svg', dxf_units: 'in', primitives: 'true' }));
    expect(Buffer.from(explicit.bytes).toString()).toBe(Buffer.from(def.bytes).toString());
    expect(explicit.headers.get('x-colors-used')).toBe(def.headers.get('x-colors-used'));
  });

  it('accepts the documented ranges: colors 1..20, auto, unlimited; speck_size 0..16; print width in inches; rejects colors lots/21/0', async () => {
    for (const fields of <Record<string, string>[]>[{ colors: '1' }, { colors: '20' }, { colors: 'unlimited' }, { speck_size: '0' }, { speck_size: '16' }, { detail: 'precise' }, { detail: 'smoother' }, { shape_style: 'cutout' }, { gradients: 'true' }]) {
      const r = await post(t, '/api/v1/vectorize', form(png, fields));
      expect(r.status, JSON.stringify(fields)).toBe(200);
    }
    expect((await post(t, '/api/v1/vectorize', form(png, { colors: '1' }))).headers.get('x-colors-used')).toBe('1');
    const inches = Buffer.from((await post(t, '/api/v1/vectorize', form(png, { print_width_inches: '2' }))).bytes).toString();
    expect(inches).toMatch(/width="2(\.0+)?in"/);
    for (const v of ['lots', '21', '0']) expectInvalid(await post(t, '/api/v1/vectorize', form(png, { colors: v })), 'colors', `colors=${v}`);
    expectInvalid(await post(t, '/api/v1/vectorize', form(png, { speck_size: '17' })), 'speck_size', 'speck_size=17');
  });

  it('a transparent PNG stays transparent (only the ink is painted); a solid background is traced as its own shape', async () => {
    const fills = (svg: string): string[] => [...svg.matchAll(/fill="(#[0-9a-fA-F]{3,6})"|fill:\s*(#[0-9a-fA-F]{3,6})/g)].map((m) => (m[1] ?? m[2])!.toLowerCase());
    const hex = (c: string): [number, number, number] => {
      const h = c.length === 4 ? c.slice(1).split('').map((x) => x + x).join('') : c.slice(1);
      return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
    };
    const svg = Buffer.from((await post(t, '/api/v1/vectorize', form(png))).bytes).toString();
    // no background box: the transparent margin stays unpainted (the ink may itself be a <rect>: a recognised square)
    const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    for (const [x, y] of [[1, 1], [info.width - 2, 1], [1, info.height - 2], [info.width - 2, info.height - 2]]) expect(data[(y! * info.width + x!) * 4 + 3], `${x},${y}`).toBe(0);
    expect(data[(16 * info.width + 16) * 4 + 3]).toBe(255);
    const inks = fills(svg);
    expect(inks.length).toBeGreaterThan(0);
    for (const c of inks) expect(hex(c)[0] - hex(c)[2], c).toBeGreaterThan(100);
    const opaque = new Uint8Array(await sharp(png).flatten({ background: '#ffffff' }).png().toBuffer());
    const solid = fills(Buffer.from((await post(t, '/api/v1/vectorize', form(opaque))).bytes).toString());
    expect(solid.some((c) => hex(c).every((v) => v > 240)), solid.join(' ')).toBe(true);
  });
});

describe('4.9-4.11 listings', () => {
  it('templates: 2.6 field names and types', async () => {
    const list = (await get(t, '/api/v1/mockup/templates')).json!.templates as Record<string, unknown>[];
    expect(list.length).toBeGreaterThan(0);
    for (const tp of list) {
      expect(tp).toMatchObject({ id: expect.any(String), name: expect.any(String), category: expect.any(String), preview_url: expect.any(String), width_px: expect.any(Number), height_px: expect.any(Number) });
      for (const p of tp.placements as Record<string, unknown>[]) expect(p).toMatchObject({ id: expect.any(String), name: expect.any(String) });
    }
    const names = list.flatMap((tp) => (tp.placements as { name: string }[]).map((p) => p.name));
    expect(names).toEqual(expect.arrayContaining(['Center', 'Left Chest', 'Full Front']));
  });

  it('garments: featured blanks without q, 2.7 field names and types, key <supplier>:<style_id>, no prices', async () => {
    const res = (await get(t, '/api/v1/garments')).json!;
    const styles = res.styles as Record<string, unknown>[];
    expect(styles.length).toBeGreaterThan(0);
    expect(res).toHaveProperty('suppliers');
    for (const s of styles) {
      expect(s).toMatchObject({ key: expect.any(String), supplier: expect.any(String), brand: expect.any(String), style_number: expect.any(String), title: expect.any(String), category: expect.any(String), thumb: expect.any(String), color_count: expect.any(Number) });
      expect(s.key).toMatch(new RegExp(`^${s.supplier as string}:[^:\\s]+$`));
    }
    expect(allKeys(res).filter((k) => /price|cost/i.test(k))).toEqual([]);
    const filtered = (await get(t, '/api/v1/garments?supplier=own&q=hoodie')).json!.styles as { supplier: string }[];
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((s) => s.supplier === 'own')).toBe(true);
  });

  it('style detail: 2.8 field names and types for every colour, size and placement; no prices', async () => {
    const res = await get(t, '/api/v1/garments/style?key=own:classic-tee');
    const d = res.json!;
    expect(d).toMatchObject({ key: 'own:classic-tee', brand: expect.any(String), style_number: expect.any(String), title: expect.any(String), category: expect.any(String) });
    expect(Array.isArray(d.sizes)).toBe(true);
    for (const c of d.colors as Record<string, unknown>[]) {
      expect(c).toMatchObject({ id: expect.any(String), name: expect.any(String), hex: expect.stringMatching(/^#?[0-9a-fA-F]{6}$/), images: { front: expect.any(String), back: expect.any(String) } });
      for (const s of c.sizes as Record<string, unknown>[]) expect(s).toEqual({ size: expect.any(String), sku: expect.any(String), in_stock: expect.any(Boolean) });
    }
    const placements = d.placements as Record<string, unknown>[];
    for (const p of placements) {
      expect(p).toMatchObject({ id: expect.any(String), name: expect.any(String), view: expect.stringMatching(/^(front|back)$/), default_width_in: expect.any(Number), max_width_in: expect.any(Number), default_top_in: expect.any(Number) });
      expect(['left-chest', 'center-chest', 'full-front', 'oversized', 'right-chest', 'back-neck', 'upper-back', 'full-back']).toContain(p.id);
    }
    expect(allKeys(d).filter((k) => /price|cost/i.test(k))).toEqual([]);
    expectInvalid(await get(t, '/api/v1/garments/style?key=classic-tee'), 'key', 'key without supplier');
  });
});

describe('4.12 POST /mockup', () => {
  it('validates fields: output_size 400-4000, fabric 0-1 or false, frame, format, response, view, scale 0.1-2, numbers', async () => {
    const bad: [Record<string, string>, string][] = [
      [{ output_size: '399' }, 'output_size'], [{ output_size: '4001' }, 'output_size'], [{ output_size: 'big' }, 'output_size'],
      [{ fabric: '1.5' }, 'fabric'], [{ fabric: '-0.1' }, 'fabric'], [{ fabric: 'true' }, 'fabric'],
      [{ frame: 'round' }, 'frame'], [{ format: 'gif' }, 'format'], [{ response: 'xml' }, 'response'], [{ view: 'side' }, 'view'],
      [{ print_width_in: 'wide' }, 'print_width_in'], [{ top_in: 'low' }, 'top_in'], [{ offset_x_in: 'left' }, 'offset_x_in'],
      [{ placement: 'nowhere' }, 'placement'],
    ];
    for (const [fields, field] of bad) expectInvalid(await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', ...fields })), field, JSON.stringify(fields));
    for (const [fields, field] of [[{ scale: '0.05' }, 'scale'], [{ scale: '2.1' }, 'scale'], [{ template_id: 'nope' }, 'template_id'], [{ placement_id: 'nope' }, 'placement_id']] as const) {
      expectInvalid(await post(t, '/api/v1/mockup', form(design, fields)), field, JSON.stringify(fields));
    }
  });

  it('image response: image/png by default, image/jpeg with format=jpeg, every X- header; fabric=false and bounds accepted', async () => {
    const res = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', output_size: '400', fabric: 'false' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    for (const h of ['x-garment', 'x-placement', 'x-print-width-in', 'x-print-height-in', 'x-effective-dpi', 'x-warnings']) expect(res.headers.has(h), h).toBe(true);
    for (const h of ['x-print-width-in', 'x-print-height-in', 'x-effective-dpi']) expect(Number(res.headers.get(h)), h).toBeGreaterThan(0);
    const jpeg = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', output_size: '400', format: 'jpeg', fabric: '0' }));
    expect(jpeg.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(jpeg.bytes).metadata()).format).toBe('jpeg');
    expect((await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', output_size: '400', fabric: '1' }))).status).toBe(200);
  });

  it('defaults: output_size 2000, black colour, top_in 3, the placement decides the view, fabric 0.8', async () => {
    const def = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', response: 'json' }));
    expect(def.status).toBe(200);
    const j = def.json!;
    const img = j.image as { width: number; height: number; base64: string; content_type: string };
    expect(Math.max(img.width, img.height)).toBe(2000);
    expect(img.content_type).toBe('image/png');
    expect((j.print as { top_in: number }).top_in).toBe(3);
    expect(JSON.stringify(j.garment)).toMatch(/black/i);
    const back = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', placement: 'full-back', output_size: '400', response: 'json' }));
    expect(back.json!.view).toBe('back');
    const a = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', output_size: '400' }));
    const b = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', output_size: '400', fabric: '0.8' }));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });

  it('color by id or name, size at true scale (unknown size -> 400), offset_x_in and top_in are used', async () => {
    const res = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', color: 'Navy', size: 'XL', offset_x_in: '1.5', top_in: '4', output_size: '400', response: 'json' }));
    expect(res.status).toBe(200);
    expect(res.json!.garment).toMatchObject({ color: { id: 'navy' }, size: 'XL' });
    expect(res.json!.print).toMatchObject({ offset_x_in: 1.5, top_in: 4 });
    expectInvalid(await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', size: 'XXXXXXL', output_size: '400' })), 'size', 'size=XXXXXXL');
  });

  it('json response: 2.9 field names and types', async () => {
    const res = await post(t, '/api/v1/mockup', form(design, { style: 'own:classic-tee', placement: 'left-chest', output_size: '400', response: 'json' }));
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const j = res.json!;
    for (const k of ['garment', 'view', 'placement', 'print', 'warnings', 'image']) expect(j, k).toHaveProperty(k);
    expect(Array.isArray(j.warnings)).toBe(true);
    expect(j.print).toMatchObject({ width_in: expect.any(Number), height_in: expect.any(Number), top_in: expect.any(Number), offset_x_in: expect.any(Number), description: expect.any(String), effective_dpi: expect.any(Number) });
    expect((j.print as Record<string, unknown>).artwork_px).toEqual({ width: 300, height: 200 });
    expect(j.image).toEqual({ content_type: 'image/png', width: expect.any(Number), height: expect.any(Number), base64: expect.any(String) });
  });

  it('legacy mode (9): without style, the first template is used; template_id, placement_id and scale work', async () => {
    const templates = (await get(t, '/api/v1/mockup/templates')).json!.templates as { id: string; placements: { id: string }[] }[];
    const first = await post(t, '/api/v1/mockup', form(design, { output_size: '400' }));
    expect(first.status).toBe(200);
    expect(first.headers.get('x-garment')).toBe(templates[0]!.id);
    const last = templates[templates.length - 1]!;
    const pick = await post(t, '/api/v1/mockup', form(design, { template_id: last.id, placement_id: last.placements[0]!.id, scale: '0.5', output_size: '400' }));
    expect(pick.status).toBe(200);
    expect(pick.headers.get('x-garment')).toBe(last.id);
    const full = await post(t, '/api/v1/mockup', form(design, { template_id: last.id, placement_id: last.placements[0]!.id, output_size: '400' }));
    expect(Number(pick.headers.get('x-print-width-in'))).toBeCloseTo(Number(full.headers.get('x-print-width-in')) / 2, 1);
    const named = await post(t, '/api/v1/mockup', form(design, { garment: 'WHITE T-SHIRT', placement: 'lEFT cHEST', output_size: '400' }));
    expect(named.status).toBe(200);
    expect(named.headers.get('x-garment')).toBe('tee-white');
    expect(named.headers.get('x-placement')).toMatch(/left[ -]chest/i);
  });
});

describe('5/8: status reads need the key and count against nothing', () => {
  it('the per-key daily limit of a new top-tier account is 999,999', () => {
    expect(t.account.dailyLimit).toBe(999_999);
  });

  it('status reads without a key are 401; many status reads leave the daily count at zero', async () => {
    for (const p of ['/api/v1/vectorize', '/api/v1/remove-bg', '/api/v1/upscale']) expect((await get(t, p, null)).status, p).toBe(401);
    const { account, key } = await t.newAccount('status-only');
    await t.store.updateAccount(account.id, { dailyLimit: 1 });
    for (let i = 0; i < 3; i++) for (const p of ['/api/v1/vectorize', '/api/v1/remove-bg', '/api/v1/upscale']) expect((await get(t, p, key)).status).toBe(200);
    expect((await post(t, '/api/v1/scan', form(png), key)).status).toBe(200);
    expect((await post(t, '/api/v1/scan', form(png), key)).status).toBe(429);
  });
});
