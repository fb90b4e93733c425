// Present-but-blank and padded option values over HTTP (issue 17): for every option field of every endpoint
// of spec 4.1-4.12, an empty value, a whitespace-only value and a valid value with a trailing space are each a
// 400 `invalid_option` naming that field. The table lists each field once with a valid value, so adding a
// field to the spec without a row here is the only way to skip it. Enum values are exact (case-sensitive);
// only legacy mockup placement/garment names match case-insensitively (spec 4.12), checked at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, get, post, startTestServer, tinyPng, type TestServer } from './harness.js';

let t: TestServer;
let png: Uint8Array;
beforeAll(async () => {
  t = await startTestServer();
  png = await tinyPng();
});
afterAll(async () => {
  await t.close();
});

interface Row {
  path: string;
  field: string;
  /** A valid value for the field (a trailing space is added to it). */
  valid: string;
  /** Other fields sent with it (e.g. `style` for true-to-size-only mockup fields). */
  with?: Record<string, string>;
}

const TRUE_TO_SIZE = { style: 'own:classic-tee' };
const POST_ROWS: Row[] = [
  { path: '/api/v1/scan', field: 'print_width_inches', valid: '12' },
  { path: '/api/v1/fix', field: 'fix_alpha_threshold', valid: 'true' },
  { path: '/api/v1/fix', field: 'alpha_threshold', valid: '144' },
  { path: '/api/v1/fix', field: 'fix_halftone', valid: 'true' },
  { path: '/api/v1/fix', field: 'halftone_lpi', valid: '35' },
  { path: '/api/v1/fix', field: 'print_width_inches', valid: '12' },
  { path: '/api/v1/fix', field: 'fix_trim', valid: 'false' },
  { path: '/api/v1/fix', field: 'fix_despeckle', valid: 'false' },
  { path: '/api/v1/fix', field: 'resize_width_px', valid: '10' },
  { path: '/api/v1/fix', field: 'resize_height_px', valid: '10' },
  { path: '/api/v1/upscale', field: 'scale', valid: '2' },
  { path: '/api/v1/vectorize', field: 'colors', valid: 'auto' },
  { path: '/api/v1/vectorize', field: 'detail', valid: 'balanced' },
  { path: '/api/v1/vectorize', field: 'shape_style', valid: 'stacked' },
  { path: '/api/v1/vectorize', field: 'speck_size', valid: '4' },
  { path: '/api/v1/vectorize', field: 'edge_cleanup', valid: 'true' },
  { path: '/api/v1/vectorize', field: 'smooth_bands', valid: 'true' },
  { path: '/api/v1/vectorize', field: 'gradients', valid: 'false' },
  { path: '/api/v1/vectorize', field: 'print_width_inches', valid: '12' },
  { path: '/api/v1/vectorize', field: 'output_format', valid: 'svg' },
  { path: '/api/v1/vectorize', field: 'dxf_units', valid: 'in' },
  { path: '/api/v1/vectorize', field: 'primitives', valid: 'true' },
  { path: '/api/v1/mockup', field: 'style', valid: 'own:classic-tee' },
  { path: '/api/v1/mockup', field: 'color', valid: 'black', with: TRUE_TO_SIZE },
  { path: '/api/v1/mockup', field: 'placement', valid: 'full-front', with: TRUE_TO_SIZE },
  { path: '/api/v1/mockup', field: 'view', valid: 'front', with: TRUE_TO_SIZE },
  { path: '/api/v1/mockup', field: 'print_width_in', valid: '10', with: TRUE_TO_SIZE },
  { path: '/api/v1/mockup', field: 'top_in', valid: '3', with: TRUE_TO_SIZE },
  { path: '/api/v1/mockup', field: 'offset_x_in', valid: '0', with: TRUE_TO_SIZE },
  { path: '/api/v1/mockup', field: 'size', valid: 'L', with: TRUE_TO_SIZE },
  { path: '/api/v1/mockup', field: 'fabric', valid: '0.8' },
  { path: '/api/v1/mockup', field: 'output_size', valid: '400' },
  { path: '/api/v1/mockup', field: 'frame', valid: 'native' },
  { path: '/api/v1/mockup', field: 'format', valid: 'png' },
  { path: '/api/v1/mockup', field: 'response', valid: 'json' },
  { path: '/api/v1/mockup', field: 'template_id', valid: 'tee-white' },
  { path: '/api/v1/mockup', field: 'garment', valid: 'white t-shirt' },
  { path: '/api/v1/mockup', field: 'placement_id', valid: 'full-front', with: { template_id: 'tee-white' } },
  { path: '/api/v1/mockup', field: 'placement', valid: 'Full Front', with: { template_id: 'tee-white' } },
  { path: '/api/v1/mockup', field: 'scale', valid: '1' },
  // Our extensions beyond the spec's 4.12 table (docs/algorithms/mockup.md): the same rule holds for them.
  { path: '/api/v1/mockup', field: 'preview_fix', valid: 'halftone' },
  { path: '/api/v1/mockup', field: 'alpha_threshold', valid: '144', with: { preview_fix: 'alpha_threshold' } },
  { path: '/api/v1/mockup', field: 'halftone_lpi', valid: '35', with: { preview_fix: 'halftone' } },
];
const GET_ROWS: Row[] = [
  { path: '/api/v1/garments', field: 'q', valid: 'tee' },
  { path: '/api/v1/garments', field: 'supplier', valid: 'own' },
  { path: '/api/v1/garments/style', field: 'key', valid: 'own:classic-tee' },
  // Extension (the blank pictures behind the template list's thumbs): same rule.
  { path: '/api/v1/mockup/preview', field: 'template', valid: 'tee-white' },
  { path: '/api/v1/mockup/preview', field: 'size', valid: '400', with: { template: 'tee-white' } },
];
const BAD = [
  { name: 'empty', make: () => '' },
  { name: 'whitespace-only', make: () => '  ' },
  { name: 'trailing space', make: (valid: string) => `${valid} ` },
] as const;

