// POST /api/v1/gangsheet over real HTTP (both transports): repeated `design` file parts and the JSON `items`
// field; the PDF with the manifest's numbers in X- headers, the JSON manifest, the PNG; metered once per
// request whatever the copies; 400 naming the item; the repeated file field allowed here alone; all design
// files together within the upload limit, enforced while streaming.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let discArt: Uint8Array;
let barArt: Uint8Array;

/** `w` x `h` px at 150 DPI with ink where `inside`. */
async function art(w: number, h: number, inside: (x: number, y: number) => boolean): Promise<Uint8Array> {
  const d = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (inside(x, y)) d.set([200, 40, 40, 255], (y * w + x) * 4);
  return new Uint8Array(await sharp(d, { raw: { width: w, height: h, channels: 4 } }).png().toBuffer());
}

function sheetForm(designs: readonly Uint8Array[], fields: Record<string, string>): FormData {
  const f = form(null, fields);
  designs.forEach((d, i) => f.append('design', new Blob([d]), `design-${i}.png`));
  return f;
}

const ITEMS = JSON.stringify([{ design: 0, quantity: 6, width_in: 2 }, { design: 1, quantity: 3, width_in: 4 }]);
// The layout is the same for the same request unless the wall-clock cap cuts the search (`search_capped`); a
// busy CI machine can take the default 5 s. A small order ends its search on its own long before its work
// budget, so a long cap only keeps the clock out of the comparison: the layout is the default's.
const UNCAPPED = { time_budget_ms: '60000' };

