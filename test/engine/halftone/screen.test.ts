// Halftone screen properties: only alpha 0/255, dot area proportional to alpha (50 % patch -> 45-55 %
// covered), dot pitch equal to the cell size (output DPI / LPI) within 5 %, dots on the rotated grid,
// opaque art untouched, and the clipped-disc area function; in physical units: no dot under the minimum
// printable dot, round dots and coverage within 2 % at every lpi 15-65 for 150-600 DPI, the small-cell
// warning, round holes in dark tones.
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { clippedDiscArea, halftoneRaster, labelRuns, minDotSidePx } from '@inkprep/engine/internals';
import { alphaRamp } from '../../../golden/lib/customer-art.js';
import { dotStats, meanAlpha } from '../../../golden/lib/print-checks.js';
import { canvas, disc } from '../scan/fixtures.js';

function patch(w: number, h: number, alpha: number, rgb: [number, number, number] = [40, 120, 200]): Raster {
  const r = canvas(w, h);
  for (let p = 0; p < w * h; p++) r.data.set([rgb[0], rgb[1], rgb[2], alpha], p * 4);
  return r;
}

function coverage(r: Raster): number {
  let on = 0;
  for (let i = 3; i < r.data.length; i += 4) if (r.data[i] === 255) on++;
  return on / (r.width * r.height);
}

