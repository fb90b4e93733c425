// Scan report: known-answer synthetic cases (crisp AA disc, glow, white matte, hard edges, specks,
// thin lines, backgrounds, DPI) and corpus art (intricate clean art must read `none`).
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { readdirSync } from 'node:fs';
import { createEngine, InkprepError, textOptions, type Raster, type ScanReport } from '@inkprep/engine';
import { scanRaster, resizeRaster } from '@inkprep/engine/internals';
import { canvas, corpusRaster, disc, png } from './fixtures.js';
import { corpusDir } from '../../../golden/lib/corpus.js';

const info = { format: 'png' as const, isJpeg: false, density: null };
const scan = (r: Raster, printWidthInches = 12): ScanReport => scanRaster({ raster: r, info, printWidthInches });
const codes = (s: ScanReport): string[] => s.issues.map((i) => i.code);
const fields = (s: ScanReport): string[] => s.suggestions.map((x) => x.field);

describe('scan: synthetic known answers', () => {
  it('crisp anti-aliased disc: soft rim about 1 px, recommended none, clean', () => {
    const s = scan(disc(400, 400, { r: 120 }), 1.3);
    expect(s.alpha.softRimPx).toBeGreaterThan(0.7);
    expect(s.alpha.softRimPx).toBeLessThan(1.3);
    expect(s.alpha.hasFringe).toBe(false);
    expect(s.transparencyFix.recommended).toBe('none');
    expect(s.transparencyFix.reason.length).toBeGreaterThan(20);
    expect(s.edgeQuality).toBe('clean');
    expect(codes(s)).not.toContain('soft_edges');
    expect(codes(s)).not.toContain('low_resolution');
    expect(s.background).toBe('transparent');
    // ink = disc area (pi r^2) / canvas
    expect(s.inkCoveragePercent).toBeCloseTo((Math.PI * 120 * 120 * 100) / (400 * 400), 0);
  });

  it('the same disc with a 20 px Gaussian glow: far wider rim, halftone; a glow is not a fringe', () => {
    const s = scan(disc(400, 400, { r: 100, glowSigma: 20 }), 1.3);
    expect(s.alpha.softRimPx).toBeGreaterThan(10);
    expect(s.alpha.hasFringe).toBe(false);
    expect(s.alpha.fringeColor).toBeNull();
    expect(s.alpha.fringePercent).toBe(0);
    expect(s.transparencyFix.recommended).toBe('halftone');
    expect(s.edgeQuality).toBe('soft');
    expect(codes(s)).toContain('semi_transparent_areas');
    expect(s.suggestions).toContainEqual(expect.objectContaining({ field: 'fix_halftone', value: 'true' }));
    expect(fields(s)).toContain('halftone_lpi');
    expect(s.suggestions).toContainEqual(expect.objectContaining({ field: 'print_width_inches', value: '1.3' }));
  });

  it('white-matte fringe: has_fringe with a white matte colour, remove, fringed', () => {
    const s = scan(disc(400, 400, { r: 120, rimPx: 2, matte: [255, 255, 255], rgb: [20, 60, 200] }), 1.3);
    expect(s.alpha.hasFringe).toBe(true);
    expect(s.alpha.fringeColor).not.toBeNull();
    const m = parseInt(s.alpha.fringeColor!.slice(1), 16);
    expect(Math.min(m >> 16, (m >> 8) & 255, m & 255)).toBeGreaterThan(220);
    expect(s.transparencyFix.recommended).toBe('remove');
    expect(s.edgeQuality).toBe('fringed');
    expect(codes(s)).toContain('edge_fringe');
    expect(s.suggestions).toContainEqual(expect.objectContaining({ field: 'fix_alpha_threshold', value: 'true' }));
  });

  it('a black matte is found too, and a thin soft rim without matte reads remove', () => {
    const black = scan(disc(300, 300, { r: 90, rimPx: 2, matte: [0, 0, 0], rgb: [250, 220, 40] }));
    expect(black.alpha.fringeColor).not.toBeNull();
    expect(parseInt(black.alpha.fringeColor!.slice(1), 16)).toBeLessThan(0x303030);
    const soft = scan(disc(300, 300, { r: 90, rimPx: 2.6 }));
    expect(soft.alpha.softRimPx).toBeGreaterThan(1.6);
    expect(soft.alpha.softRimPx).toBeLessThan(3);
    expect(soft.alpha.fringeColor).toBeNull();
    expect(soft.transparencyFix.recommended).toBe('remove');
    expect(soft.edgeQuality).toBe('soft');
    expect(codes(soft)).toContain('soft_edges');
  });

  it('a semi-transparent layer filling the canvas has its outline at the canvas edge: wide rim, halftone', () => {
    const r = canvas(400, 300);
    for (let p = 0; p < 400 * 300; p++) r.data.set([10, 200, 30, 128], p * 4);
    const s = scan(r, 2);
    expect(s.alpha.edgeLengthPx).toBe(Math.round((2 * (400 + 300) * 128) / 255));
    expect(s.alpha.softRimPx).toBeGreaterThan(100);
    expect(s.transparencyFix.recommended).toBe('halftone');
    expect(s.inkCoveragePercent).toBeCloseTo(50.2, 1);
  });

  it('binary alpha: curves read jagged, a rectangle reads clean, no semi pixels reads none', () => {
    const hard = scan(disc(300, 300, { r: 100, rimPx: 0.001 }));
    expect(hard.alpha.semiTransparentPercent).toBe(0);
    expect(hard.transparencyFix.recommended).toBe('none');
    expect(hard.edgeQuality).toBe('jagged');
    const rect = canvas(200, 200);
    for (let y = 50; y < 150; y++) for (let x = 40; x < 160; x++) rect.data.set([0, 0, 0, 255], (y * 200 + x) * 4);
    expect(scan(rect).edgeQuality).toBe('clean');
  });

  it('counts specks (at most 0.5 mm across, no other ink within 2 mm) and suggests fix_despeckle; an i-dot and a bigger blob are not specks', () => {
    const r = disc(600, 600, { r: 150 });
    const put = (x: number, y: number, sw: number, sh = sw): void => {
      for (let yy = y; yy < y + sh; yy++) for (let xx = x; xx < x + sw; xx++) r.data.set([0, 0, 0, 255], (yy * 600 + xx) * 4);
    };
    put(10, 10, 1);
    put(30, 500, 2);
    put(570, 40, 6); // 0.5 mm at 300 DPI: still a speck
    put(560, 540, 5, 30); // a stem ...
    put(560, 528, 5); // ... and its i-dot, 7 px above it: a detail
    put(20, 300, 7); // 7x7 px: over 0.5 mm, a detail
    const s = scan(r, 2); // 300 DPI
    expect(s.speckMaxPx).toBe(6);
    expect(s.speckCount).toBe(3);
    expect(codes(s)).toContain('specks');
    expect(s.suggestions).toContainEqual(expect.objectContaining({ field: 'fix_despeckle', value: 'true' }));
  });

  it('flags strokes thinner than 1 pt at the print size, not thick shapes', () => {
    const r = canvas(600, 600);
    for (let k = 0; k < 12; k++) {
      const y0 = 40 + k * 45;
      for (let y = y0; y < y0 + 2; y++) for (let x = 30; x < 570; x++) r.data.set([0, 0, 0, 255], (y * 600 + x) * 4);
    }
    const s = scan(r, 2); // 300 DPI: 1 pt = 4.2 px, lines are 2 px
    expect(codes(s)).toContain('thin_lines');
    expect(s.thinLinePercent).toBeGreaterThan(50);
    // a thick disc is never thin
    expect(codes(scan(disc(600, 600, { r: 200 }), 2))).not.toContain('thin_lines');
  });

  it('dpi is width / print width; low resolution is an error below 150 DPI', () => {
    const r = disc(1200, 600, { r: 200 });
    const at4 = scan(r, 4);
    expect(at4.dpi).toBe(300);
    expect(at4.printHeightInches).toBe(2);
    expect(codes(at4)).not.toContain('low_resolution');
    const at12 = scan(r, 12);
    expect(at12.dpi).toBe(100);
    expect(at12.issues.find((i) => i.code === 'low_resolution')?.severity).toBe('error');
    expect(scan(r, 7).issues.find((i) => i.code === 'low_resolution')?.severity).toBe('warning');
  });

  it('transparent margins suggest fix_trim; an empty image is an error', () => {
    const s = scan(disc(400, 400, { r: 60 }));
    expect(codes(s)).toContain('transparent_margin');
    expect(s.suggestions).toContainEqual(expect.objectContaining({ field: 'fix_trim', value: 'true' }));
    expect(s.contentBox).toEqual({ x: 140, y: 140, width: 120, height: 120 });
    const empty = scan(canvas(50, 50));
    expect(codes(empty)).toContain('empty_image');
    expect(empty.contentBox).toBeNull();
    const flat = canvas(20, 10);
    flat.data.fill(255);
    expect(codes(scan(flat))).not.toContain('empty_image');
    expect(scan(flat).contentBox).toEqual({ x: 0, y: 0, width: 20, height: 10 });
  });

  it('backgrounds: solid (robust to JPEG noise) and complex', () => {
    const flat = canvas(300, 300);
    for (let p = 0; p < 300 * 300; p++) flat.data.set([250, 250, 248, 255], p * 4);
    const art = disc(300, 300, { r: 80 });
    for (let p = 0; p < 300 * 300; p++) if (art.data[p * 4 + 3]! > 128) flat.data.set(art.data.subarray(p * 4, p * 4 + 4), p * 4);
    const solid = scan(flat);
    expect(solid.background).toBe('solid');
    expect(solid.backgroundColor).toBe('#fafaf8');
    expect(codes(solid)).toContain('background_not_transparent');
    const noise = canvas(300, 300);
    let seed = 7;
    for (let p = 0; p < 300 * 300; p++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      noise.data.set([seed & 255, (seed >> 8) & 255, (seed >> 16) & 255, 255], p * 4);
    }
    expect(scan(noise).background).toBe('complex');
  });
});

