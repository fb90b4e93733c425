// Gang sheets through the engine's public API: every copy placed once, ink never closer than the spacing
// (measured on the rendered PNG, not the manifest), nothing in the margins, the same layout twice, a disc
// nesting in an L's corner, and the validation errors naming the item. Designs are drawn shapes at 150 DPI.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, InkprepError, packDesigns, textOptions, type GangsheetOptions, type GangsheetResult } from '@inkprep/engine';
import { squaredDistance } from '@inkprep/engine/internals';

const engine = createEngine({ threads: 0 });
afterAll(() => engine.close());

const DPI = 150;

/** A PNG `wIn` x `hIn` at 150 DPI, ink where `inside(x, y)` (inches from the top-left). */
async function shape(wIn: number, hIn: number, rgb: [number, number, number], inside: (x: number, y: number) => boolean): Promise<Uint8Array> {
  const w = Math.round(wIn * DPI);
  const h = Math.round(hIn * DPI);
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!inside((x + 0.5) / DPI, (y + 0.5) / DPI)) continue;
      data.set([...rgb, 255], (y * w + x) * 4);
    }
  }
  return new Uint8Array(await sharp(data, { raw: { width: w, height: h, channels: 4 } }).png().toBuffer());
}

const disc = (d: number) => shape(d, d, [200, 30, 30], (x, y) => (x - d / 2) ** 2 + (y - d / 2) ** 2 <= (d / 2) ** 2);
/** An L: `w` x `h` with arms `t` thick along the left and the bottom (the concave corner top-right). */
const ell = (w: number, h: number, t: number) => shape(w, h, [30, 30, 200], (x, y) => x < t || y > h - t);
/** A right triangle leaning right (the slant from top-left to bottom-right). */
const wedge = (w: number, h: number) => shape(w, h, [30, 160, 30], (x, y) => y >= (x / w) * h);

async function run(designs: Uint8Array[], options: GangsheetOptions | ReturnType<typeof textOptions>): Promise<GangsheetResult> {
  return engine.gangsheet(packDesigns(designs), options);
}

/** Connected ink regions (8-neighbour) of the PNG's alpha: a label per pixel, 0 = no ink. */
function label(alpha: Uint8Array, w: number, h: number): { labels: Int32Array; count: number } {
  const labels = new Int32Array(w * h);
  let count = 0;
  const stack: number[] = [];
  for (let i = 0; i < w * h; i++) {
    if (!alpha[i] || labels[i]) continue;
    labels[i] = ++count;
    stack.push(i);
    while (stack.length) {
      const p = stack.pop()!;
      const px = p % w;
      const py = (p - px) / w;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const x = px + dx;
          const y = py + dy;
          if (x < 0 || y < 0 || x >= w || y >= h) continue;
          const q = y * w + x;
          if (alpha[q] && !labels[q]) { labels[q] = count; stack.push(q); }
        }
      }
    }
  }
  return { labels, count };
}

/** The least distance in pixels between ink of two different regions (checked within `reach` pixels of each region). */
function closestForeignInk(labels: Int32Array, count: number, w: number, h: number, reach: number): number {
  let least = Infinity;
  for (let k = 1; k <= count; k++) {
    let x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (let i = 0; i < w * h; i++) {
      if (labels[i] !== k) continue;
      const x = i % w, y = (i - x) / w;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    const bx = Math.max(0, x0 - reach), by = Math.max(0, y0 - reach);
    const bw = Math.min(w, x1 + reach + 1) - bx, bh = Math.min(h, y1 + reach + 1) - by;
    const src = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) src[y * bw + x] = labels[(y + by) * w + x + bx] === k ? 1 : 0;
    const d2 = squaredDistance(bw, bh, src);
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const l = labels[(y + by) * w + x + bx]!;
        if (l !== 0 && l !== k) least = Math.min(least, Math.sqrt(d2[y * bw + x]!));
      }
    }
  }
  return least;
}

