// POST /api/v1/gangsheet with underbase=true over real HTTP: the PDF separates (Ghostscript tiffsep) into a
// White plate that is exactly each placement's choked, knocked-out mask, rotated copies included; format=png
// answers a zip whose white plate PNG lines up with the colour PNG pixel for pixel; the manifest names the
// white layer's options and the underbase checks' warnings per item; bad white options are 400s naming them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GangPlacement } from '@inkprep/engine';
import { computePlates, cropPlates, readStoredZip, resolveUnderbase, sheetToImage } from '@inkprep/engine/internals';
import { form, post, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
type Rgba = [number, number, number, number];
let designs: { png: Uint8Array; w: number; h: number; data: Uint8ClampedArray }[];

/** `w` x `h` px (150 DPI at the items' 2 in) painted by `paint`. */
async function art(w: number, h: number, paint: (x: number, y: number) => Rgba | null) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) { const c = paint(x, y); if (c) data.set(c, (y * w + x) * 4); }
  const png = new Uint8Array(await sharp(Buffer.from(data.buffer), { raw: { width: w, height: h, channels: 4 } }).png().toBuffer());
  return { png, w, h, data };
}

function sheetForm(fields: Record<string, string>): FormData {
  const f = form(null, fields);
  designs.forEach((d, i) => f.append('design', new Blob([d.png]), `design-${i}.png`));
  return f;
}

const DPI = 150;
const CHOKE_MM = 0.5;
const FIELDS = {
  items: JSON.stringify([{ design: 0, quantity: 5, width_in: 2 }, { design: 1, quantity: 4, width_in: 2 }]),
  sheet_width_in: '11', underbase: 'true', garment_color: '#000000', choke_mm: String(CHOKE_MM),
  // the manifest and the PDF are separate requests that must lay out alike: a long wall-clock cap keeps a busy
  // machine's clock out of it (this small order ends its search on its own, as with the default)
  time_budget_ms: '60000',
};

/** The manifest's `items[].art`: the part of each design file its copies place (the file cut to its ink). */
type ManifestItem = { design: number; art: { x_px: number; y_px: number; width_px: number; height_px: number } };

/**
 * The sheet's expected white (0/1 per pixel at DPI): every placement's plate from the underbase code, made on the
 * whole file and cut to the art the manifest says each box holds, sampled at pixel centres.
 */
function expectedWhite(placements: readonly GangPlacement[], items: readonly ManifestItem[], W: number, H: number): Uint8Array {
  const opts = resolveUnderbase({ garmentColor: '#000000', chokeMm: CHOKE_MM, printWidthInches: 2 });
  const plates = designs.map((d, k) => {
    const { x_px: x, y_px: y, width_px: width, height_px: height } = items.find((it) => it.design === k)!.art;
    return cropPlates(computePlates({ width: d.w, height: d.h, data: d.data }, opts), { x, y, width, height });
  });
  const out = new Uint8Array(W * H);
  for (const p of placements) {
    const pl = plates[p.design]!;
    for (let y = Math.floor(p.yIn * DPI); y < Math.ceil((p.yIn + p.heightIn) * DPI); y++) {
      for (let x = Math.floor(p.xIn * DPI); x < Math.ceil((p.xIn + p.widthIn) * DPI); x++) {
        const [s, u] = sheetToImage(p, (x + 0.5) / DPI, (y + 0.5) / DPI);
        if (s < 0 || s >= 1 || u < 0 || u >= 1) continue;
        if (pl.white[Math.floor(u * pl.height) * pl.width + Math.floor(s * pl.width)]! > 0) out[y * W + x] = 1;
      }
    }
  }
  return out;
}

/** Pixels where `a` and `b` differ other than on an edge of `a` (a pixel whose 8 neighbours are not all alike). */
function offEdgeDiffs(a: Uint8Array, b: Uint8Array, W: number, H: number): number {
  let n = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (a[i] === b[i]) continue;
      let edge = false;
      for (let dy = -1; dy <= 1 && !edge; dy++) for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx, yy = y + dy;
        if (xx >= 0 && yy >= 0 && xx < W && yy < H && a[yy * W + xx] !== a[i]) { edge = true; break; }
      }
      if (!edge) n++;
    }
  }
  return n;
}

