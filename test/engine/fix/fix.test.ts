// Fix op: option validation naming the field, step order (halftone wins), alpha threshold semantics and
// decontamination (no halo left), trim, despeckle (specks go, details stay), resize (aspect, exact,
// no dark fringe), halftone at the final resolution, PNG density, and the worker pool path.
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createEngine, InkprepError, textOptions, type FixOptions, type Raster } from '@inkprep/engine';
import { resolveFix } from '@inkprep/engine/internals';
import { canvas, disc, png } from '../scan/fixtures.js';

const engine = createEngine({ threads: 0 });

async function decode(bytes: Uint8Array): Promise<Raster & { density: number | undefined }> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)), density: meta.density };
}

async function fix(r: Raster, o: FixOptions) {
  const out = await engine.fix(await png(r), o);
  return { ...out, raster: await decode(out.data) };
}

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InkprepError);
    expect((e as InkprepError).code).toBe('invalid_option');
    return (e as InkprepError).details.field as string;
  }
  return undefined;
}

describe('fix options', () => {
  it('defaults and text values (resolved by library name)', () => {
    const d = resolveFix({});
    expect(d).toMatchObject({ fixAlphaThreshold: false, alphaThreshold: 144, fixHalftone: false, halftoneLpi: 35, fixTrim: false, fixDespeckle: false });
    expect(d.printWidthInches).toBeUndefined();
    const t = resolveFix(textOptions({ fix_alpha_threshold: 'true', alpha_threshold: '0', fix_halftone: 'false', halftone_lpi: '65', print_width_inches: '11.5', fix_trim: 'true', fix_despeckle: 'true', resize_width_px: '800', resize_height_px: '600' }));
    expect(t).toMatchObject({ fixAlphaThreshold: true, alphaThreshold: 0, fixHalftone: false, halftoneLpi: 65, printWidthInches: 11.5, fixTrim: true, fixDespeckle: true, resizeWidthPx: 800, resizeHeightPx: 600 });
    expect(Object.isFrozen(t)).toBe(true);
  });

  it('typed values are taken as they are; text forms only through textOptions', () => {
    const want = { fixAlphaThreshold: true, alphaThreshold: 0, fixHalftone: false, halftoneLpi: 65, printWidthInches: 11.5, resizeWidthPx: 800 };
    expect(resolveFix({ fixAlphaThreshold: true, alphaThreshold: 0, fixHalftone: false, halftoneLpi: 65, printWidthInches: 11.5, resizeWidthPx: 800 })).toMatchObject(want);
    // The contract's snake_case names are accepted from typed callers during the transition (CHANGELOG.md).
    expect(resolveFix({ fix_alpha_threshold: true, alpha_threshold: 0, fix_halftone: false, halftone_lpi: 65, print_width_inches: 11.5, resize_width_px: 800 })).toMatchObject(want);
    // One field under both names is ambiguous: invalid_option naming the wire field.
    expect(fieldOf(() => resolveFix({ printWidthInches: 10, print_width_inches: 11 } as never))).toBe('print_width_inches');
    // A JavaScript caller that sends text without textOptions gets invalid_option naming the field.
    expect(fieldOf(() => resolveFix({ alpha_threshold: '100' } as never))).toBe('alpha_threshold');
    expect(fieldOf(() => resolveFix({ alphaThreshold: '100' } as never))).toBe('alpha_threshold');
    expect(fieldOf(() => resolveFix({ fix_trim: 'true' } as never))).toBe('fix_trim');
    // Text forms use the wire names only.
    expect(resolveFix(textOptions({ fixTrim: 'true' })).fixTrim).toBe(false);
  });

  it.each([
    ['alpha_threshold', '256'],
    ['alpha_threshold', '-1'],
    ['alpha_threshold', 'abc'],
    ['halftone_lpi', '14'],
    ['halftone_lpi', '66'],
    ['halftone_lpi', '35lpi'],
    ['fix_halftone', 'yes'],
    ['fix_alpha_threshold', '1'],
    ['fix_trim', 'TRUE'],
    ['fix_despeckle', 'on'],
    ['print_width_inches', '0'],
    ['print_width_inches', 'twelve'],
    ['resize_width_px', '0'],
    ['resize_width_px', '12.5'],
    ['resize_width_px', '20001'],
    ['resize_height_px', 'NaN'],
  ])('rejects %s=%s naming the field', (field, value) => {
    expect(fieldOf(() => resolveFix(textOptions({ [field]: value })))).toBe(field);
  });

  it('rejects an exact size over 100 megapixels, and an aspect-kept size that would exceed the bounds', async () => {
    expect(fieldOf(() => resolveFix({ resize_width_px: 20000, resize_height_px: 20000 }))).toBe('resize_height_px');
    const tall = canvas(10, 1000);
    const err = await engine.fix(await png(tall), { resize_width_px: 2000 }).catch((e: unknown) => e);
    expect((err as InkprepError).code).toBe('invalid_option');
    expect((err as InkprepError).details.field).toBe('resize_width_px');
    expect((err as InkprepError).message).toMatch(/resize_width_px/);
  });
});

