// Mockup op: the silhouette matches its measurements, designs land where the inches say (several
// placements, sizes, offsets, views, square frame) to within 1 px, legacy template mode, validation errors
// naming the field, warnings, fabric realism keeping DTF colours true, and the op through the worker pool.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, InkprepError, listTemplates, OWN_STYLES, textOptions, type MockupOptions, type Raster, type SupplierGarment } from '@inkprep/engine';
import { getGarmentAt, renderMockup, resolveMockup } from '@inkprep/engine/internals';

const OUT = 512;

function solid(w: number, h: number, rgb: [number, number, number], alpha = 255): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set([rgb[0], rgb[1], rgb[2], alpha], i);
  return { width: w, height: h, data };
}

async function decode(png: Uint8Array): Promise<{ width: number; height: number; data: Buffer }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** Bounding box of pure-red-ish pixels. */
function redBox(img: { width: number; height: number; data: Buffer }): { left: number; top: number; right: number; bottom: number } {
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) {
    const o = (y * img.width + x) * 4;
    if (img.data[o]! > 150 && img.data[o + 1]! < 90 && img.data[o + 2]! < 90) {
      left = Math.min(left, x); right = Math.max(right, x + 1); top = Math.min(top, y); bottom = Math.max(bottom, y + 1);
    }
  }
  return { left, top, right, bottom };
}

function style(id: string) {
  return OWN_STYLES.find((s) => s.id === id)!;
}

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InkprepError);
    expect((err as InkprepError).code).toBe('invalid_option');
    return (err as InkprepError).details.field as string;
  }
  return undefined;
}

beforeAll(async () => {
  // Warm the blanks used below (rendered once, then from the disk cache on later runs).
  await Promise.all([
    getGarmentAt(style('classic-tee'), 'front', { hex: '#f6f6f3' }, OUT),
    getGarmentAt(style('classic-tee'), 'back', { hex: '#f6f6f3' }, OUT),
    getGarmentAt(style('hoodie'), 'front', { hex: '#1b1b1d' }, OUT),
  ]);
});

describe('silhouette from measurements', () => {
  it('has the flat chest width and body length of the reference size at the stated ppi', async () => {
    for (const id of ['classic-tee', 'hoodie']) {
      const s = style(id);
      const g = await getGarmentAt(s, 'front', { hex: id === 'hoodie' ? '#1b1b1d' : '#f6f6f3' }, OUT);
      const hpsY = g.collar_y - s.shape.front_drop * g.ppi;
      const row = Math.round(hpsY + (s.shape.armhole + 1.2) * g.ppi);
      // The body's run of garment pixels through the centre line (sleeves hang beside it).
      let x0 = Math.round(g.center_x), x1 = x0;
      while (x0 > 0 && g.mask[row * g.width + x0 - 1]! >= 128) x0--;
      while (x1 < g.width && g.mask[row * g.width + x1]! >= 128) x1++;
      expect(Math.abs(x1 - x0 - s.shape.chest * g.ppi)).toBeLessThanOrEqual(2);
      expect(Math.abs((x0 + x1) / 2 - g.center_x)).toBeLessThanOrEqual(1);
      const cx = Math.round(g.center_x);
      let bottom = 0;
      for (let y = 0; y < g.height; y++) if (g.mask[y * g.width + cx]! >= 128) bottom = y + 1;
      const hemDip = s.shape.hem_rib > 0 ? 0.08 : 0.28;
      expect(Math.abs(bottom - (hpsY + (s.shape.length + hemDip) * g.ppi))).toBeLessThanOrEqual(2);
    }
  });
});