beforeAll(async () => {
  t = await startTestServer();
  discArt = await art(300, 300, (x, y) => (x - 150) ** 2 + (y - 150) ** 2 <= 150 ** 2);
  barArt = await art(600, 150, (x, y) => y >= 150 - (x / 600) * 150);
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/v1/gangsheet', () => {
  it('answers the PDF of the sheet with its numbers in headers, metered once per request', async () => {
    const res = await post(t, '/api/v1/gangsheet', sheetForm([discArt, barArt], { items: ITEMS, sheet_width_in: '11', ...UNCAPPED }));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('x-sheets')).toBe('1');
    expect(res.headers.get('x-copies')).toBe('9');
    expect(res.headers.get('x-fast-placed')).toBe('0');
    const length = Number(res.headers.get('x-sheet-lengths-in'));
    const pdf = Buffer.from(res.bytes).toString('latin1');
    expect(pdf).toContain(`/MediaBox [0 0 792 ${Math.round(length * 72 * 10000) / 10000}]`);
    expect(pdf.match(/\/Subtype \/Image/g)).toHaveLength(4); // two designs, each RGB + soft mask, embedded once
    const utilisation = Number(res.headers.get('x-utilisation'));
    expect(utilisation).toBeGreaterThan(0.2);
    expect(utilisation).toBeLessThan(1);
    const before = Number(res.headers.get('x-ratelimit-remaining'));
    const again = await post(t, '/api/v1/gangsheet', sheetForm([discArt, barArt], { items: ITEMS, sheet_width_in: '11', format: 'json', ...UNCAPPED }));
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    const manifest = again.json as { sheets: { length_in: number }[]; placements: { item: number; copy: number; x_in: number; rotation: number }[] };
    expect(manifest.sheets[0]!.length_in).toBe(length);
    expect(manifest.placements.map((p) => `${p.item}:${p.copy}`).sort()).toEqual(['0:0', '0:1', '0:2', '0:3', '0:4', '0:5', '1:0', '1:1', '1:2']);
    // the same request, the same layout
    const third = await post(t, '/api/v1/gangsheet', sheetForm([discArt, barArt], { items: ITEMS, sheet_width_in: '11', format: 'json', ...UNCAPPED }));
    expect((third.json as { search_capped: boolean }).search_capped).toBe(false);
    expect(third.json).toEqual(again.json);
  });

  it('format=png answers the first sheet at the art\'s resolution', async () => {
    const res = await post(t, '/api/v1/gangsheet', sheetForm([discArt, barArt], { items: ITEMS, sheet_width_in: '11', format: 'png' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-dpi')).toBe('150');
    const meta = await sharp(res.bytes).metadata();
    expect(meta.width).toBe(11 * 150);
    expect(meta.height).toBe(Math.round(Number(res.headers.get('x-sheet-lengths-in')) * 150));
  });

  it('places each design cut to its ink: every manifest box on the sheet inside the margins, the PDF image the ink\'s', async () => {
    // a 1 in disc in the middle of a 3 x 3 in transparent file (150 DPI), twenty copies beside the bars
    const wide = await art(450, 450, (x, y) => (x - 225) ** 2 + (y - 225) ** 2 <= 75 ** 2);
    const fields = { items: JSON.stringify([{ design: 0, quantity: 20, width_in: 3 }, { design: 1, quantity: 3, width_in: 4 }]), sheet_width_in: '11', margin_in: '0.5', ...UNCAPPED };
    const res = await post(t, '/api/v1/gangsheet', sheetForm([wide, barArt], { ...fields, format: 'json' }));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const m = res.json as { sheets: { length_in: number }[]; placements: { item: number; sheet: number; x_in: number; y_in: number; width_in: number; height_in: number }[]; items: unknown[] };
    // the file's print size as asked, and the part of it placed: pixels 150-300 of 450 (x and y)
    expect(m.items[0]).toEqual({ item: 0, design: 0, width_in: 3, height_in: 3, art: { x_in: 1, y_in: 1, width_in: 1.0067, height_in: 1.0067, x_px: 150, y_px: 150, width_px: 151, height_px: 151 } });
    expect(m.placements).toHaveLength(23);
    for (const p of m.placements) {
      expect(p.x_in).toBeGreaterThanOrEqual(0.5);
      expect(p.y_in).toBeGreaterThanOrEqual(0.5);
      expect(p.x_in + p.width_in).toBeLessThanOrEqual(11 - 0.5 + 1e-9);
      expect(p.y_in + p.height_in).toBeLessThanOrEqual(m.sheets[p.sheet]!.length_in - 0.5 + 1e-9);
      if (p.item === 0) expect(p.width_in).toBeLessThan(1.01); // the disc's box, not the 3 in file's
    }
    const pdf = await post(t, '/api/v1/gangsheet', sheetForm([wide, barArt], fields));
    expect(pdf.status).toBe(200);
    const text = Buffer.from(pdf.bytes).toString('latin1');
    const art0 = (m.items[0] as { art: { width_px: number; height_px: number } }).art;
    expect(text).toContain(`/Width ${art0.width_px} /Height ${art0.height_px}`);
    expect(text).not.toContain('/Width 450');
  });

  it('rejects a bad order naming the item, and the file parts it does not take', async () => {
    const cases: [FormData, string][] = [
      [sheetForm([discArt], { items: '[]' }), 'items'],
      [sheetForm([discArt], { items: JSON.stringify([{ design: 0, quantity: 1, width_in: 1 }, { design: 2, quantity: 1, width_in: 1 }]) }), 'items[1].design'],
      [sheetForm([discArt], { items: JSON.stringify([{ design: 0, quantity: 499, width_in: 1 }, { design: 0, quantity: 2, width_in: 1 }]) }), 'items[1].quantity'],
      [sheetForm([barArt], { items: JSON.stringify([{ design: 0, quantity: 1, width_in: 20 }]), sheet_width_in: '11', rotation: 'none' }), 'items[0].width_in'],
      [(() => { const f = sheetForm([discArt], { items: ITEMS }); f.append('image', new Blob([discArt]), 'a.png'); return f; })(), 'image'],
      [sheetForm(Array.from({ length: 51 }, () => discArt), { items: ITEMS }), 'design'],
    ];
    for (const [body, field] of cases) {
      const res = await post(t, '/api/v1/gangsheet', body);
      expect(res.status, field).toBe(400);
      expect(res.json, field).toMatchObject({ code: 'invalid_option', field });
    }
    // the usual slip, the design sent as `image`: the answer names the field to use
    const asImage = form(discArt, { items: ITEMS });
    const wrongName = await post(t, '/api/v1/gangsheet', asImage);
    expect(wrongName.json).toMatchObject({ code: 'invalid_option', field: 'image' });
    expect(String(wrongName.json!.error)).toMatch(/send the file as design/);
    const none = await post(t, '/api/v1/gangsheet', form(null, { items: ITEMS }));
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({ code: 'missing_image' });
  });

  it('keeps a repeated image part a 400 on the other routes', async () => {
    const f = form(discArt, { print_width_inches: '2' });
    f.append('image', new Blob([discArt]), 'again.png');
    const res = await post(t, '/api/v1/scan', f);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'invalid_option', field: 'image' });
    const design = form(discArt, {});
    design.append('design', new Blob([discArt]), 'd.png');
    expect((await post(t, '/api/v1/scan', design)).json).toMatchObject({ code: 'invalid_option', field: 'design' });
  });
});

describe('POST /api/v1/gangsheet: the upload limit covers all designs together', () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startTestServer({ config: { maxUploadBytes: Math.round(1.5 * discArt.byteLength) } });
  });
  afterAll(async () => {
    await small.close();
  });
  it('one design under the limit passes; two that only together exceed it are 413', async () => {
    const one = await post(small, '/api/v1/gangsheet', sheetForm([discArt], { items: JSON.stringify([{ design: 0, quantity: 2, width_in: 1 }]), format: 'json' }));
    expect(one.status, JSON.stringify(one.json)).toBe(200);
    const two = await post(small, '/api/v1/gangsheet', sheetForm([discArt, discArt], { items: JSON.stringify([{ design: 1, quantity: 2, width_in: 1 }]), format: 'json' }));
    expect(two.status).toBe(413);
    expect(two.json).toMatchObject({ code: 'image_too_large' });
  });
});
