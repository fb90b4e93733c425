// Run-based connected-component labelling, trimming and the alpha plane, on ASCII-art masks.
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { alphaPlane, forEachRunOf, labelComponents, labelRuns, opaqueBounds, trimTransparent } from '@inkprep/engine/internals';

/** '#' = on (255), '+' = 100, '.' = off. */
function mask(rows: string[]): { data: Uint8Array; width: number; height: number } {
  const width = rows[0]!.length;
  const data = new Uint8Array(width * rows.length);
  rows.forEach((r, y) => [...r].forEach((c, x) => (data[y * width + x] = c === '#' ? 255 : c === '+' ? 100 : 0)));
  return { data, width, height: rows.length };
}

function raster(rows: string[]): Raster {
  const m = mask(rows);
  const data = new Uint8ClampedArray(m.data.length * 4);
  m.data.forEach((a, p) => data.set([10, 20, 30, a], p * 4));
  return { width: m.width, height: m.height, data };
}

describe('labelRuns', () => {
  const art = [
    '##....#.',
    '##...#..',
    '....#...',
    '........',
    '#..####.',
    '...#..#.',
    '...####.',
  ];

  it('8-connectivity joins diagonals; 4-connectivity does not', () => {
    const m = mask(art);
    const c8 = labelRuns(m, 8);
    expect(c8.count).toBe(4); // square, diagonal line, single pixel, ring
    expect([...c8.area].sort((a, b) => a - b)).toEqual([1, 3, 4, 10]);
    const c4 = labelRuns(m, 4);
    expect(c4.count).toBe(6); // the diagonal splits into 3
  });

  it('bounding boxes, centroids and border contact', () => {
    const c = labelRuns(mask(art));
    const ring = [...c.area].indexOf(10);
    expect([c.minX[ring], c.minY[ring], c.maxX[ring], c.maxY[ring]]).toEqual([3, 4, 7, 7]);
    expect(c.sumX[ring]! / c.area[ring]!).toBeCloseTo(5, 5);
    expect(c.sumY[ring]! / c.area[ring]!).toBeCloseTo(5.5, 5);
    expect(c.touchesBorder[ring]).toBe(1); // bottom row
    const square = [...c.area].indexOf(4);
    expect(c.touchesBorder[square]).toBe(1);
  });

  it('threshold, stride/offset over RGBA and inverted masks (holes)', () => {
    const r = raster(['#+#', '+.+', '###']);
    expect(labelRuns({ data: r.data, width: 3, height: 3, stride: 4, offset: 3, min: 1 }).count).toBe(1);
    const solid = labelRuns({ data: r.data, width: 3, height: 3, stride: 4, offset: 3, min: 200 });
    expect(solid.count).toBe(3); // two corners and the bottom row: the '+' pixels no longer connect them
    expect([...solid.area].reduce((a, b) => a + b)).toBe(5);
    const holes = labelRuns({ data: r.data, width: 3, height: 3, stride: 4, offset: 3, min: 1, invert: true }, 4);
    expect(holes.count).toBe(1);
    expect(holes.touchesBorder[0]).toBe(0);
  });

  it('the word-skipping fast path agrees with the generic path on a wide plane', () => {
    const w = 103;
    const h = 40;
    const data = new Uint8Array(w * h);
    let seed = 3;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      data[i] = (seed >>> 16) % 7 === 0 ? 0 : (seed >>> 16) % 5 === 0 ? 128 : (seed >>> 8) % 3 === 0 ? 0 : 255;
    }
    for (const [min, invert] of [[1, false], [1, true], [128, false], [128, true], [255, false]] as const) {
      const fast = labelRuns({ data, width: w, height: h, min, invert });
      const slow = labelRuns({ data: Array.from(data), width: w, height: h, min, invert });
      expect(fast.count).toBe(slow.count);
      expect([...fast.area]).toEqual([...slow.area]);
      expect([...fast.x0]).toEqual([...slow.x0]);
    }
  });

  it('labelComponents paints labels; forEachRunOf visits the chosen components', () => {
    const m = mask(['#.#', '#..', '..#']);
    const { labels, cc } = labelComponents(m, 4);
    expect(cc.count).toBe(3);
    expect(Array.from(labels)).toEqual([1, 0, 2, 1, 0, 0, 0, 0, 3]);
    const seen: Array<[number, number]> = [];
    forEachRunOf(cc, (c) => cc.area[c] === 2, (s, e) => seen.push([s, e]));
    expect(seen).toEqual([[0, 1], [3, 4]]);
  });
});

describe('trim and alpha plane', () => {
  it('opaqueBounds and trimTransparent crop to the visible pixels', () => {
    const r = raster(['.....', '..+..', '..##.', '.....']);
    expect(opaqueBounds(r)).toEqual({ x: 2, y: 1, width: 2, height: 2 });
    expect(opaqueBounds(r, 200)).toEqual({ x: 2, y: 2, width: 2, height: 1 });
    const t = trimTransparent(r);
    expect([t.raster.width, t.raster.height]).toEqual([2, 2]);
    expect(Array.from(alphaPlane(t.raster))).toEqual([100, 0, 255, 255]);
    const empty = raster(['...']);
    expect(opaqueBounds(empty)).toBeNull();
    expect(trimTransparent(empty).raster).toBe(empty);
  });
});