describe('true-to-size placement geometry', () => {
  const cases: { name: string; opts: MockupOptions; design: [number, number]; view: 'front' | 'back'; width: number; top: number; offset: number; size: string; styleId?: string }[] = [
    { name: 'full-front default, L', opts: { placement: 'full-front' }, design: [400, 300], view: 'front', width: 11, top: 3, offset: 0, size: 'L' },
    { name: 'left chest is right of the photo, size S', opts: { placement: 'left-chest', size: 'S' }, design: [200, 200], view: 'front', width: 3.5, top: 3, offset: 4, size: 'S' },
    { name: 'right chest, 3XL', opts: { placement: 'right-chest', size: '3XL' }, design: [300, 150], view: 'front', width: 3.5, top: 3, offset: -4, size: '3XL' },
    { name: 'center chest with width, top and offset, XS', opts: { placement: 'center-chest', size: 'XS', print_width_in: 9, top_in: 5, offset_x_in: -1.5 }, design: [360, 480], view: 'front', width: 9, top: 5, offset: -1.5, size: 'XS' },
    { name: 'back neck on the back view', opts: { placement: 'back-neck' }, design: [250, 100], view: 'back', width: 2.5, top: 0.75, offset: 0, size: 'L' },
    { name: 'full back offset right, 2XL', opts: { placement: 'full-back', size: '2XL', offset_x_in: 2 }, design: [500, 500], view: 'back', width: 12, top: 3.5, offset: 2, size: '2XL' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const s = style(c.styleId ?? 'classic-tee');
      const r = await renderMockup(solid(c.design[0], c.design[1], [230, 20, 20]), resolveMockup({ style: s.key, color: 'white', fabric: false, output_size: OUT, ...c.opts }));
      const g = await getGarmentAt(s, c.view, { hex: '#f6f6f3' }, OUT);
      const ppi = (g.ppi * s.chest_by_size_in[s.ref_size]!) / s.chest_by_size_in[c.size]!;
      const wPx = c.width * ppi;
      const hPx = (c.width * c.design[1] * ppi) / c.design[0];
      const left = g.center_x + c.offset * ppi - wPx / 2;
      const top = g.collar_y + c.top * ppi;
      const box = redBox(await decode(r.data));
      expect(Math.abs(box.left - left)).toBeLessThanOrEqual(1);
      expect(Math.abs(box.right - (left + wPx))).toBeLessThanOrEqual(1);
      expect(Math.abs(box.top - top)).toBeLessThanOrEqual(1);
      expect(Math.abs(box.bottom - (top + hPx))).toBeLessThanOrEqual(1);
      expect(r.print.widthIn).toBe(c.width);
      expect(r.print.effectiveDpi).toBeCloseTo(c.design[0] / c.width, 1);
      expect(r.view).toBe(c.view);
      expect(r.garment.size).toBe(c.size);
    });
  }

  it('the same print covers less of a bigger size', async () => {
    const d = solid(300, 300, [230, 20, 20]);
    const s = await renderMockup(d, resolveMockup({ style: 'own:classic-tee', color: 'white', size: 'S', fabric: false, output_size: OUT }));
    const xl = await renderMockup(d, resolveMockup({ style: 'own:classic-tee', color: 'white', size: '3XL', fabric: false, output_size: OUT }));
    expect(s.layout.width / xl.layout.width).toBeCloseTo(28 / 18, 1);
  });

  it('square frame pads the short side and keeps the print where the inches say', async () => {
    const d = solid(300, 300, [230, 20, 20]);
    const native = await renderMockup(d, resolveMockup({ style: 'own:classic-tee', color: 'white', fabric: false, output_size: OUT }));
    const square = await renderMockup(d, resolveMockup({ style: 'own:classic-tee', color: 'white', fabric: false, output_size: OUT, frame: 'square', format: 'jpeg' }));
    expect(square.width).toBe(OUT);
    expect(square.height).toBe(OUT);
    expect(square.contentType).toBe('image/jpeg');
    const a = redBox(await decode(native.data));
    const b = redBox(await decode(square.data));
    expect(Math.abs((b.left - a.left) - (OUT - native.width) / 2)).toBeLessThanOrEqual(1);
    expect(Math.abs((b.top - a.top) - Math.floor((OUT - native.height) / 2))).toBeLessThanOrEqual(1);
  });

  it('square frame padding continues the backdrop without a seam', async () => {
    const r = await renderMockup(solid(300, 300, [230, 20, 20]), resolveMockup({ style: 'own:classic-tee', color: 'black', fabric: false, output_size: OUT, frame: 'square' }));
    const img = await decode(r.data);
    const native = await renderMockup(solid(300, 300, [230, 20, 20]), resolveMockup({ style: 'own:classic-tee', color: 'black', fabric: false, output_size: OUT }));
    const padT = Math.floor((OUT - native.height) / 2);
    expect(padT).toBeGreaterThan(10);
    // Across each pad boundary, neighbouring rows differ no more than rows inside the backdrop do.
    for (const y of [padT, padT + native.height]) {
      let worst = 0;
      for (let x = 0; x < img.width; x++) {
        for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(img.data[(y * img.width + x) * 4 + k]! - img.data[((y - 1) * img.width + x) * 4 + k]!));
      }
      expect(worst).toBeLessThanOrEqual(1);
    }
  });
});

