// Mockup warnings that tell the truth about print: semi-transparent glow art is flagged with the fix the
// scan recommends (and crisp art is not), preview_fix shows that fix on the mockup, a supplier style with
// no size says the scale is not the ordered size's; the new fields are validated like every other.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { InkprepError, textOptions, type Raster, type SupplierGarment } from '@inkprep/engine';
import { renderMockup, resolveMockup, scanRaster } from '@inkprep/engine/internals';

const OUT = 800;

/** An opaque yellow disc (r 200 px) with a wide soft glow (alpha falls to 0 over 220 px), 1200 px square. */
function glowArt(): Raster {
  const W = 1200, data = new Uint8ClampedArray(W * W * 4);
  for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) {
    const d = Math.hypot(x - W / 2 + 0.5, y - W / 2 + 0.5);
    const a = d <= 200 ? 1 : Math.max(0, 1 - (d - 200) / 220) ** 1.5;
    if (a > 0) data.set([255, 220, 40, Math.round(255 * a)], (y * W + x) * 4);
  }
  return { width: W, height: W, data };
}

/** The same disc with a crisp anti-aliased edge and no glow. */
function crispArt(): Raster {
  const W = 1200, data = new Uint8ClampedArray(W * W * 4);
  for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) {
    const a = Math.min(1, Math.max(0, 200.5 - Math.hypot(x - W / 2 + 0.5, y - W / 2 + 0.5)));
    if (a > 0) data.set([255, 220, 40, Math.round(255 * a)], (y * W + x) * 4);
  }
  return { width: W, height: W, data };
}

const base = { style: 'own:classic-tee', color: 'black', placement: 'center-chest', print_width_in: 8, output_size: OUT, fabric: false } as const;

/** Mean absolute difference between horizontal neighbours over the print rectangle (dot texture). */
async function texture(png: Uint8Array, L: { left: number; top: number; width: number; height: number }): Promise<number> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let s = 0, n = 0;
  for (let y = L.top; y < L.top + L.height; y++) for (let x = L.left; x < L.left + L.width - 1; x++) {
    const o = (y * info.width + x) * info.channels;
    s += Math.abs(data[o]! - data[o + info.channels]!); n++;
  }
  return s / n;
}

/** Mean absolute difference of two renders over the print rectangle, per channel. */
async function meanDiff(a: Uint8Array, b: Uint8Array, L: { left: number; top: number; width: number; height: number }): Promise<number> {
  const A = await sharp(a).raw().toBuffer({ resolveWithObject: true });
  const B = await sharp(b).raw().toBuffer();
  let s = 0, n = 0;
  for (let y = L.top; y < L.top + L.height; y++) for (let x = L.left; x < L.left + L.width; x++) {
    const o = (y * A.info.width + x) * A.info.channels;
    for (let k = 0; k < 3; k++) { s += Math.abs(A.data[o + k]! - B[o + k]!); n++; }
  }
  return s / n;
}

/** Pixels of the print rectangle that are neither the black tee nor the full ink (part-way blends). */
async function blends(png: Uint8Array, L: { left: number; top: number; width: number; height: number }): Promise<number> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let y = L.top; y < L.top + L.height; y++) for (let x = L.left; x < L.left + L.width; x++) {
    const o = (y * info.width + x) * info.channels;
    if (data[o]! > 60 && data[o]! < 200) n++;
  }
  return n;
}

