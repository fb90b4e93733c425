// Alpha analysis units: boundary length by total variation (rectangle perimeter, disc circumference,
// canvas edge), seams between shapes, the matte estimate of the fringe test (and its refusal of
// two-colour blends), and threshold decontamination without an opaque neighbour (un-mixing the matte).
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { alphaStats, detectFringe, thresholdAlpha } from '@inkprep/engine/internals';
import { canvas, disc } from '../scan/fixtures.js';

function rect(r: Raster, x0: number, y0: number, x1: number, y1: number, rgba: number[]): void {
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) r.data.set(rgba, (y * r.width + x) * 4);
}

describe('alphaStats', () => {
  it('edge length of an opaque rectangle is its perimeter; no semi pixels, rim 0', () => {
    const r = canvas(100, 80);
    rect(r, 10, 20, 60, 50, [0, 0, 0, 255]);
    const s = alphaStats(r);
    // forward differences: one corner pixel steps in x and y at once and counts sqrt(2) instead of 2
    expect(Math.abs(s.edgeLength - 2 * (50 + 30))).toBeLessThan(1);
    expect(s.semi).toBe(0);
    expect(s.softRimPx).toBe(0);
    expect(s.opaque).toBe(50 * 30);
    expect(s.ink).toBe(50 * 30);
    expect(s.stairCorners).toBeLessThanOrEqual(4);
  });

  it('edge length of an anti-aliased disc is its circumference within 10 % (1-px ramps sampled on the grid)', () => {
    const s = alphaStats(disc(300, 300, { r: 100 }));
    expect(Math.abs(s.edgeLength - 2 * Math.PI * 100) / (2 * Math.PI * 100)).toBeLessThan(0.1);
    // a wide (10 px) ramp is measured almost exactly
    const wide = alphaStats(disc(300, 300, { r: 100, rimPx: 10 }));
    expect(Math.abs(wide.edgeLength - 2 * Math.PI * 100) / (2 * Math.PI * 100)).toBeLessThan(0.02);
    expect(wide.softRimPx).toBeGreaterThan(9);
    expect(wide.softRimPx).toBeLessThan(11);
    expect(s.softRimPx).toBeGreaterThan(0.7);
    expect(s.softRimPx).toBeLessThan(1.2);
  });

  it('art cut by the canvas edge has its outline there', () => {
    const r = canvas(50, 40);
    rect(r, 0, 0, 50, 40, [0, 0, 0, 255]);
    expect(alphaStats(r).edgeLength).toBeCloseTo(2 * (50 + 40), 5);
  });

  it('1-px semi-transparent seams between opaque shapes are counted apart, not as rim', () => {
    const r = canvas(60, 40);
    rect(r, 5, 5, 30, 35, [200, 0, 0, 255]);
    rect(r, 30, 5, 31, 35, [220, 120, 120, 200]); // seam
    rect(r, 31, 5, 55, 35, [255, 255, 255, 255]);
    const s = alphaStats(r);
    expect(s.seam).toBe(30);
    expect(s.semi).toBe(30);
    expect(s.softRimPx).toBe(0);
  });
});

describe('detectFringe', () => {
  it('estimates a black matte', () => {
    const f = detectFringe(disc(300, 300, { r: 100, rimPx: 2.5, matte: [0, 0, 0], rgb: [255, 200, 40] }));
    expect(f.hasHalo).toBe(true);
    expect(Math.max(...f.matte!)).toBeLessThan(30);
    expect(f.matteSpread).toBeLessThan(48);
  });

  it('a blend of two neighbouring art colours is not a matte', () => {
    const r = canvas(80, 60);
    // red and blue halves with a semi-transparent outer edge whose colour is their blend
    rect(r, 10, 10, 40, 50, [220, 0, 0, 255]);
    rect(r, 40, 10, 70, 50, [0, 0, 220, 255]);
    for (let y = 10; y < 50; y++) r.data.set([110, 0, 110, 128], (y * 80 + 40) * 4);
    expect(detectFringe(r).hasHalo).toBe(false);
  });
});

describe('thresholdAlpha', () => {
  it('un-mixes the matte where no opaque art is near (a thin semi-transparent line)', () => {
    const r = disc(200, 200, { r: 60, rimPx: 2.5, matte: [255, 255, 255], rgb: [20, 60, 200] });
    // a 1-px line of 60 % alpha far from the disc, its colour mixed with the white matte
    for (let x = 10; x < 190; x++) r.data.set([Math.round(0.6 * 20 + 0.4 * 255), Math.round(0.6 * 60 + 0.4 * 255), Math.round(0.6 * 200 + 0.4 * 255), 153], (5 * 200 + x) * 4);
    const t = thresholdAlpha(r, 144);
    expect(t.matte).not.toBeNull();
    const i = (5 * 200 + 100) * 4;
    expect(r.data[i + 3]).toBe(255);
    expect(Math.hypot(r.data[i]! - 20, r.data[i + 1]! - 60, r.data[i + 2]! - 200)).toBeLessThan(20);
  });

  it('leaves an image without semi-transparent pixels untouched', () => {
    const r = canvas(20, 20);
    rect(r, 5, 5, 15, 15, [1, 2, 3, 255]);
    const before = r.data.slice();
    expect(thresholdAlpha(r, 144)).toEqual({ removed: 0, kept: 0, recoloured: 0, matte: null });
    expect(Buffer.compare(Buffer.from(r.data), Buffer.from(before))).toBe(0);
  });
});