describe('legacy template mode', () => {
  it('lists templates with placements and a preview address', () => {
    const t = listTemplates((id) => `/p/${id}`).templates;
    expect(t.length).toBeGreaterThanOrEqual(8);
    expect(t[0]).toMatchObject({ id: 'tee-white', preview_url: '/p/tee-white' });
    expect(t[0]!.placements.map((p) => p.name)).toEqual(expect.arrayContaining(['Center', 'Left Chest', 'Full Front']));
    expect(t[0]!.width_px).toBeGreaterThan(0);
  });

  it('fits the design in the placement box times scale', async () => {
    const d = solid(200, 100, [230, 20, 20]);
    const one = await renderMockup(d, resolveMockup({ template_id: 'tee-black', placement_id: 'left-chest', output_size: OUT, fabric: false }));
    expect(one.mode).toBe('legacy');
    expect(one.garment.key).toBe('tee-black');
    expect(one.placement).toBe('left-chest');
    expect(one.print.widthIn).toBe(4.5);
    const half = await renderMockup(d, resolveMockup({ template_id: 'tee-black', placement_id: 'left-chest', scale: 0.5, output_size: OUT, fabric: false }));
    expect(half.print.widthIn).toBe(2.25);
    // A tall design is limited by the box height.
    const tall = await renderMockup(solid(100, 400, [230, 20, 20]), resolveMockup({ template_id: 'tee-white', placement_id: 'full-front', output_size: OUT, fabric: false }));
    expect(tall.print.heightIn).toBe(14);
    expect(tall.print.widthIn).toBe(3.5);
    const box = redBox(await decode(half.data));
    expect(Math.abs((box.left + box.right) / 2 - (half.layout.left + half.layout.width / 2))).toBeLessThanOrEqual(1);
  });

  it('matches garment and placement names case-insensitively; defaults to the first template', () => {
    const a = resolveMockup(textOptions({ garment: 'black hoodie', placement: 'full front' }));
    expect(a.garmentKey).toBe('hoodie-black');
    expect(a.placementId).toBe('full-front');
    const b = resolveMockup({});
    expect(b.mode).toBe('legacy');
    expect(b.garmentKey).toBe('tee-white');
    expect(b.placementId).toBe('center');
  });
});

describe('validation', () => {
  it('rejects bad input with invalid_option naming the field', () => {
    expect(fieldOf(() => resolveMockup({ style: 'own:tuxedo' }))).toBe('style');
    expect(fieldOf(() => resolveMockup({ style: 'ss:1234' }))).toBe('style');
    expect(fieldOf(() => resolveMockup({ style: 'own:classic-tee', color: 'plaid' }))).toBe('color');
    expect(fieldOf(() => resolveMockup({ style: 'own:hoodie', placement: 'oversized' }))).toBe('placement');
    expect(fieldOf(() => resolveMockup({ style: 'own:hoodie', placement: 'back-neck' }))).toBe('placement');
    expect(fieldOf(() => resolveMockup({ style: 'own:classic-tee', placement: 'full-front', view: 'back' }))).toBe('view');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', view: 'side' })))).toBe('view');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', output_size: '399' })))).toBe('output_size');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', output_size: '4001' })))).toBe('output_size');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', fabric: '1.5' })))).toBe('fabric');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', print_width_in: '0.1' })))).toBe('print_width_in');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', top_in: '-1' })))).toBe('top_in');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', offset_x_in: 'left' })))).toBe('offset_x_in');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', size: '5XL' })))).toBe('size');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', frame: 'circle' })))).toBe('frame');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', format: 'gif' })))).toBe('format');
    expect(fieldOf(() => resolveMockup(textOptions({ style: 'own:classic-tee', response: 'xml' })))).toBe('response');
    expect(fieldOf(() => resolveMockup(textOptions({ template_id: 'nope' })))).toBe('template_id');
    expect(fieldOf(() => resolveMockup(textOptions({ template_id: 'tee-white', placement_id: 'full-back' })))).toBe('placement_id');
    expect(fieldOf(() => resolveMockup(textOptions({ scale: '3' })))).toBe('scale');
  });

  it('accepts colour ids and names, defaults to black and the style placement side', () => {
    expect(resolveMockup({ style: 'own:classic-tee' }).color.id).toBe('black');
    expect(resolveMockup({ style: 'own:classic-tee', color: 'Heather Gray' }).color.id).toBe('heather-grey');
    const back = resolveMockup({ style: 'own:classic-tee', placement: 'upper-back' });
    expect(back.view).toBe('back');
    expect(back.topIn).toBe(3);
    expect(resolveMockup(textOptions({ style: 'own:classic-tee', fabric: 'false' })).fabric).toBeNull();
    expect(resolveMockup({ style: 'own:hoodie', view: 'back' }).placementId).toBe('full-back');
    expect(resolveMockup({ style: 'own:hoodie' }).placementId).toBe('full-front');
  });
});