describe('semi_transparent_art', () => {
  it('glow art is flagged with the fix the scan recommends; crisp art is not', async () => {
    const glow = glowArt();
    const scan = scanRaster({ raster: glow, info: { format: 'png', width: 1200, height: 1200 } as never, printWidthInches: 8 });
    const r = await renderMockup(glow, resolveMockup(base));
    const w = r.warnings.find((x) => x.code === 'semi_transparent_art');
    expect(w, JSON.stringify(r.warnings)).toBeDefined();
    expect(scan.transparencyFix.recommended).toBe('halftone');
    expect(w!.message).toMatch(/fix_halftone=true/);
    expect(w!.message).toMatch(/cannot print partial transparency/);
    const crisp = await renderMockup(crispArt(), resolveMockup(base));
    expect(crisp.warnings.map((x) => x.code)).not.toContain('semi_transparent_art');
  });

  it('preview_fix shows the fix: halftone turns the glow into dots, the threshold cuts it', async () => {
    const glow = glowArt();
    const plain = await renderMockup(glow, resolveMockup(base));
    const ht = await renderMockup(glow, resolveMockup({ ...base, preview_fix: 'halftone', halftone_lpi: 20 }));
    // At 2000 px, 15 lpi dots are ~3 px across: visible as a dot texture where the glow was smooth.
    const big = { ...base, output_size: 2000 };
    const plainBig = await renderMockup(glow, resolveMockup(big));
    const htBig = await renderMockup(glow, resolveMockup({ ...big, preview_fix: 'halftone', halftone_lpi: 15 }));
    const auto = await renderMockup(glow, resolveMockup({ ...base, preview_fix: 'auto' }));
    const cut = await renderMockup(glow, resolveMockup({ ...base, preview_fix: 'alpha_threshold', alpha_threshold: 200 }));
    expect(plain.print.previewFix).toBeNull();
    expect(ht.print.previewFix).toBe('halftone');
    expect(auto.print.previewFix).toBe('halftone'); // the scan's recommendation for a glow
    expect(cut.print.previewFix).toBe('alpha_threshold');
    expect(ht.print.description).toMatch(/previewing fix_halftone=true \(20 lpi\)/);
    expect(ht.warnings.find((x) => x.code === 'semi_transparent_art')!.message).toMatch(/previews fix_halftone/);
    // The plain glow blends into the tee over a wide ring; the threshold leaves ink or tee (only the
    // anti-aliased cut edge blends); the halftone turns the smooth ring into a dot texture.
    const b0 = await blends(plain.data, plain.layout);
    const bc = await blends(cut.data, cut.layout);
    expect(b0).toBeGreaterThan(2000);
    expect(bc).toBeLessThan(b0 / 10);
    expect(await texture(htBig.data, htBig.layout)).toBeGreaterThan(3 * (await texture(plainBig.data, plainBig.layout)));
    // At 800 px the 20 lpi dots are about a pixel: they average to the tone the eye sees at that scale
    // (the preview never draws dots bigger than they will print).
    expect(await meanDiff(ht.data, plain.data, ht.layout)).toBeLessThan(3);
    // Crisp art has nothing to fix: auto previews nothing.
    const crisp = await renderMockup(crispArt(), resolveMockup({ ...base, preview_fix: 'auto' }));
    expect(crisp.print.previewFix).toBeNull();
  });
});

describe('size_unspecified', () => {
  const sup: SupplierGarment = {
    key: 'ss:39', brand: 'Gildan', style_number: '5000', title: 'Heavy Cotton T-Shirt', category: 'T-Shirts', base: 'classic-tee',
    colors: [{ id: 'black', name: 'Black', hex: '#111111' }], sizes: ['S', 'M'], chest_by_size_in: { S: 18, M: 20 },
  };
  it('a supplier style without a size warns that the scale is not the ordered size; with a size it does not', async () => {
    const d = crispArt();
    const none = await renderMockup(d, resolveMockup({ style: 'ss:39', supplier_style: sup, output_size: 512, fabric: false }));
    expect(none.warnings.map((w) => w.code)).toContain('size_unspecified');
    expect(none.warnings.find((w) => w.code === 'size_unspecified')!.message).toMatch(/No size was given/);
    const m = await renderMockup(d, resolveMockup({ style: 'ss:39', supplier_style: sup, size: 'M', output_size: 512, fabric: false }));
    expect(m.warnings.map((w) => w.code)).not.toContain('size_unspecified');
    const own = await renderMockup(d, resolveMockup({ style: 'own:classic-tee', output_size: 512, fabric: false }));
    expect(own.warnings.map((w) => w.code)).not.toContain('size_unspecified');
  });
});

describe('validation of the new fields', () => {
  it('preview_fix, alpha_threshold and halftone_lpi out of range are invalid_option naming the field', () => {
    for (const [field, value] of [['preview_fix', 'blur'], ['alpha_threshold', '300'], ['halftone_lpi', '10']] as const) {
      try {
        resolveMockup(textOptions({ ...base, [field]: value }));
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(InkprepError);
        expect((err as InkprepError).details.field).toBe(field);
      }
    }
  });
});
