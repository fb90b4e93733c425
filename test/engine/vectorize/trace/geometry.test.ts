// Geometry of the tracer on ASCII-art and synthetic bitmaps: corners stay corners, curves have none,
// holes survive with the opposite orientation, thin lines survive, pixel-exact mode is exact, output is
// deterministic.
import { describe, expect, it } from 'vitest';
import { traceLabelMap } from '@inkprep/engine/internals';
import { writeSvg } from '@inkprep/engine/internals';
import { TRANSPARENT, type PathSegments } from '@inkprep/engine/internals';
import { alphaIoU, ascii, BALANCED, blank, disc, fillsFor, flatten, rasterise, signedArea } from './helpers.js';

/** Number of corners: joints where the incoming and outgoing tangents differ by more than `deg` degrees. */
function corners(p: PathSegments, deg = 10): number {
  const segs = p.segs;
  const n = segs.length;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const a = segs[i]!;
    const b = segs[(i + 1) % n]!;
    const prevEnd = i === 0 ? p.start : [segs[i - 1]!.x, segs[i - 1]!.y];
    // tangent at the end of a, at the start of b
    const ax = a.kind === 'C' ? a.x - a.x2 : a.x - prevEnd[0]!;
    const ay = a.kind === 'C' ? a.y - a.y2 : a.y - prevEnd[1]!;
    const bx = b.kind === 'C' ? b.x1 - a.x : b.x - a.x;
    const by = b.kind === 'C' ? b.y1 - a.y : b.y - a.y;
    const ang = Math.abs(Math.atan2(ax * by - ay * bx, ax * bx + ay * by)) * (180 / Math.PI);
    if (ang > deg) count++;
  }
  return count;
}