describe('every present option field must hold a value (spec 4.1-4.12)', () => {
  const cases = POST_ROWS.flatMap((r) => BAD.map((b) => ({ ...r, bad: b.name, value: b.make(r.valid) })));
  it.each(cases)('POST $path $field ($bad) -> 400 invalid_option', async ({ path, field, value, with: extra }) => {
    const r = await post(t, path, form(png, { ...extra, [field]: value }));
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_option', field });
  });

  const getCases = GET_ROWS.flatMap((r) => BAD.map((b) => ({ ...r, bad: b.name, value: b.make(r.valid) })));
  it.each(getCases)('GET $path $field ($bad) -> 400 invalid_option', async ({ path, field, value, with: extra }) => {
    const r = await get(t, `${path}?${new URLSearchParams({ ...extra, [field]: value })}`);
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_option', field });
  });

  it('each valid value of the table is accepted (so the 400s above are about the padding)', async () => {
    for (const r of POST_ROWS) {
      if (r.path === '/api/v1/upscale') continue; // the model/upscale run is slow; upscale.test.ts covers scale=2
      const extra: Record<string, string> = r.path === '/api/v1/mockup' ? { response: 'json', output_size: '400' } : {};
      const res = await post(t, r.path, form(png, { ...extra, ...r.with, [r.field]: r.valid }));
      expect(res.status, `${r.path} ${r.field}=${r.valid}: ${JSON.stringify(res.json)}`).toBe(200);
    }
    for (const r of GET_ROWS) {
      const res = await get(t, `${r.path}?${new URLSearchParams({ ...r.with, [r.field]: r.valid })}`);
      expect(res.status, `${r.path} ${r.field}=${r.valid}: ${JSON.stringify(res.json)}`).toBe(200);
    }
  });

  it('enum values are exact: case differs -> 400; legacy placement names match case-insensitively', async () => {
    expect((await post(t, '/api/v1/vectorize', form(png, { detail: 'Balanced' }))).json).toMatchObject({ field: 'detail' });
    expect((await post(t, '/api/v1/mockup', form(png, { style: 'own:classic-tee', placement: 'FULL-FRONT' }))).json).toMatchObject({ field: 'placement' });
    const legacy = await post(t, '/api/v1/mockup', form(png, { template_id: 'tee-white', placement: 'FULL FRONT', response: 'json', output_size: '400' }));
    expect(legacy.status).toBe(200);
  });
});