describe('scan op (engine, encoded input)', () => {
  it('JPEG on white: is_jpeg, solid white background, jpeg_artifacts; stated density reported apart', async () => {
    const r = disc(600, 400, { r: 150, rgb: [30, 90, 160] });
    const jpeg = await sharp(Buffer.from(r.data.buffer), { raw: { width: 600, height: 400, channels: 4 } })
      .flatten({ background: '#ffffff' }).withDensity(150).jpeg({ quality: 70 }).toBuffer();
    const engine = createEngine({ threads: 0 });
    try {
      const s = await engine.scan(new Uint8Array(jpeg), { print_width_inches: 2 });
      expect(s.isJpeg).toBe(true);
      expect(s.format).toBe('jpeg');
      expect(s.dpi).toBe(300);
      expect(s.statedDpi).toBe(150);
      expect(s.background).toBe('solid');
      const c = parseInt(s.backgroundColor!.slice(1), 16);
      expect(Math.min(c >> 16, (c >> 8) & 255, c & 255)).toBeGreaterThan(240);
      expect(codes(s)).toEqual(expect.arrayContaining(['jpeg_artifacts', 'background_not_transparent']));
      expect(s.inkCoveragePercent).toBe(100);
    } finally {
      await engine.close();
    }
  });

  it('an opaque JPEG on white: specks and the content box are judged against the background', async () => {
    const r = disc(600, 400, { r: 120, rgb: [30, 90, 160] });
    const jpeg = await sharp(Buffer.from(r.data.buffer), { raw: { width: 600, height: 400, channels: 4 } })
      .flatten({ background: '#ffffff' })
      .composite([10, 40, 70].map((x) => ({ input: { create: { width: 2, height: 2, channels: 3 as const, background: '#000000' } }, left: x, top: 20 })))
      .jpeg({ quality: 85 }).toBuffer();
    const engine = createEngine({ threads: 0 });
    try {
      const s = await engine.scan(new Uint8Array(jpeg), { print_width_inches: 2 });
      expect(s.background).toBe('solid');
      expect(s.speckCount).toBe(3);
      expect(s.suggestions).toContainEqual(expect.objectContaining({ field: 'fix_despeckle', value: 'true' }));
      // the content box is the art's, without the specks (what despeckle + trim keep)
      expect(s.contentBox!.x).toBeGreaterThan(150);
      const fixed = await engine.fix(new Uint8Array(jpeg), { fix_despeckle: true, print_width_inches: 2 });
      expect(fixed.stats.specksRemoved).toBe(3);
      const again = await engine.scan(fixed.data, { print_width_inches: 2 });
      expect(again.speckCount).toBe(0);
      expect(again.contentBox!.x).toBeGreaterThan(150);
    } finally {
      await engine.close();
    }
  });

  it('defaults print_width_inches to 12 and rejects bad values naming the field', async () => {
    const engine = createEngine({ threads: 0 });
    try {
      const bytes = await png(disc(240, 120, { r: 40 }));
      expect((await engine.scan(bytes.slice())).printWidthInches).toBe(12);
      expect((await engine.scan(bytes.slice())).dpi).toBe(20);
      for (const bad of ['abc', '0', '-3', '1e9', 'true']) {
        const err = await engine.scan(bytes.slice(), textOptions({ print_width_inches: bad })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(InkprepError);
        expect((err as InkprepError).code).toBe('invalid_option');
        expect((err as InkprepError).details.field).toBe('print_width_inches');
      }
    } finally {
      await engine.close();
    }
  });

  it('runs on the worker pool with the same report', async () => {
    const bytes = await png(disc(300, 300, { r: 100, glowSigma: 12 }));
    const engine = createEngine({ threads: 1 });
    try {
      const pooled = await engine.scan(bytes.slice(), { print_width_inches: 1 });
      const local = scan(disc(300, 300, { r: 100, glowSigma: 12 }), 1);
      expect(pooled.alpha.softRimPx).toBe(local.alpha.softRimPx);
      expect(pooled.transparencyFix.recommended).toBe('halftone');
    } finally {
      await engine.close();
    }
  });
});

describe('scan: corpus art', () => {
  // Intricate lettering and logos have a lot of anti-aliased edge (high semi_transparent_percent) yet are clean.
  const clean = ['lettering-mountain-club.svg', 'si-openbsd.svg', 'lettering-good-vibes.svg', 'si-cocacola.svg', 'gi-heraldic-sun.svg', 'noto-1f981-lion.svg', 'tw-1f98a-fox.svg', 'flag-ca.svg'];
  it.each(clean)('%s reads none and no fringe', async (file) => {
    const s = scan(await corpusRaster(file, 1024), 3);
    expect(s.transparencyFix.recommended).toBe('none');
    expect(s.alpha.hasFringe).toBe(false);
    expect(s.alpha.softRimPx).toBeLessThan(1.6);
    expect(['clean', 'jagged']).toContain(s.edgeQuality);
    expect(s.speckCount).toBe(0);
  });

  it('every corpus artwork at 512 px reads none, except the sunrise whose water edge carries an orange underlayer', async () => {
    const files = readdirSync(corpusDir() ?? 'corpus/open').filter((f) => f.endsWith('.svg'));
    expect(files.length).toBeGreaterThanOrEqual(40);
    const notNone: string[] = [];
    for (const f of files) {
      const s = scan(await corpusRaster(f, 512), 1.7);
      if (s.transparencyFix.recommended !== 'none') notNone.push(`${f}:${s.transparencyFix.recommended}:${s.alpha.fringeColor}`);
    }
    // the sunrise's teal water is drawn over the orange sky, whose colour shows in the water's edge pixels
    expect(notNone).toEqual([expect.stringMatching(/^noto-1f305-sunrise\.svg:remove:#/)]);
  });

  it('Lanczos-downscaled art stays none (ringing is not a rim); 2x-upscaled art reads soft', async () => {
    const big = await corpusRaster('gi-barn-owl.svg', 1024);
    const down = scan(await resizeRaster(big, { width: 400 }), 2);
    expect(down.alpha.softRimPx).toBeLessThan(1.4);
    expect(down.transparencyFix.recommended).toBe('none');
    const up = scan(await resizeRaster(await corpusRaster('gi-barn-owl.svg', 400), { width: 800 }), 3);
    expect(up.alpha.softRimPx).toBeGreaterThan(1.8);
    expect(up.edgeQuality).toBe('soft');
    expect(['remove', 'either']).toContain(up.transparencyFix.recommended);
  });

  it('intricate lettering has a high semi-transparent share but a ~1 px rim', async () => {
    const s = scan(await corpusRaster('lettering-mountain-club.svg', 1024), 3);
    expect(s.alpha.semiTransparentPercent).toBeGreaterThan(20);
    expect(s.alpha.softRimPx).toBeLessThan(1.4);
  });

  it('the same art blurred into a haze reads halftone or either, never none', async () => {
    const r = await corpusRaster('gi-barn-owl.svg', 512);
    const blurred = await sharp(Buffer.from(r.data.buffer), { raw: { width: r.width, height: r.height, channels: 4 } }).blur(6).raw().toBuffer();
    const s = scan({ width: r.width, height: r.height, data: new Uint8ClampedArray(blurred.buffer.slice(blurred.byteOffset, blurred.byteOffset + blurred.byteLength)) }, 2);
    expect(s.alpha.softRimPx).toBeGreaterThan(3);
    expect(['halftone', 'either']).toContain(s.transparencyFix.recommended);
  });
});