describe('traceLabelMap geometry', () => {
  it('keeps a square as exactly four straight corners at the pixel corners', () => {
    const map = ascii(['..........', '.########.', '.########.', '.########.', '.########.', '.########.', '.########.', '..........'], 4);
    const { shapes } = traceLabelMap(map, BALANCED);
    expect(shapes).toHaveLength(1);
    const [sp] = shapes[0]!.subpaths;
    expect(shapes[0]!.subpaths).toHaveLength(1);
    expect(sp!.segs.every((s) => s.kind === 'L')).toBe(true);
    expect(sp!.segs).toHaveLength(4);
    expect(corners(sp!)).toBe(4);
    const pts = [sp!.start, ...sp!.segs.map((s) => [s.x, s.y])];
    for (const [x, y] of pts) {
      expect([4, 36]).toContain(Math.round(x! * 1000) / 1000);
      expect([4, 28]).toContain(Math.round(y! * 1000) / 1000);
    }
  });

  it('traces a circle as Béziers with no corners, within half a pixel of the true radius', () => {
    const map = blank(64, 64, 1);
    disc(map, 32, 32, 24, 0);
    const { shapes } = traceLabelMap(map, BALANCED);
    const sp = shapes[0]!.subpaths[0]!;
    expect(sp.segs.every((s) => s.kind === 'C')).toBe(true);
    expect(corners(sp, 12)).toBe(0);
    const { x, y } = flatten(sp);
    for (let i = 0; i < x.length; i++) expect(Math.abs(Math.hypot(x[i]! - 32, y[i]! - 32) - 24)).toBeLessThan(0.75);
    const pixels = map.labels.filter((l) => l !== TRANSPARENT).length;
    expect(Math.abs(signedArea(sp) - pixels)).toBeLessThan(0.01 * pixels);
  });

  it('keeps holes (the counter of an O) with the opposite orientation, painted empty under nonzero', () => {
    const map = blank(64, 64, 1);
    disc(map, 32, 32, 26, 0, 12);
    const { shapes } = traceLabelMap(map, BALANCED);
    expect(shapes).toHaveLength(1);
    const subs = shapes[0]!.subpaths;
    expect(subs).toHaveLength(2);
    const areas = subs.map(signedArea).sort((a, b) => a - b);
    expect(areas[0]).toBeLessThan(0);
    expect(areas[1]).toBeGreaterThan(0);
    const px = rasterise(writeSvg({ shapes }, fillsFor(map), { width: 64, height: 64 }).svg, 64);
    expect(px[(32 * 64 + 32) * 4 + 3]).toBe(0);
    expect(px[(32 * 64 + 8) * 4 + 3]).toBe(255);
    expect(alphaIoU(map, px)).toBeGreaterThan(0.97);
  });

  it('keeps letter counters of A, B, O (transparent holes stay empty) and a coloured counter fill', () => {
    const map = ascii([
      '......................',
      '.###..####...###..###.',
      '.#.#..#..#..#...#.#o#.',
      '.###..####..#...#.#o#.',
      '.#.#..#..#..#...#.#o#.',
      '.#.#..####...###..###.',
      '......................',
    ], 6);
    const { shapes } = traceLabelMap(map, BALANCED);
    const px = rasterise(writeSvg({ shapes }, fillsFor(map), { width: map.width, height: map.height }).svg, map.width);
    // centres of the counters of A, B (two), O: transparent
    for (const [cx, cy] of [[2, 2], [7.5, 2], [7.5, 4], [14.5, 3]] as const) {
      expect(px[(Math.floor(cy * 6 + 3) * map.width + Math.floor(cx * 6 + 3)) * 4 + 3]).toBe(0);
    }
    // the 'o' counter is painted with its own colour
    const i = (Math.floor(3 * 6 + 3) * map.width + Math.floor(19 * 6 + 3)) * 4;
    expect([px[i], px[i + 1], px[i + 2], px[i + 3]]).toEqual([map.palette[3], map.palette[4], map.palette[5], 255]);
    expect(alphaIoU(map, px)).toBeGreaterThan(0.97);
  });

  it('keeps a 1 px line at precise detail (full-strength coverage along its length)', () => {
    const map = blank(80, 40, 1);
    for (let x = 5; x < 75; x++) map.labels[20 * 80 + x] = 0; // horizontal 1 px line
    for (let y = 5; y < 35; y++) map.labels[y * 80 + 40] = 0; // vertical 1 px line crossing it
    for (let i = 0; i < 25; i++) map.labels[(8 + i) * 80 + 8 + i] = 0; // diagonal 1 px line
    const precise = { ...BALANCED, alphaMax: 0.6, optTolerance: 0.1 };
    const { shapes } = traceLabelMap(map, precise);
    const px = rasterise(writeSvg({ shapes }, fillsFor(map), { width: 80, height: 40 }).svg, 80);
    let weak = 0;
    let total = 0;
    for (let i = 0; i < map.labels.length; i++) {
      if (map.labels[i] === TRANSPARENT) continue;
      const x = i % 80;
      const y = Math.floor(i / 80);
      if (x < 8 || x > 71 || y < 8 || y > 31) continue; // away from the line ends
      total++;
      if (px[i * 4 + 3]! < 160) weak++;
    }
    expect(total).toBeGreaterThan(100);
    expect(weak / total).toBeLessThan(0.05);
  });

  it('smooth=false gives the pixel-exact staircase', () => {
    const map = blank(40, 40, 2);
    disc(map, 20, 20, 15, 0);
    disc(map, 20, 20, 7, 1);
    const { shapes } = traceLabelMap(map, { ...BALANCED, smooth: false });
    for (const s of shapes) {
      for (const sp of s.subpaths) {
        for (const seg of sp.segs) {
          expect(seg.kind).toBe('L');
          expect(Number.isInteger(seg.x) && Number.isInteger(seg.y)).toBe(true);
        }
      }
    }
    const px = rasterise(writeSvg({ shapes }, fillsFor(map), { width: 40, height: 40 }).svg, 40);
    for (let i = 0; i < map.labels.length; i++) {
      const l = map.labels[i]!;
      expect(px[i * 4 + 3]).toBe(l === TRANSPARENT ? 0 : 255);
      if (l !== TRANSPARENT) expect(px[i * 4]).toBe(map.palette[l * 3]);
    }
  });

  it('drops paths no larger than turdSize', () => {
    const map = ascii(['........', '.####...', '.####.#.', '.####...', '........'], 2);
    expect(traceLabelMap(map, BALANCED).shapes[0]!.subpaths).toHaveLength(2);
    expect(traceLabelMap(map, { ...BALANCED, turdSize: 4 }).shapes[0]!.subpaths).toHaveLength(1);
  });

  it('never traces the transparent label and returns nothing for an empty map', () => {
    expect(traceLabelMap(blank(16, 16, 3), BALANCED).shapes).toEqual([]);
    expect(traceLabelMap(blank(16, 16, 3), { ...BALANCED, shapeStyle: 'cutout' }).shapes).toEqual([]);
  });

  it('is deterministic', () => {
    const map = blank(64, 64, 3);
    disc(map, 30, 30, 25, 0);
    disc(map, 36, 28, 12, 1, 5);
    disc(map, 20, 40, 9, 2);
    for (const shapeStyle of ['stacked', 'cutout'] as const) {
      const a = writeSvg(traceLabelMap(map, { ...BALANCED, shapeStyle }), fillsFor(map), { width: 64, height: 64 }).svg;
      const b = writeSvg(traceLabelMap(map, { ...BALANCED, shapeStyle }), fillsFor(map), { width: 64, height: 64 }).svg;
      expect(a).toBe(b);
    }
  });

  it('paints stacked layers back to front by area, each covering the layers above it', () => {
    const map = blank(48, 48, 2);
    disc(map, 24, 24, 20, 0);
    disc(map, 24, 24, 8, 1);
    const { shapes } = traceLabelMap(map, BALANCED);
    expect(shapes.map((s) => s.label)).toEqual([0, 1]);
    // the back layer is a full disc (no hole where the front disc sits)
    expect(shapes[0]!.subpaths).toHaveLength(1);
  });

  it('drops islands of higher colours from a lower layer (an eye not touching that colour) and keeps pixels right', () => {
    const map = blank(80, 60, 3);
    disc(map, 40, 30, 28, 0); // A: big background disc
    disc(map, 30, 30, 14, 1); // B: face inside A
    disc(map, 30, 30, 4, 2); // C: eye inside B
    disc(map, 60, 30, 4, 2); // C: eye on A, not touching B
    const { shapes } = traceLabelMap(map, BALANCED);
    expect(shapes.map((s) => s.label)).toEqual([0, 1, 2]);
    // layer B = B plus the eye inside it; the eye on A is not repeated in B's layer
    expect(shapes[1]!.subpaths).toHaveLength(1);
    expect(shapes[2]!.subpaths).toHaveLength(2);
    const px = rasterise(writeSvg({ shapes }, fillsFor(map), { width: 80, height: 60 }).svg, 80);
    for (const [x, y, l] of [[60, 30, 2], [30, 30, 2], [38, 30, 1], [52, 30, 0]] as const) {
      const i = (y * 80 + x) * 4;
      expect([px[i], px[i + 1], px[i + 2], px[i + 3]]).toEqual([map.palette[l * 3], map.palette[l * 3 + 1], map.palette[l * 3 + 2], 255]);
    }
  });
});