describe('gangsheet: a mixed order on an 11 in roll', () => {
  const items = [
    { design: 0, quantity: 5, width_in: 2 },
    { design: 1, quantity: 2, width_in: 4 },
    { design: 2, quantity: 4, width_in: 2.5 },
    { design: 0, quantity: 3, width_in: 1 },
  ];
  // a long wall-clock cap keeps a busy machine's clock out of the determinism check below; this small order
  // ends its search on its own, long before the work budget, so the layout is the default budget's
  const options = { items, sheetWidthIn: 11, spacingIn: 0.125, marginIn: 0.25, timeBudgetMs: 60000 } as const;

  it('places every copy exactly once, keeps ink the spacing apart and out of the margins, on the rendered sheet', async () => {
    const designs = [await disc(2), await ell(4, 3, 1.2), await wedge(2.5, 2)];
    const png = await run(designs, { ...options, format: 'png' });
    const { layout } = png;
    const keys = layout.placements.map((p) => `${p.item}:${p.copy}`);
    const expected = items.flatMap((it, i) => Array.from({ length: it.quantity }, (_, c) => `${i}:${c}`));
    expect([...keys].sort()).toEqual([...expected].sort());
    expect(layout.sheets).toHaveLength(1);
    expect(layout.fastPlaced).toBe(0);
    // the 1 in copies of the 2 in disc art are 300 DPI: the sheet is rendered at the sharpest art's resolution
    const dpi = png.pngDpi!;
    expect(dpi).toBe(2 * DPI);

    const { data, info } = await sharp(png.data).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(11 * dpi);
    expect(info.height).toBe(Math.round(layout.sheets[0]!.lengthIn * dpi));
    const alpha = new Uint8Array(data);
    const { labels, count } = label(alpha, info.width, info.height);
    // each design is one connected shape, so one region per copy: none missing, none merged into another
    expect(count).toBe(expected.length);
    const spacingPx = 0.125 * dpi;
    // nearest-neighbour sampling of 150 DPI art at 300 DPI may move an edge by up to a source pixel (2 here)
    expect(closestForeignInk(labels, count, info.width, info.height, Math.ceil(spacingPx) + 2)).toBeGreaterThanOrEqual(spacingPx - 2.5);
    const marginPx = 0.25 * dpi;
    let nearestEdge = Infinity;
    for (let i = 0; i < alpha.length; i++) {
      if (!alpha[i]) continue;
      const x = i % info.width, y = (i - x) / info.width;
      nearestEdge = Math.min(nearestEdge, x, y, info.width - 1 - x, info.height - 1 - y);
    }
    expect(nearestEdge).toBeGreaterThanOrEqual(marginPx - 2);
    // the same layout again (deterministic), and the PDF of it names one image per design
    const again = await run(designs, { ...options, format: 'json' });
    expect(again.layout.placements).toEqual(layout.placements);
    expect(JSON.parse(Buffer.from(again.data).toString('utf8')).placements).toHaveLength(expected.length);
    const pdf = Buffer.from((await run(designs, options)).data).toString('latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    expect(pdf.match(/\/Subtype \/Image/g)).toHaveLength(2 * 3); // RGB + soft mask for each design, once
    expect(pdf.match(/ cm \/D\d Do/g) ?? []).toHaveLength(0); // content streams are compressed
    expect(pdf).toContain(`/MediaBox [0 0 792 ${Math.round(layout.sheets[0]!.lengthIn * 72 * 10000) / 10000}]`);
  }, 300_000);

  it('nests a disc into the concave corner of an L instead of below it', async () => {
    const designs = [await ell(8, 6, 2), await disc(3)];
    const { layout } = await run(designs, {
      items: [{ design: 0, quantity: 1, width_in: 8 }, { design: 1, quantity: 1, width_in: 3 }],
      sheetWidthIn: 11, spacingIn: 0.125, marginIn: 0.25, format: 'json',
    });
    const [l, d] = [layout.placements.find((p) => p.item === 0)!, layout.placements.find((p) => p.item === 1)!];
    // the disc's box lies inside the L's box, so the sheet is no longer than the L
    expect(d.xIn).toBeGreaterThanOrEqual(l.xIn);
    expect(d.yIn).toBeGreaterThanOrEqual(l.yIn);
    expect(d.xIn + d.widthIn).toBeLessThanOrEqual(l.xIn + l.widthIn + 1e-9);
    expect(d.yIn + d.heightIn).toBeLessThanOrEqual(l.yIn + l.heightIn + 1e-9);
    expect(layout.sheets[0]!.lengthIn).toBeLessThanOrEqual(l.yIn + l.heightIn + 0.25 + 0.01);
  }, 120_000);

  it('cuts the sheet at the lowest ink, not at the bottom of a box with transparent rows', async () => {
    // a 2 in disc on a 2 x 3 in canvas: its bottom inch is transparent, and not placed
    const tall = await shape(2, 3, [200, 30, 30], (x, y) => (x - 1) ** 2 + (y - 1) ** 2 <= 1);
    const png = await run([tall], { items: [{ design: 0, quantity: 1, width_in: 2 }], sheetWidthIn: 11, rotation: 'none', spacingIn: 0.125, marginIn: 0.25, format: 'png' });
    const p = png.layout.placements[0]!;
    const inkBottom = p.yIn + 2;
    const length = png.layout.sheets[0]!.lengthIn;
    expect(png.layout.items[0]).toEqual({ item: 0, design: 0, widthIn: 2, heightIn: 3, art: { xIn: 0, yIn: 0, widthIn: 2, heightIn: 2, px: { x: 0, y: 0, width: 300, height: 300 } } });
    expect([p.widthIn, p.heightIn]).toEqual([2, 2]); // the box is the ink's: its empty rows are cut before placing
    expect(p.yIn + p.heightIn).toBeLessThanOrEqual(length - 0.25);
    // the ink's bounds are outward by at most one 0.0125 in growth cell; the length rounds up to 0.01 in
    expect(length).toBeGreaterThanOrEqual(inkBottom + 0.25 - 1e-4);
    expect(length).toBeLessThanOrEqual(inkBottom + 0.25 + 0.0125 + 0.01);
    // and the rendered sheet holds all the ink with the margin below it
    const dpi = png.pngDpi!;
    const { data, info } = await sharp(png.data).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
    expect(info.height).toBe(Math.round(length * dpi));
    let lowest = -1;
    for (let i = 0; i < data.length; i++) if (data[i]) lowest = Math.floor(i / info.width);
    expect(lowest).toBeGreaterThan(0);
    expect(info.height - 1 - lowest).toBeGreaterThanOrEqual(0.25 * dpi - 2);
  }, 120_000);

  it('splits a job longer than max_length_in into several sheets, each within it', async () => {
    const { layout } = await run([await disc(2)], { items: [{ design: 0, quantity: 30, width_in: 2 }], sheetWidthIn: 11, maxLengthIn: 8, format: 'json' });
    expect(layout.sheets.length).toBeGreaterThan(1);
    for (const s of layout.sheets) expect(s.lengthIn).toBeLessThanOrEqual(8);
    expect(layout.placements).toHaveLength(30);
    expect(layout.sheets.reduce((n, s) => n + s.copies, 0)).toBe(30);
  }, 120_000);

  it('warns per item when the art is under 150 DPI at its print size', async () => {
    const { layout } = await run([await disc(1)], { items: [{ design: 0, quantity: 1, width_in: 1 }, { design: 0, quantity: 1, width_in: 2 }], sheetWidthIn: 11, format: 'json' });
    expect(layout.warnings.map((w) => [w.code, w.item, w.dpi])).toEqual([['low_resolution', 1, 75]]);
  }, 60_000);
});

describe('gangsheet: designs are placed cut to their ink', () => {
  /** `art` (a PNG) on a larger transparent canvas: `left`, `top`, `right`, `bottom` pixels of alpha 0 around it, in `rgb`. */
  async function pad(png: Uint8Array, left: number, top: number, right: number, bottom: number, rgb: [number, number, number] = [0, 0, 0]): Promise<Uint8Array> {
    const background = { r: rgb[0], g: rgb[1], b: rgb[2], alpha: 0 };
    // sharp keeps the background's colour under alpha 0, as exporters often leave colour under transparent pixels
    return new Uint8Array(await sharp(png).extend({ left, top, right, bottom, background }).png().toBuffer());
  }
  const options = { sheetWidthIn: 11, spacingIn: 0.125, marginIn: 0.25, timeBudgetMs: 60000 } as const;

  it('every placement box lies on the sheet inside the margins, and is the ink\'s box, for art with wide transparent margins', async () => {
    // a 2 in disc on a 5 x 4 in canvas (1.5 in and 1 in of transparency around it), a wedge in a corner of a 4 in square
    const wide = await pad(await disc(2), 225, 150, 225, 150);
    const corner = await pad(await wedge(2.5, 2), 0, 300, 225, 0);
    const items = [{ design: 0, quantity: 7, width_in: 5 }, { design: 1, quantity: 5, width_in: 4 }];
    const { layout } = await run([wide, corner], { ...options, items, format: 'json' });
    expect(layout.placements).toHaveLength(12);
    expect(new Set(layout.placements.map((p) => p.rotation)).size).toBeGreaterThan(1); // turned boxes checked too
    expect(layout.items).toEqual([
      { item: 0, design: 0, widthIn: 5, heightIn: 4, art: { xIn: 1.5, yIn: 1, widthIn: 2, heightIn: 2, px: { x: 225, y: 150, width: 300, height: 300 } } },
      // the wedge's last column is empty (its slant passes just under the pixel centres there)
      { item: 1, design: 1, widthIn: 4, heightIn: 4, art: { xIn: 0, yIn: 2, widthIn: 2.4933, heightIn: 2, px: { x: 0, y: 300, width: 374, height: 300 } } },
    ]);
    for (const p of layout.placements) {
      const length = layout.sheets[p.sheet]!.lengthIn;
      expect(p.xIn, `item ${p.item} copy ${p.copy}`).toBeGreaterThanOrEqual(0.25);
      expect(p.yIn).toBeGreaterThanOrEqual(0.25);
      expect(p.xIn + p.widthIn).toBeLessThanOrEqual(11 - 0.25 + 1e-9);
      expect(p.yIn + p.heightIn).toBeLessThanOrEqual(length - 0.25 + 1e-9);
      const art = layout.items[p.item]!.art;
      expect(p.rotation % 180 === 0 ? [p.widthIn, p.heightIn] : [p.heightIn, p.widthIn]).toEqual([art.widthIn, art.heightIn]);
    }
    // the manifest says the same
    const manifest = JSON.parse(Buffer.from((await run([wide, corner], { ...options, items, format: 'json' })).data).toString('utf8'));
    expect(manifest.placements).toEqual(layout.placements.map((p) => ({ item: p.item, copy: p.copy, design: p.design, sheet: p.sheet, x_in: p.xIn, y_in: p.yIn, width_in: p.widthIn, height_in: p.heightIn, rotation: p.rotation })));
    expect(manifest.items[0]).toEqual({ item: 0, design: 0, width_in: 5, height_in: 4, art: { x_in: 1.5, y_in: 1, width_in: 2, height_in: 2, x_px: 225, y_px: 150, width_px: 300, height_px: 300 } });
  }, 120_000);

  it('a design with no ink at all: its boxes lie inside the margins too, and it draws nothing', async () => {
    // a fully transparent 4 x 3 in file beside a 1 in disc: the sheet is about 1.5 in long
    const empty = await shape(4, 3, [0, 0, 0], () => false);
    const items = [{ design: 0, quantity: 2, width_in: 4 }, { design: 1, quantity: 1, width_in: 1 }];
    const json = await run([empty, await disc(1)], { ...options, items, format: 'json' });
    const length = json.layout.sheets[0]!.lengthIn;
    expect(length).toBeLessThan(2);
    expect(json.layout.items[0]!.art.px).toEqual({ x: 0, y: 0, width: 1, height: 1 }); // one transparent pixel placed
    for (const p of json.layout.placements) {
      expect(p.xIn, `item ${p.item} copy ${p.copy}`).toBeGreaterThanOrEqual(0.25);
      expect(p.yIn).toBeGreaterThanOrEqual(0.25);
      expect(p.xIn + p.widthIn).toBeLessThanOrEqual(11 - 0.25 + 1e-9);
      expect(p.yIn + p.heightIn).toBeLessThanOrEqual(length - 0.25 + 1e-9);
    }
    // the outputs are the disc's alone: the same PNG as without the empty file's copies
    const png = await run([empty, await disc(1)], { ...options, items, format: 'png' });
    const alone = await run([await disc(1)], { ...options, items: [{ design: 0, quantity: 1, width_in: 1 }], format: 'png' });
    expect(png.layout.sheets[0]!.lengthIn).toBe(alone.layout.sheets[0]!.lengthIn);
    const [a, b] = [await sharp(png.data).raw().toBuffer(), await sharp(alone.data).raw().toBuffer()];
    expect(a.equals(b)).toBe(true);
    expect((await run([empty, await disc(1)], { ...options, items })).data.byteLength).toBeGreaterThan(0); // the PDF too
  }, 120_000);

  it('art with transparent margins lays out, renders and embeds exactly as the same art without them', async () => {
    // 15 px (0.1 in: two nesting cells) of transparency around a 2 in disc that touches its own file's edges,
    // coloured under alpha 0; the padded file is sent 2.2 in wide so the disc prints at the same 2 in
    const plain = await disc(2);
    const padded = await pad(plain, 15, 15, 15, 15, [40, 200, 90]);
    const items = (widthIn: number) => [{ design: 0, quantity: 6, width_in: widthIn }];
    const [a, b] = [await run([plain], { ...options, items: items(2), format: 'png' }), await run([padded], { ...options, items: items(2.2), format: 'png' })];
    expect(b.layout.items[0]!.art).toEqual({ xIn: 0.1, yIn: 0.1, widthIn: 2, heightIn: 2, px: { x: 15, y: 15, width: 300, height: 300 } });
    expect(a.layout.items[0]!.art).toEqual({ xIn: 0, yIn: 0, widthIn: 2, heightIn: 2, px: { x: 0, y: 0, width: 300, height: 300 } });
    expect(b.layout.placements).toEqual(a.layout.placements);
    expect(b.layout.sheets).toEqual(a.layout.sheets);
    expect(Buffer.from(b.data).equals(Buffer.from(a.data))).toBe(true); // the PNG, byte for byte
    // and the sheet is the disc drawn at each manifest box (150 DPI art on a 150 DPI sheet: one source pixel a sheet pixel)
    const sheet = await sharp(a.data).raw().toBuffer({ resolveWithObject: true });
    const src = await sharp(plain).raw().toBuffer();
    const W = sheet.info.width;
    const want = Buffer.alloc(sheet.data.length);
    for (const p of a.layout.placements) {
      const quarter = p.rotation === 90 || p.rotation === 270;
      for (let y = 0; y < 300; y++) for (let x = 0; x < 300; x++) {
        // sheet pixel (x, y) of the box, turned back to the art's pixel
        const [u, v] = p.rotation === 0 ? [x, y] : p.rotation === 90 ? [y, 299 - x] : p.rotation === 180 ? [299 - x, 299 - y] : [299 - y, x];
        expect(quarter ? [p.heightIn, p.widthIn] : [p.widthIn, p.heightIn]).toEqual([2, 2]);
        const si = (v * 300 + u) * 4;
        if (src[si + 3] === 0) continue;
        src.copy(want, ((Math.round(p.yIn * DPI) + y) * W + Math.round(p.xIn * DPI) + x) * 4, si, si + 4);
      }
    }
    expect(sheet.data.equals(want)).toBe(true);
    // the PDF embeds the cut art: the same bytes as the plain design's, none of the margins' colour
    const [pa, pb] = [await run([plain], { ...options, items: items(2) }), await run([padded], { ...options, items: items(2.2) })];
    expect(Buffer.from(pb.data).toString('latin1')).toContain('/Width 300 /Height 300');
    expect(Buffer.from(pb.data).equals(Buffer.from(pa.data))).toBe(true);
  }, 180_000);
});

describe('gangsheet: the designs\' pixels together are bounded', () => {
  it('at twice the per-image limit, checked from the headers before decoding', async () => {
    const d = await disc(2); // 300 x 300 px
    const items = [0, 1, 2].map((design) => ({ design, quantity: 1, width_in: 2 }));
    const two = await engine.gangsheet(packDesigns([d, d]), { items: items.slice(0, 2), format: 'json' }, { maxPixels: 100_000 });
    expect(two.layout.placements).toHaveLength(2);
    const three = engine.gangsheet(packDesigns([d, d, d]), { items, format: 'json' }, { maxPixels: 100_000 });
    await expect(three).rejects.toMatchObject({ code: 'image_too_large', details: { maxPixels: 200_000, pixels: 270_000 } });
  }, 60_000);
});

describe('gangsheet: validation names the item', () => {
  const field = async (designs: Uint8Array[], options: Parameters<typeof run>[1]): Promise<string | undefined> => {
    try {
      await run(designs, options);
    } catch (e) {
      expect(e).toBeInstanceOf(InkprepError);
      expect((e as InkprepError).code).toBe('invalid_option');
      return (e as InkprepError).details.field as string;
    }
    return undefined;
  };
  it('an empty list, a quantity over the cap, a missing design, a design too wide for the sheet', async () => {
    const d = await disc(1);
    expect(await field([d], { items: [] })).toBe('items');
    expect(await field([d], { items: [{ design: 0, quantity: 400, width_in: 1 }, { design: 0, quantity: 101, width_in: 1 }] })).toBe('items[1].quantity');
    expect(await field([d], { items: [{ design: 0, quantity: 1, width_in: 1 }, { design: 3, quantity: 1, width_in: 1 }] })).toBe('items[1].design');
    expect(await field([d, d], { items: [{ design: 0, quantity: 1, width_in: 1 }, { design: 1, quantity: 1, height_in: 30 }], rotation: 'none' })).toBe('items[1].height_in');
    expect(await field([d], { items: [{ design: 0, quantity: 1, width_in: 1, height_in: 1 }] })).toBe('items[0].width_in');
    expect(await field([d], textOptions({ items: '[{"design": 0, "quantity": 1, "width_in": 1}, {"design": 0, "width_in": "x"}]' }))).toBe('items[1].width_in');
    expect(await field([d], textOptions({ items: '[{"design": 0,' }))).toBe('items');
  }, 60_000);

  it('a missing list and a misnamed item field say what to send', async () => {
    const d = await disc(1);
    const error = async (options: Parameters<typeof run>[1]): Promise<InkprepError> => {
      const e: unknown = await run([d], options).then(() => null, (err: unknown) => err);
      expect(e).toBeInstanceOf(InkprepError);
      return e as InkprepError;
    };
    const missing = await error(textOptions({ item: '[{"design": 0, "quantity": 1, "width_in": 1}]' }));
    expect(missing).toMatchObject({ code: 'invalid_option', details: { field: 'items' } });
    expect(missing.message).toMatch(/^Missing items: expected a list of items \[/);
    expect(missing.message).not.toMatch(/undefined/);
    const width = await error(textOptions({ items: '[{"design": 0, "quantity": 1, "width": 1}]' }));
    expect(width).toMatchObject({ code: 'invalid_option', details: { field: 'items[0].width' } });
    expect(width.message).toBe('items[0] has no field "width" (an item takes design, quantity, width_in, height_in, rotation); did you mean width_in?');
    // no close field: the list of fields, no guess
    const qty = await error(textOptions({ items: '[{"design": 0, "qty": 1, "width_in": 1}]' }));
    expect(qty).toMatchObject({ code: 'invalid_option', details: { field: 'items[0].qty' } });
    expect(qty.message).not.toMatch(/did you mean/);
  }, 60_000);
});