beforeAll(async () => {
  t = await startTestServer();
  designs = [
    // an L (its turns tell apart) in red, a black bar knocked out on a black garment, a white-only dot
    await art(300, 450, (x, y) => {
      if (!(x < 100 || y > 350)) return null;
      if (x > 40 && x < 60 && y < 300) return [0, 0, 0, 255];
      if (Math.hypot(x - 50, y - 400) < 25) return [255, 255, 255, 255];
      return [200, 40, 40, 255];
    }),
    await art(300, 300, (x, y) => (Math.hypot(x - 150, y - 150) < 150 ? [30, 90, 200, 255] : null)),
  ];
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe('POST /api/v1/gangsheet underbase=true', () => {
  it('the PDF separates into a White plate on exactly each placement\'s choked mask, turned copies too', async (ctx) => {
    try {
      execFileSync('gs', ['--version'], { stdio: 'ignore' });
    } catch {
      console.log('gangsheet White separation check skipped: Ghostscript (gs) is not installed');
      ctx.skip();
    }
    const manifest = await post(t, '/api/v1/gangsheet', sheetForm({ ...FIELDS, format: 'json' }));
    expect(manifest.status, JSON.stringify(manifest.json)).toBe(200);
    const m = manifest.json as { fast_placed: number; sheets: { length_in: number }[]; placements: { item: number; copy: number; design: number; sheet: number; x_in: number; y_in: number; width_in: number; height_in: number; rotation: 0 | 90 | 180 | 270 }[]; items: ManifestItem[]; white: Record<string, unknown> };
    expect(m.fast_placed).toBe(0); // the search finished: the PDF request lays out the same
    expect(m.white).toMatchObject({ spot_name: 'White', garment_color: '#000000', knockout: 'garment', choke_mm: CHOKE_MM, plate_sets: 2 });
    const placements: GangPlacement[] = m.placements.map((p) => ({ item: p.item, copy: p.copy, design: p.design, sheet: p.sheet, xIn: p.x_in, yIn: p.y_in, widthIn: p.width_in, heightIn: p.height_in, rotation: p.rotation }));
    expect(placements.filter((p) => p.design === 0 && p.rotation !== 0).length).toBeGreaterThan(0);
    const res = await post(t, '/api/v1/gangsheet', sheetForm(FIELDS));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-white-spot')).toBe('White');
    expect(Number(res.headers.get('x-white-ink-sq-in'))).toBeGreaterThan(10);
    const pdf = Buffer.from(res.bytes).toString('latin1');
    // each design's plates embedded once (colour + its 1-bit mask + white), placed nine times
    expect(pdf.match(/\/Separation \/White /g)).toHaveLength(2);
    expect(pdf.match(/\/ImageMask true/g)).toHaveLength(2);
    const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-gangwhite-http-'));
    try {
      writeFileSync(path.join(dir, 'a.pdf'), res.bytes);
      execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=tiffsep', `-r${DPI}`, `-sOutputFile=${path.join(dir, 'sep.tif')}`, path.join(dir, 'a.pdf')]);
      expect(readdirSync(dir)).toContain('sep(White).tif');
      const { data: sep, info } = await sharp(path.join(dir, 'sep(White).tif')).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
      expect(info.width).toBe(11 * DPI);
      // Ghostscript sizes the page from the MediaBox in points: a length at a half pixel may round either way
      expect(Math.abs(info.height - m.sheets[0]!.length_in * DPI)).toBeLessThanOrEqual(0.5 + 1e-6);
      const got = new Uint8Array(sep.length);
      for (let i = 0; i < sep.length; i++) got[i] = sep[i]! < 128 ? 1 : 0; // tiffsep: 0 is full ink
      // the disc's file has a transparent column and row (its edge at x, y = 0 is just outside the circle): cut off
      expect(m.items.map((it) => it.art)).toEqual([
        { x_in: 0, y_in: 0, width_in: 2, height_in: 3, x_px: 0, y_px: 0, width_px: 300, height_px: 450 },
        { x_in: 0.0067, y_in: 0.0067, width_in: 1.9933, height_in: 1.9933, x_px: 1, y_px: 1, width_px: 299, height_px: 299 },
      ]);
      const want = expectedWhite(placements, m.items, info.width, info.height);
      const inked = want.reduce((s, v) => s + v, 0);
      expect(inked).toBeGreaterThan(9 * 100 * 100); // nine 2 in designs, most of their area white
      expect(offEdgeDiffs(want, got, info.width, info.height)).toBe(0);
      // every placement's own box holds its white: the copies are all there
      for (const p of placements) {
        let n = 0;
        // the sheet is cut at the lowest ink: a box's empty bottom rows may lie past it
        for (let y = Math.ceil(p.yIn * DPI); y < Math.min(info.height, Math.floor((p.yIn + p.heightIn) * DPI)); y++) for (let x = Math.ceil(p.xIn * DPI); x < Math.floor((p.xIn + p.widthIn) * DPI); x++) n += got[y * info.width + x]!;
        expect(n, `item ${p.item} copy ${p.copy}`).toBeGreaterThan(5000);
      }
      // the knocked-out bar and the choke: no white on the colour plate's edge band nor on the black bar
      const magenta = await sharp(path.join(dir, 'sep(Magenta).tif')).extractChannel(0).raw().toBuffer();
      let whiteOnBareFilm = 0;
      for (let i = 0; i < got.length; i++) if (got[i] && magenta[i]! >= 250 && want[i] === 0) whiteOnBareFilm++;
      expect(whiteOnBareFilm).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('format=png answers a zip of the colour sheet and its white plate on the same pixel grid', async () => {
    const res = await post(t, '/api/v1/gangsheet', sheetForm({ ...FIELDS, format: 'png' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('x-dpi')).toBe(String(DPI));
    const entries = readStoredZip(res.bytes);
    expect(entries.map((e) => e.name)).toEqual(['sheet.png', 'sheet-white.png']);
    const colour = await sharp(entries[0]!.data).raw().toBuffer({ resolveWithObject: true });
    expect((await sharp(entries[1]!.data).metadata()).channels).toBe(1); // an 8-bit grey plate
    const white = await sharp(entries[1]!.data).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    expect(colour.info.channels).toBe(4);
    expect([white.info.width, white.info.height]).toEqual([colour.info.width, colour.info.height]);
    const W = colour.info.width, H = colour.info.height;
    expect(Number(res.headers.get('x-sheet-lengths-in'))).toBeCloseTo(H / DPI, 2);
    const manifest = await post(t, '/api/v1/gangsheet', sheetForm({ ...FIELDS, format: 'json' }));
    const placements = (manifest.json!.placements as { item: number; copy: number; design: number; sheet: number; x_in: number; y_in: number; width_in: number; height_in: number; rotation: 0 | 90 | 180 | 270 }[])
      .map((p) => ({ item: p.item, copy: p.copy, design: p.design, sheet: p.sheet, xIn: p.x_in, yIn: p.y_in, widthIn: p.width_in, heightIn: p.height_in, rotation: p.rotation }));
    const want = expectedWhite(placements, manifest.json!.items as ManifestItem[], W, H);
    const got = new Uint8Array(W * H);
    let underColour = 0, colourPx = 0, whiteOnly = 0;
    for (let i = 0; i < W * H; i++) {
      got[i] = white.data[i]! > 0 ? 1 : 0;
      const a = colour.data[i * 4 + 3]!;
      if (a > 0) colourPx++;
      if (got[i] && a > 0) underColour++;
      if (got[i] && a === 0) whiteOnly++; // the L's white dot: white ink alone
    }
    expect(offEdgeDiffs(want, got, W, H)).toBe(0);
    // the white sits under the colour, a choke short of its edge: most colour pixels have white, none beyond
    expect(underColour / colourPx).toBeGreaterThan(0.85);
    expect(underColour).toBeLessThan(colourPx);
    // five L copies each with a white-only dot of radius 25 px: about 5 x 1960 px, and nothing else
    expect(whiteOnly).toBeGreaterThan(5 * 1700);
    expect(whiteOnly).toBeLessThan(5 * 2200);
  }, 120_000);

  it('reports the underbase checks per item, and rejects bad white options naming the field', async () => {
    // a 0.3 pt hairline frame at 300 DPI (about 1 px): too thin a white
    const hair = await art(300, 300, (x, y) => (x === 150 || y === 150 ? [40, 40, 200, 255] : Math.hypot(x - 60, y - 60) < 40 ? [40, 40, 200, 255] : null));
    const f = form(null, { items: JSON.stringify([{ design: 0, quantity: 2, width_in: 1 }]), underbase: 'true', choke_mm: '0', format: 'json' });
    f.append('design', new Blob([hair.png]), 'hair.png');
    const res = await post(t, '/api/v1/gangsheet', f);
    expect(res.status).toBe(200);
    const warnings = res.json!.warnings as { code: string; item: number; regions?: number }[];
    expect(warnings.find((w) => w.code === 'white_too_thin')).toMatchObject({ item: 0 });
    const { garment_color: _, ...noGarment } = FIELDS;
    expect((await post(t, '/api/v1/gangsheet', sheetForm({ ...noGarment, knockout: 'garment' }))).json).toMatchObject({ code: 'invalid_option', field: 'knockout' });
    for (const [fields, field] of [
      [{ garment_color: 'navy' }, 'garment_color'],
      [{ choke_mm: '9' }, 'choke_mm'],
      [{ spot_name: 'My White' }, 'spot_name'],
    ] as const) {
      const bad = await post(t, '/api/v1/gangsheet', sheetForm({ ...FIELDS, ...fields, underbase: 'true' }));
      expect(bad.status, field).toBe(400);
      expect(bad.json).toMatchObject({ code: 'invalid_option', field });
    }
  }, 60_000);
});
