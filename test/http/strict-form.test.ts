// Strict forms and query strings (issue 30), on the transport of this run (test/http runs on both): a field
// sent twice, a text field sent as a file part, a second `image` part, an unknown file part, a repeated query
// parameter and a `supplier` list of empty items are each a 400 `invalid_option` naming the field, before
// anything is metered. Before this, the first (query) or last (form) value won silently, file parts other
// than the first `image` were skipped, and `supplier=,,` widened to every supplier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, startTestServer, tinyPng, type TestServer } from './harness.js';

let t: TestServer;
let png: Uint8Array;
beforeAll(async () => {
  t = await startTestServer();
  png = await tinyPng();
});
afterAll(async () => {
  await t.close();
});

/** A form built part by part (FormData keeps repeated names and file parts under any name). */
function parts(list: ([name: string, value: string] | [name: string, file: Uint8Array, filename: string])[]): FormData {
  const f = new FormData();
  for (const p of list) {
    if (p.length === 3) f.append(p[0], new Blob([p[1]]), p[2]);
    else f.append(p[0], p[1]);
  }
  return f;
}

async function usedToday(): Promise<number> {
  const res = await get(t, '/api/v1/mockup/templates');
  expect(res.status).toBe(200);
  return 999_999 - Number(res.headers.get('x-ratelimit-remaining'));
}

const TWICE: { path: string; field: string; values: [string, string] }[] = [
  { path: '/api/v1/upscale', field: 'scale', values: ['2', '4'] },
  { path: '/api/v1/scan', field: 'print_width_inches', values: ['4', '12'] },
  { path: '/api/v1/fix', field: 'alpha_threshold', values: ['100', '200'] },
  { path: '/api/v1/fix', field: 'fix_halftone', values: ['true', 'true'] },
  { path: '/api/v1/vectorize', field: 'colors', values: ['2', '8'] },
  { path: '/api/v1/vectorize', field: 'output_format', values: ['svg', 'svg'] },
  { path: '/api/v1/mockup', field: 'placement', values: ['full-front', 'full-back'] },
  { path: '/api/v1/mockup', field: 'style', values: ['own:classic-tee', 'own:classic-tee'] },
  { path: '/api/v1/remove-bg', field: 'some_future_field', values: ['a', 'b'] },
];

describe('a form field sent twice', () => {
  for (const { path, field, values } of TWICE) {
    it(`${path}: ${field}=${values[0]} and ${field}=${values[1]} -> 400 invalid_option naming ${field}`, async () => {
      const res = await post(t, path, parts([['image', png, 'a.png'], [field, values[0]], [field, values[1]]]));
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_option', field });
      expect(String(res.json!.error)).toMatch(new RegExp(`${field} was sent more than once`));
    });
  }

  it('once each, the same fields are accepted (the refusal is the repetition, not the value)', async () => {
    const res = await post(t, '/api/v1/scan', parts([['image', png, 'a.png'], ['print_width_inches', '4']]));
    expect(res.status).toBe(200);
  });

  it('is refused before metering: the daily count does not move', async () => {
    const before = await usedToday();
    const res = await post(t, '/api/v1/scan', parts([['image', png, 'a.png'], ['print_width_inches', '4'], ['print_width_inches', '4']]));
    expect(res.status).toBe(400);
    // +1: the templates read that measures the count is itself metered.
    expect(await usedToday()).toBe(before + 1);
  });
});

describe('file parts', () => {
  it('a text field sent as a file part (-F print_width_inches=@four.txt) -> 400 naming it', async () => {
    const res = await post(t, '/api/v1/scan', parts([['image', png, 'a.png'], ['print_width_inches', new TextEncoder().encode('4'), 'four.txt']]));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'invalid_option', field: 'print_width_inches' });
    expect(String(res.json!.error)).toMatch(/print_width_inches was sent as a file/);
  });

  it('the same with the file part before the image', async () => {
    const res = await post(t, '/api/v1/upscale', parts([['scale', new TextEncoder().encode('2'), 'two.txt'], ['image', png, 'a.png']]));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'invalid_option', field: 'scale' });
  });

  it('a second image part -> 400 naming image', async () => {
    const res = await post(t, '/api/v1/scan', parts([['image', png, 'a.png'], ['image', png, 'b.png']]));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'invalid_option', field: 'image' });
    expect(String(res.json!.error)).toMatch(/image file was sent more than once/);
  });

  it('an unknown file part -> 400 naming it (unknown text fields are still ignored)', async () => {
    const file = await post(t, '/api/v1/fix', parts([['image', png, 'a.png'], ['mask', png, 'mask.png']]));
    expect(file.status).toBe(400);
    expect(file.json).toMatchObject({ code: 'invalid_option', field: 'mask' });
    const text = await post(t, '/api/v1/scan', parts([['image', png, 'a.png'], ['mask', 'x']]));
    expect(text.status).toBe(200);
  });

  it('without a key the answer is still 401 (the key is checked first)', async () => {
    const res = await post(t, '/api/v1/scan', parts([['image', png, 'a.png'], ['image', png, 'b.png']]), null);
    expect(res.status).toBe(401);
  });
});

describe('a query parameter sent twice', () => {
  const CASES: { path: string; field: string; key: boolean }[] = [
    { path: '/api/v1/garments?q=tee&q=hoodie', field: 'q', key: true },
    { path: '/api/v1/garments?supplier=own&supplier=own', field: 'supplier', key: true },
    { path: '/api/v1/garments?q=tee&other=1&other=2', field: 'other', key: true },
    { path: '/api/v1/garments/style?key=own:classic-tee&key=own:classic-tee', field: 'key', key: true },
    { path: '/api/v1/mockup/preview?template=tee-black&template=tee-white', field: 'template', key: false },
    { path: '/api/v1/mockup/preview?template=tee-black&size=400&size=400', field: 'size', key: false },
  ];
  for (const c of CASES) {
    it(`${c.path} -> 400 invalid_option naming ${c.field}`, async () => {
      const res = await get(t, c.path, c.key ? t.key : null);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_option', field: c.field });
      expect(String(res.json!.error)).toMatch(/sent more than once/);
    });
  }

  it('once, the same parameters are accepted', async () => {
    expect((await get(t, '/api/v1/garments?q=tee&supplier=own')).status).toBe(200);
    expect((await get(t, '/api/v1/garments/style?key=own:classic-tee')).status).toBe(200);
  });
});

describe('supplier lists', () => {
  for (const q of ['supplier=', 'supplier=%2C%2C', 'supplier=%2C', 'supplier=own%2C', 'supplier=%2Cown', 'supplier=own%2C%2Cown']) {
    it(`GET /api/v1/garments?${q} -> 400 invalid_option naming supplier`, async () => {
      const res = await get(t, `/api/v1/garments?q=tee&${q}`);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_option', field: 'supplier' });
    });
  }

  it('a list of known ids is accepted', async () => {
    const res = await get(t, '/api/v1/garments?q=tee&supplier=own');
    expect(res.status).toBe(200);
    expect((res.json!.suppliers as { id: string }[]).map((s) => s.id)).toEqual(['own']);
  });
});