/** Dot centres (components fully inside the image, away from the border). */
function dotCentres(r: Raster): Array<[number, number]> {
  const cc = labelRuns({ data: r.data, width: r.width, height: r.height, stride: 4, offset: 3, min: 255 }, 8);
  const out: Array<[number, number]> = [];
  for (let c = 0; c < cc.count; c++) if (!cc.touchesBorder[c]) out.push([cc.sumX[c]! / cc.area[c]!, cc.sumY[c]! / cc.area[c]!]);
  return out;
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

describe('halftone screen', () => {
  it('clippedDiscArea is pi r^2 inside the cell, 1 at the corners, continuous at r = 0.5', () => {
    expect(clippedDiscArea(0.25)).toBeCloseTo(Math.PI / 16, 10);
    expect(clippedDiscArea(0.5)).toBeCloseTo(Math.PI / 4, 10);
    expect(clippedDiscArea(0.5000001)).toBeCloseTo(Math.PI / 4, 5);
    expect(clippedDiscArea(Math.SQRT1_2)).toBe(1);
    expect(clippedDiscArea(0.6)).toBeGreaterThan(Math.PI / 4);
    expect(clippedDiscArea(0.6)).toBeLessThan(1);
  });

  it('outputs only alpha 0 or 255, keeps opaque pixels and dot colours', () => {
    const r = disc(400, 400, { r: 100, glowSigma: 20, rgb: [210, 30, 60] });
    const before = r.data.slice();
    halftoneRaster(r, { lpi: 35, dpi: 300 });
    let notBinary = 0;
    let opaqueChanged = 0;
    let wrongColour = 0;
    let dots = 0;
    for (let i = 0; i < r.data.length; i += 4) {
      const a = r.data[i + 3]!;
      if (a !== 0 && a !== 255) notBinary++;
      if (before[i + 3] === 255 && (r.data[i] !== before[i] || r.data[i + 1] !== before[i + 1] || r.data[i + 2] !== before[i + 2] || a !== 255)) opaqueChanged++;
      if (a === 255 && before[i + 3] !== 255) {
        dots++;
        if (r.data[i] !== 210 || r.data[i + 1] !== 30 || r.data[i + 2] !== 60) wrongColour++;
      }
    }
    expect(notBinary).toBe(0);
    expect(opaqueChanged).toBe(0);
    expect(wrongColour).toBe(0);
    expect(dots).toBeGreaterThan(1000);
  });

  it('the anti-aliased outline of solid art is thresholded at 50 %, not dotted (unless keepEdges is false)', () => {
    const src = disc(200, 200, { r: 70 });
    const kept = { ...src, data: src.data.slice() };
    const res = halftoneRaster(kept, { lpi: 35, dpi: 300 });
    expect(res.edgePixels).toBeGreaterThan(300);
    let mismatch = 0;
    for (let i = 3; i < src.data.length; i += 4) if ((kept.data[i] === 255) !== (src.data[i]! >= 128)) mismatch++;
    expect(mismatch).toBe(0);
    const dotted = { ...src, data: src.data.slice() };
    expect(halftoneRaster(dotted, { lpi: 35, dpi: 300, keepEdges: false }).edgePixels).toBe(0);
    let diff = 0;
    for (let i = 3; i < src.data.length; i += 4) if (dotted.data[i] !== kept.data[i]) diff++;
    expect(diff).toBeGreaterThan(20);
  });

  it('alpha below 3 % (too small a dot to print) makes no dot', () => {
    const faint = patch(200, 200, 7);
    halftoneRaster(faint, { lpi: 35, dpi: 300 });
    expect(coverage(faint)).toBe(0);
    const visible = patch(200, 200, 12);
    halftoneRaster(visible, { lpi: 35, dpi: 300 });
    expect(coverage(visible)).toBeGreaterThan(0.01);
  });

  it('a uniform 50 % alpha patch comes out 45-55 % covered; coverage follows alpha', () => {
    const half = patch(600, 600, 128);
    halftoneRaster(half, { lpi: 35, dpi: 300 });
    const c = coverage(half);
    expect(c).toBeGreaterThan(0.45);
    expect(c).toBeLessThan(0.55);
    for (const a of [26, 64, 102, 153, 191, 230]) {
      const p = patch(400, 400, a);
      halftoneRaster(p, { lpi: 25, dpi: 300 });
      expect(Math.abs(coverage(p) - a / 255)).toBeLessThan(0.04);
    }
  });

  it.each([
    [35, 300, 90],
    [15, 300, 90],
    [65, 600, 90],
    [45, 150, 64], // 4 px cells: 2x2 dots (the minimum at 150 DPI) that do not touch
  ])('dot pitch equals dpi / lpi (at least 4 px) within 5 percent or 0.3 px (lpi %i at %i DPI)', (lpi, dpi, alpha) => {
    // below 4 px the screen is coarsened to 4 px cells, with a warning
    const cell = Math.max(4, dpi / lpi);
    const size = Math.round(cell * 24);
    const r = patch(size, size, alpha); // separate round dots in every cell
    const res = halftoneRaster(r, { lpi, dpi });
    expect(res.cellPx).toBeCloseTo(cell, 6);
    expect(res.warnings.map((w) => w.code)).toEqual(dpi / lpi < 4 ? ['halftone_cell_too_small'] : []);
    const c = dotCentres(r);
    expect(c.length).toBeGreaterThan(100);
    // distance between neighbouring dot centres (first ring: 0.6-1.4 cells; dots are snapped to the
    // pixel grid, so each distance is off by up to a pixel, the median is not)
    const ring: number[] = [];
    for (let i = 0; i < c.length; i += 3) {
      for (let j = 0; j < c.length; j++) {
        const d = Math.hypot(c[i]![0] - c[j]![0], c[i]![1] - c[j]![1]);
        if (j !== i && d > 0.6 * cell && d < 1.4 * cell) ring.push(d);
      }
    }
    const pitch = median(ring);
    // 5 %, or 0.3 px on small cells (a dot centre moves by up to half a pixel when snapped)
    expect(Math.abs(pitch - cell)).toBeLessThan(Math.max(0.05 * cell, 0.3));
  });

  it('dots lie on the 45 degree rotated screen (cell centres)', () => {
    const dpi = 300;
    const lpi = 30;
    const cell = dpi / lpi;
    const r = patch(400, 400, 70);
    const res = halftoneRaster(r, { lpi, dpi });
    expect(res.angle).toBe(45);
    const th = (45 * Math.PI) / 180;
    let onGrid = 0;
    const c = dotCentres(r);
    for (const [x, y] of c) {
      const u = (x * Math.cos(th) + y * Math.sin(th)) / cell;
      const v = (-x * Math.sin(th) + y * Math.cos(th)) / cell;
      const du = Math.abs(u - Math.floor(u) - 0.5);
      const dv = Math.abs(v - Math.floor(v) - 0.5);
      if (du < 0.12 && dv < 0.12) onGrid++;
    }
    expect(onGrid / c.length).toBeGreaterThan(0.95);
    // and the dot rows are not axis-aligned: neighbours sit at 45 degrees
    const [x0, y0] = c[Math.floor(c.length / 2)]!;
    const near = c.filter(([x, y]) => {
      const d = Math.hypot(x - x0, y - y0);
      return d > 0 && d < cell * 1.2;
    });
    expect(near.length).toBeGreaterThanOrEqual(3);
    for (const [x, y] of near) {
      const ang = ((Math.atan2(y - y0, x - x0) * 180) / Math.PI + 360) % 90;
      expect(Math.min(Math.abs(ang - 45), 90 - Math.abs(ang - 45))).toBeLessThan(8);
    }
  });

  it('dots are round: a small dot fills its bounding circle, not a square', () => {
    const r = patch(300, 300, 40);
    halftoneRaster(r, { lpi: 15, dpi: 300 }); // 20 px cells, dots ~ 9 px across
    const cc = labelRuns({ data: r.data, width: 300, height: 300, stride: 4, offset: 3, min: 255 }, 8);
    const ratios: number[] = [];
    for (let c = 0; c < cc.count; c++) {
      if (cc.touchesBorder[c]) continue;
      const bw = cc.maxX[c]! - cc.minX[c]!;
      const bh = cc.maxY[c]! - cc.minY[c]!;
      ratios.push(cc.area[c]! / (bw * bh));
      expect(Math.abs(bw - bh)).toBeLessThanOrEqual(1);
    }
    // a disc fills pi/4 = 0.785 of its bounding square
    expect(Math.abs(median(ratios) - Math.PI / 4)).toBeLessThan(0.08);
  });
});

describe('halftone in physical units', () => {
  it('no dot is smaller than the minimum printable dot (0.25 mm: 3 px at 300 DPI); the ramp keeps its mean coverage within 2 %', () => {
    const ramp = alphaRamp(3000, 110);
    const mean = meanAlpha(ramp);
    const res = halftoneRaster(ramp, { lpi: 55, dpi: 300 });
    expect(minDotSidePx(300)).toBe(3);
    expect(res.minDotPx).toBe(9);
    const s = dotStats(ramp, 3, 0.6 * res.cellPx ** 2);
    expect(s.dots).toBeGreaterThan(1000);
    expect(s.onePx + s.twoPx + s.belowMin).toBe(0);
    expect(s.roundShare).toBeGreaterThan(0.95);
    expect(Math.abs(s.coverage - mean)).toBeLessThan(0.02);
  });

  it.each([150, 200, 300, 450, 600])('every lpi 15-65 at %i DPI: binary, dots at least the minimum, round, coverage within 2 %', (dpi) => {
    const minSide = minDotSidePx(dpi);
    expect(minSide).toBe(Math.max(2, Math.ceil((0.25 * dpi) / 25.4 - 0.05)));
    for (const lpi of [15, 25, 35, 45, 55, 65]) {
      for (const a of [15, 40, 90, 128, 200]) {
        const size = Math.min(1000, Math.round(Math.max(4, dpi / lpi) * 32)); // 8x8 cells average the dither
        const p = patch(size, size, a);
        const res = halftoneRaster(p, { lpi, dpi });
        expect(res.cellPx).toBeGreaterThanOrEqual(4);
        let semi = 0;
        for (let i = 3; i < p.data.length; i += 4) if (p.data[i] !== 0 && p.data[i] !== 255) semi++;
        expect(semi).toBe(0);
        const s = dotStats(p, minSide, 0.45 * res.cellPx ** 2);
        expect(s.belowMin, `${lpi} lpi at ${dpi} DPI, alpha ${a}`).toBe(0);
        if (a <= 90) expect(s.roundShare, `${lpi} lpi at ${dpi} DPI, alpha ${a}`).toBeGreaterThan(0.9);
        expect(Math.abs(s.coverage - a / 255), `${lpi} lpi at ${dpi} DPI, alpha ${a}`).toBeLessThan(0.02);
      }
    }
  });

  it('a cell under 4 px (55 lpi at 75 DPI = 1.36 px) is coarsened to 4 px with a warning naming the numbers', () => {
    const p = patch(300, 300, 100);
    const res = halftoneRaster(p, { lpi: 55, dpi: 75 });
    expect(res.cellPx).toBe(4);
    expect(res.lpi).toBeCloseTo(18.75, 6);
    expect(res.warnings).toHaveLength(1);
    expect(res.warnings[0]!.code).toBe('halftone_cell_too_small');
    expect(res.warnings[0]!.message).toMatch(/1\.36 px/);
    expect(halftoneRaster(patch(100, 100, 100), { lpi: 55, dpi: 300 }).warnings).toEqual([]);
  });

  it('dark tones get round holes at the cell corners, not slivers: every hole at least the minimum dot', () => {
    const p = patch(400, 400, 215);
    halftoneRaster(p, { lpi: 35, dpi: 300 });
    const holes = labelRuns({ data: p.data, width: 400, height: 400, stride: 4, offset: 3, min: 1, invert: true }, 4);
    let small = 0;
    let n = 0;
    for (let c = 0; c < holes.count; c++) {
      if (holes.touchesBorder[c]) continue;
      n++;
      if (Math.min(holes.maxX[c]! - holes.minX[c]!, holes.maxY[c]! - holes.minY[c]!) < 3) small++;
    }
    expect(n).toBeGreaterThan(100);
    expect(small).toBe(0);
  });
});