describe('fix steps', () => {
  it('alpha threshold: below -> 0, at or above -> 255 (default 144)', async () => {
    const r = canvas(4, 1);
    r.data.set([10, 20, 30, 143, 10, 20, 30, 144, 10, 20, 30, 255, 0, 0, 0, 0]);
    const out = await fix(r, { fix_alpha_threshold: true });
    expect(Array.from(out.raster.data.filter((_, i) => i % 4 === 3))).toEqual([0, 255, 255, 0]);
    expect(out.applied).toEqual(['alpha_threshold']);
    const low = await fix(r, { fix_alpha_threshold: true, alpha_threshold: 100 });
    expect(Array.from(low.raster.data.filter((_, i) => i % 4 === 3))).toEqual([255, 255, 255, 0]);
  });

  it('alpha threshold removes a white matte halo: kept edge pixels take the art colour', async () => {
    const blue: [number, number, number] = [20, 60, 200];
    const out = await fix(disc(240, 240, { r: 80, rimPx: 2.5, matte: [255, 255, 255], rgb: blue }), { fix_alpha_threshold: true });
    let worst = 0;
    let semi = 0;
    const d = out.raster.data;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] !== 0 && d[i + 3] !== 255) semi++;
      if (d[i + 3] === 255) worst = Math.max(worst, Math.hypot(d[i]! - blue[0], d[i + 1]! - blue[1], d[i + 2]! - blue[2]));
    }
    expect(semi).toBe(0);
    expect(worst).toBeLessThan(12);
    expect(out.stats.alphaRecoloured).toBeGreaterThan(100);
  });

  it('alpha threshold on a glow of another colour keeps the glow colour (a wide glow is not a matte)', async () => {
    const r = canvas(300, 300);
    for (let y = 0; y < 300; y++) {
      for (let x = 0; x < 300; x++) {
        const d = Math.hypot(x + 0.5 - 150, y + 0.5 - 150);
        if (d <= 70) r.data.set([200, 30, 40, 255], (y * 300 + x) * 4);
        else r.data.set([255, 210, 40, Math.round(230 * Math.exp(-((d - 70) ** 2) / (2 * 18 ** 2)))], (y * 300 + x) * 4);
      }
    }
    const out = await fix(r, { fix_alpha_threshold: true });
    let glowKept = 0;
    let recoloured = 0;
    for (let y = 0; y < 300; y++) {
      for (let x = 0; x < 300; x++) {
        const d = Math.hypot(x + 0.5 - 150, y + 0.5 - 150);
        const i = (y * 300 + x) * 4;
        if (d <= 71 || out.raster.data[i + 3] !== 255) continue;
        glowKept++;
        if (out.raster.data[i + 1]! < 150) recoloured++;
      }
    }
    expect(glowKept).toBeGreaterThan(500);
    expect(recoloured).toBe(0);
  });

  it('halftone wins over alpha threshold; output is binary alpha', async () => {
    const out = await fix(disc(300, 300, { r: 80, glowSigma: 15 }), { fix_alpha_threshold: true, fix_halftone: true });
    expect(out.applied).toEqual(['halftone']);
    expect(out.raster.data.filter((v, i) => i % 4 === 3 && v !== 0 && v !== 255).length).toBe(0);
  });

  it('order despeckle -> trim -> resize -> halftone; dots sized at the final resolution (trim keeps the DPI, resize scales it)', async () => {
    const r = disc(400, 400, { r: 60, glowSigma: 10 });
    r.data.set([0, 0, 0, 255], (2 * 400 + 2) * 4); // a speck in the corner, outside the art
    const out = await fix(r, { fix_despeckle: true, fix_trim: true, resize_width_px: 600, fix_halftone: true, print_width_inches: 2, halftone_lpi: 30 });
    expect(out.applied).toEqual(['despeckle', 'trim', 'resize', 'halftone']);
    expect(out.stats.specksRemoved).toBe(1);
    // the speck was removed before trimming, so the trim hugs the glow, not the corner
    expect(out.stats.trimX).toBeGreaterThan(50);
    expect(out.width).toBe(600);
    // 400 px at 2 in = 200 DPI; the trimmed art keeps its printed size, so the resize raises the DPI
    const trimmedWidth = 400 - 2 * out.stats.trimX!;
    const dpi = (200 * 600) / trimmedWidth;
    expect(Math.abs(out.dpi - dpi)).toBeLessThan(dpi * 0.01);
    expect(out.stats.halftoneCellPx).toBeCloseTo(out.dpi / 30, 1);
    expect(out.raster.density).toBeCloseTo(out.dpi, -1);
  });

  it('trim crops fully transparent borders exactly', async () => {
    const r = canvas(100, 80);
    for (let y = 20; y < 50; y++) for (let x = 10; x < 35; x++) r.data.set([200, 0, 0, 255], (y * 100 + x) * 4);
    r.data.set([200, 0, 0, 40], (19 * 100 + 10) * 4); // faint pixel above still counts as content
    const out = await fix(r, { fix_trim: true });
    expect([out.width, out.height]).toEqual([25, 31]);
    expect(out.stats).toMatchObject({ trimX: 10, trimY: 19 });
  });

  it('despeckle removes specks, pinholes and colour specks but keeps an i-dot', async () => {
    const w = 300;
    const r = canvas(w, 200);
    const fill = (x0: number, y0: number, x1: number, y1: number, c: number[]): void => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) r.data.set(c, (y * w + x) * 4);
    };
    fill(50, 50, 250, 150, [0, 0, 0, 255]); // a block of art
    fill(100, 100, 101, 101, [0, 0, 0, 0]); // pinhole
    fill(150, 80, 151, 81, [255, 255, 255, 255]); // white colour speck
    fill(10, 10, 11, 11, [0, 0, 0, 255]); // alpha speck
    fill(280, 20, 282, 22, [0, 0, 0, 180]); // 2x2 alpha speck
    fill(270, 120, 275, 125, [0, 0, 0, 255]); // 5x5 i-dot 21 px right of the art (within 2 mm = 24 px): a detail
    const out = await fix(r, { fix_despeckle: true, print_width_inches: 1 }); // 300 DPI
    expect(out.stats).toMatchObject({ specksRemoved: 2, pinholesFilled: 1, colourSpecksFixed: 1 });
    const at = (x: number, y: number): number[] => Array.from(out.raster.data.subarray((y * w + x) * 4, (y * w + x) * 4 + 4));
    expect(at(10, 10)[3]).toBe(0);
    expect(at(280, 20)[3]).toBe(0);
    expect(at(100, 100)).toEqual([0, 0, 0, 255]);
    expect(at(150, 80)).toEqual([0, 0, 0, 255]);
    expect(at(272, 122)).toEqual([0, 0, 0, 255]);
  });

  it('resize: aspect kept with one side, exact with both, no dark fringe (premultiplied)', async () => {
    const r = canvas(200, 100);
    for (let y = 25; y < 75; y++) for (let x = 50; x < 150; x++) r.data.set([255, 40, 0, 255], (y * 200 + x) * 4);
    const one = await fix(r, { resize_width_px: 333 });
    expect([one.width, one.height]).toEqual([333, 167]);
    const byH = await fix(r, { resize_height_px: 50 });
    expect([byH.width, byH.height]).toEqual([100, 50]);
    const both = await fix(r, { resize_width_px: 64, resize_height_px: 64 });
    expect([both.width, both.height]).toEqual([64, 64]);
    // transparent pixels are RGB 0 (black); a straight-alpha filter would darken the edge
    let dark = 0;
    let edge = 0;
    for (const out of [one, byH, both]) {
      const d = out.raster.data;
      for (let i = 0; i < d.length; i += 4) {
        if (d[i + 3]! < 24 || d[i + 3] === 255) continue;
        edge++;
        if (d[i]! < 235) dark++;
      }
    }
    expect(edge).toBeGreaterThan(100);
    expect(dark).toBe(0);
  });

  it('writes the DPI into the PNG: width / print width, else 300', async () => {
    const r = disc(400, 200, { r: 50 });
    const a = await fix(r, { print_width_inches: 4 });
    expect(a.dpi).toBe(100);
    expect(a.raster.density).toBeCloseTo(100, 0);
    const b = await fix(r, {});
    expect(b.dpi).toBe(300);
    expect(b.raster.density).toBeCloseTo(300, 0);
    expect(b.applied).toEqual([]);
    expect(Buffer.compare(Buffer.from(b.raster.data), Buffer.from(r.data))).toBe(0);
  });

  it('runs on the worker pool and moves the PNG back', async () => {
    const pooled = createEngine({ threads: 1 });
    try {
      const out = await pooled.fix(await png(disc(200, 200, { r: 50, glowSigma: 10 })), { fix_halftone: true, print_width_inches: 1 });
      expect(out.data).toBeInstanceOf(Uint8Array);
      expect(out.data.byteLength).toBeGreaterThan(100);
      expect(out.applied).toEqual(['halftone']);
      const err = await pooled.fix(await png(canvas(4, 4)), { halftone_lpi: 99 }).catch((e: unknown) => e);
      expect((err as InkprepError).details.field).toBe('halftone_lpi');
    } finally {
      await pooled.close();
    }
  });
});
