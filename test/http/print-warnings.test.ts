// Warnings that keep a shop from printing empty film, over real HTTP: black art on a black classic-tee (the
// colour given, so knockout=garment by default) answers 200 with `nothing_to_print` on POST /underbase and per
// item on a gang sheet's white layer, while art that contrasts with the shirt has none; and a gang-sheet design
// file that no item names is `unused_design` with the file's index.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let black: Uint8Array;
let blue: Uint8Array;

/** 200 x 200 px: a disc of `fill` on transparency (anti-aliased edge: semi-transparent pixels of the same colour). */
async function disc(fill: string): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><circle cx="100" cy="100" r="90" fill="${fill}"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

type Warning = { code: string; item?: number; design?: number; pixels?: number; boxes?: unknown[] };

function sheetForm(files: Uint8Array[], items: unknown[], fields: Record<string, string>): FormData {
  const f = form(null, { items: JSON.stringify(items), sheet_width_in: '11', format: 'json', ...fields });
  files.forEach((d, i) => f.append('design', new Blob([d]), `design-${i}.png`));
  return f;
}

beforeAll(async () => {
  [black, blue] = [await disc('#000000'), await disc('#2a8cff')];
  t = await startTestServer();
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('nothing_to_print', () => {
  it('POST /underbase: black art on a black classic-tee still answers, with the warning and its box', async () => {
    const res = await post(t, '/api/v1/underbase', form(black, { style: 'classic-tee', color: 'black', print_width_inches: '4', format: 'json' }));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json!.color_ink_sq_in).toBe(0);
    const w = (res.json!.warnings as Warning[]).find((x) => x.code === 'nothing_to_print')!;
    expect(w.pixels).toBeGreaterThan(20_000); // the whole disc is knocked out
    expect(w.boxes).toEqual([{ x: 10, y: 10, width: 180, height: 180 }]);
    // the plate answers (png, pdf) name it in X-Warnings
    const png = await post(t, '/api/v1/underbase', form(black, { style: 'classic-tee', color: 'black', print_width_inches: '4', format: 'png' }));
    expect(png.status).toBe(200);
    expect(png.headers.get('x-warnings')!.split(',')).toContain('nothing_to_print');
  }, 60_000);

  it('POST /underbase: the same art on a white shirt, or with knockout=none, prints and has no warning', async () => {
    const cases: Record<string, string>[] = [{ style: 'classic-tee', color: 'white' }, { style: 'classic-tee', color: 'black', knockout: 'none' }];
    for (const fields of cases) {
      const res = await post(t, '/api/v1/underbase', form(black, { ...fields, print_width_inches: '4', format: 'json' }));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect((res.json!.warnings as Warning[]).map((x) => x.code)).not.toContain('nothing_to_print');
    }
  }, 60_000);

  it('POST /gangsheet underbase=true on a black classic-tee: the black design\'s item is warned, the blue one\'s is not', async () => {
    const res = await post(t, '/api/v1/gangsheet', sheetForm([black, blue], [{ design: 0, quantity: 3, width_in: 2 }, { design: 1, quantity: 2, width_in: 2 }], { underbase: 'true', style: 'classic-tee', color: 'black' }));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const empty = (res.json!.warnings as Warning[]).filter((x) => x.code === 'nothing_to_print');
    expect(empty.map((x) => x.item)).toEqual([0]);
  }, 60_000);
});

describe('unused_design', () => {
  it('POST /gangsheet: a file no item names is warned with its index; the sheet is still made', async () => {
    const res = await post(t, '/api/v1/gangsheet', sheetForm([blue, black, blue], [{ design: 0, quantity: 1, width_in: 2 }, { design: 2, quantity: 1, width_in: 2 }], {}));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const unused = (res.json!.warnings as Warning[]).filter((x) => x.code === 'unused_design');
    expect(unused).toEqual([expect.objectContaining({ code: 'unused_design', design: 1 })]);
    expect(unused[0]!.item).toBeUndefined();
    expect((res.json!.placements as unknown[]).length).toBe(2);
  }, 60_000);

  it('POST /gangsheet: every file used, no unused_design', async () => {
    const res = await post(t, '/api/v1/gangsheet', sheetForm([blue, black], [{ design: 1, quantity: 1, width_in: 2 }, { design: 0, quantity: 1, width_in: 2 }], {}));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect((res.json!.warnings as Warning[]).map((x) => x.code)).not.toContain('unused_design');
  }, 60_000);
});
