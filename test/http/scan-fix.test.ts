// POST /api/v1/scan and /api/v1/fix over real HTTP: the scan report carries every spec 2.2 field with
// the documented value sets; fix returns image/png with its DPI (pHYs) and applies the form fields;
// bad values give 400 invalid_option naming the field.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disc, png } from '../engine/scan/fixtures.js';
import { form, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/v1/scan', () => {
  it('returns the full report for a glow: halftone recommended with POST /fix suggestions', async () => {
    const res = await post(t, '/api/v1/scan', form(await png(disc(300, 300, { r: 80, glowSigma: 15 })), { print_width_inches: '1' }));
    expect(res.status).toBe(200);
    const r = res.json!;
    for (const k of ['dpi', 'background', 'alpha', 'transparency_fix', 'ink_coverage_percent', 'speck_count', 'is_jpeg', 'edge_quality', 'issues', 'suggestions']) expect(r).toHaveProperty(k);
    expect(r.dpi).toBe(300);
    expect(r.is_jpeg).toBe(false);
    expect(['transparent', 'solid', 'complex']).toContain(r.background);
    expect(['clean', 'soft', 'jagged', 'fringed']).toContain(r.edge_quality);
    const alpha = r.alpha as Record<string, unknown>;
    expect(typeof alpha.soft_rim_px).toBe('number');
    expect(typeof alpha.semi_transparent_percent).toBe('number');
    expect(typeof alpha.has_fringe).toBe('boolean');
    expect(r.transparency_fix).toMatchObject({ recommended: 'halftone', reason: expect.any(String) });
    const sugg = r.suggestions as Array<{ field: string; value: string; reason: string }>;
    expect(sugg).toContainEqual(expect.objectContaining({ field: 'fix_halftone', value: 'true' }));
    for (const i of r.issues as Array<Record<string, unknown>>) expect(i).toEqual({ code: expect.any(String), severity: expect.stringMatching(/^(error|warning|info)$/), message: expect.any(String) });
    // the suggestions are form fields POST /fix accepts as they are
    const fixForm = Object.fromEntries(sugg.map((s) => [s.field, s.value]));
    const fixed = await post(t, '/api/v1/fix', form(await png(disc(300, 300, { r: 80, glowSigma: 15 })), fixForm));
    expect(fixed.status).toBe(200);
  });

  it('rejects a bad print width naming the field', async () => {
    const res = await post(t, '/api/v1/scan', form(await png(disc(64, 64, { r: 20 })), { print_width_inches: '-2' }));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'invalid_option', field: 'print_width_inches' });
  });
});

describe('POST /api/v1/fix', () => {
  it('returns a PNG with DPI and binary alpha after halftone', async () => {
    const res = await post(t, '/api/v1/fix', form(await png(disc(300, 300, { r: 80, glowSigma: 15 })), { fix_halftone: 'true', halftone_lpi: '30', print_width_inches: '1', fix_alpha_threshold: 'true' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(res.bytes).metadata();
    expect(meta.density).toBeCloseTo(300, 0);
    const { data } = await sharp(res.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    let semi = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0 && data[i] !== 255) semi++;
    expect(semi).toBe(0);
  });

  it('X-Warnings: empty normally, halftone_cell_too_small when the cell is under 4 px (55 lpi at 75 DPI)', async () => {
    const ok = await post(t, '/api/v1/fix', form(await png(disc(300, 300, { r: 80, glowSigma: 15 })), { fix_halftone: 'true', print_width_inches: '1' }));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-warnings')).toBe('');
    const low = await post(t, '/api/v1/fix', form(await png(disc(300, 300, { r: 80, glowSigma: 15 })), { fix_halftone: 'true', halftone_lpi: '55', print_width_inches: '4' }));
    expect(low.status).toBe(200);
    expect(low.headers.get('x-warnings')).toBe('halftone_cell_too_small');
    expect(low.headers.get('x-dpi')).toBe('75');
  });

  it('trims and resizes', async () => {
    const res = await post(t, '/api/v1/fix', form(await png(disc(200, 200, { r: 50 })), { fix_trim: 'true', resize_width_px: '50' }));
    expect(res.status).toBe(200);
    const meta = await sharp(res.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([50, 50]);
  });

  it.each([
    ['alpha_threshold', '300'],
    ['halftone_lpi', '10'],
    ['fix_halftone', 'yes'],
    ['resize_width_px', '-5'],
    ['resize_height_px', 'big'],
    ['fix_despeckle', '2'],
  ])('400 names %s=%s', async (field, value) => {
    const res = await post(t, '/api/v1/fix', form(await png(disc(64, 64, { r: 20 })), { [field]: value }));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'invalid_option', field });
  });
});