describe('warnings', () => {
  it('low DPI, soft DPI note, clamped width, opaque background box', async () => {
    const small = await renderMockup(solid(600, 600, [230, 20, 20], 0), resolveMockup({ style: 'own:classic-tee', color: 'white', output_size: OUT, fabric: false }));
    expect(small.warnings.map((w) => w.code)).toEqual(['low_dpi']);
    expect(small.warnings[0]!.message).toMatch(/55 DPI/);
    const mid = await renderMockup(solid(2400, 600, [230, 20, 20], 0), resolveMockup({ style: 'own:classic-tee', color: 'white', output_size: OUT, fabric: false }));
    expect(mid.warnings.map((w) => w.code)).toEqual(['dpi_below_300']);
    const wide = await renderMockup(solid(4000, 1000, [230, 20, 20], 0), resolveMockup({ style: 'own:classic-tee', print_width_in: 14, output_size: OUT, fabric: false }));
    expect(wide.print.widthIn).toBe(12);
    expect(wide.warnings.map((w) => w.code)).toEqual(['width_clamped']);
    const boxed = await renderMockup(solid(3700, 500, [255, 255, 255]), resolveMockup({ style: 'own:classic-tee', output_size: OUT, fabric: false }));
    expect(boxed.warnings.map((w) => w.code)).toContain('opaque_background');
    expect(boxed.warnings.find((w) => w.code === 'opaque_background')!.message).toMatch(/#ffffff/);
  });

  it('supplier garment: true scale from its chest spec; unknown chest warns', async () => {
    const sup: SupplierGarment = {
      key: 'ss:39', brand: 'Gildan', style_number: '5000', title: 'Heavy Cotton T-Shirt', category: 'T-Shirts', base: 'classic-tee',
      colors: [{ id: 'sport-grey', name: 'Sport Grey', hex: '#9b9b9b' }, { id: 'black', name: 'Black', hex: '#111111' }],
      sizes: ['S', 'M', 'XL'], chest_by_size_in: { S: 18, M: 20 },
    };
    const d = solid(3300, 3300, [230, 20, 20], 0);
    const o = resolveMockup({ style: 'ss:39', supplier_style: sup, size: 'S', output_size: OUT, fabric: false });
    expect(o.color.id).toBe('black');
    const s = await renderMockup(d, o);
    const g = await getGarmentAt(style('classic-tee'), 'front', { hex: '#111111' }, OUT);
    expect(s.layout.ppi).toBeCloseTo((g.ppi * 22) / 18, 6);
    expect(s.warnings).toEqual([]);
    const xl = await renderMockup(d, resolveMockup({ style: 'ss:39', supplier_style: sup, size: 'XL', color: 'Sport Grey', output_size: OUT, fabric: false }));
    expect(xl.warnings.map((w) => w.code)).toEqual(['size_chest_unknown']);
    expect(xl.garment).toMatchObject({ key: 'ss:39', color: { id: 'sport-grey' }, size: 'XL' });
  });
});

describe('fabric realism', () => {
  it('keeps DTF ink near its true colour on a dark blank, differs from a flat paste, and stays on the garment', async () => {
    const d = solid(1650, 1650, [200, 60, 40]);
    const base = { style: 'own:classic-tee', color: 'black', output_size: OUT, placement: 'full-front' } as const;
    const flat = await renderMockup(d, resolveMockup({ ...base, fabric: false }));
    const fab = await renderMockup(d, resolveMockup({ ...base, fabric: 0.8 }));
    const A = await decode(flat.data), B = await decode(fab.data);
    const L = flat.layout;
    let sa = [0, 0, 0], sb = [0, 0, 0], diff = 0, n = 0;
    for (let y = L.top + 4; y < L.top + L.height - 4; y++) for (let x = L.left + 4; x < L.left + L.width - 4; x++) {
      const o = (y * A.width + x) * 4;
      for (let k = 0; k < 3; k++) { sa[k] += A.data[o + k]!; sb[k] += B.data[o + k]!; diff += Math.abs(A.data[o + k]! - B.data[o + k]!); }
      n++;
    }
    sa = sa.map((v) => v / n); sb = sb.map((v) => v / n);
    // Flat paste is the exact colour; the fabric version is shaded but not crushed by the black cloth.
    expect(sa[0]).toBeCloseTo(200, -1);
    for (let k = 0; k < 3; k++) expect(Math.abs(sb[k]! - sa[k]!)).toBeLessThan(25);
    // The ink carries the cloth's light (a soft gradient, folds, knit), not a feathered blur: it differs from
    // the flat paste everywhere a little, not by a large amount anywhere.
    expect(diff / n / 3).toBeGreaterThan(0.6);
    // Outside the print rectangle nothing changed.
    const o = ((L.top - 10) * A.width + L.left - 10) * 4;
    expect([...B.data.subarray(o, o + 3)]).toEqual([...A.data.subarray(o, o + 3)]);
  });
});

describe('through the worker pool', () => {
  it('reuses a resampled design only for the same bytes and size (colour change: same ink, new design: new ink)', async () => {
    const engine = createEngine({ threads: 0 });
    try {
      const mk = (rgb: { r: number; g: number; b: number }) => sharp({ create: { width: 300, height: 200, channels: 4, background: { ...rgb, alpha: 1 } } }).png().toBuffer().then((b) => new Uint8Array(b));
      const red = await mk({ r: 230, g: 20, b: 20 });
      const blue = await mk({ r: 20, g: 20, b: 230 });
      const o = { style: 'own:classic-tee', placement: 'center-chest', output_size: 512, fabric: false } as const;
      const centre = async (bytes: Uint8Array, color: string) => {
        const r = await engine.mockup(bytes, { ...o, color }, { transfer: false });
        const img = await decode(r.data);
        const x = Math.round(r.layout.left + r.layout.width / 2), y = Math.round(r.layout.top + r.layout.height / 2);
        return [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
      };
      const a = await centre(red, 'white');
      expect(await centre(red, 'navy')).toEqual(a); // cached design, other blank: the opaque ink is the same
      const b = await centre(blue, 'white'); // same size, other bytes: not served from the cache
      expect(b[2]!).toBeGreaterThan(180);
      expect(b[0]!).toBeLessThan(60);
      expect(await centre(red, 'white')).toEqual(a);
    } finally {
      await engine.close();
    }
  });

  it('engine.mockup decodes a PNG, renders and transfers the image back', async () => {
    const engine = createEngine({ threads: 1 });
    try {
      const png = new Uint8Array(await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 230, g: 20, b: 20, alpha: 1 } } }).png().toBuffer());
      const r = await engine.mockup(png, { style: 'own:classic-tee', color: 'white', placement: 'left-chest', output_size: 512, format: 'jpeg', fabric: false });
      expect(r.contentType).toBe('image/jpeg');
      expect(r.data[0]).toBe(0xff);
      expect(r.placement).toBe('left-chest');
      expect(r.print.effectiveDpi).toBeCloseTo(300 / 3.5, 1);
      await expect(engine.mockup(png, { style: 'own:nope' })).rejects.toMatchObject({ code: 'invalid_option', details: { field: 'style' } });
    } finally {
      await engine.close();
    }
  });
});
