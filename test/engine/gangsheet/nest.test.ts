// The nester through the engine's internals: when the time budget is spent before the first copy, every copy
// still gets a place (the fast path, rows below the rest), none overlapping another's grown outline and none
// outside the sheet; with time, the search path places them with no fast placement.
import { describe, expect, it } from 'vitest';
import { itemShape, nest, nestArea, turnShape, turnsOf, type NestCopy, type NestSpot } from '@inkprep/engine/internals';
import type { Raster } from '@inkprep/engine';

/** A `w` x `h` px raster, opaque where `inside`. */
function raster(w: number, h: number, inside: (x: number, y: number) => boolean): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (inside(x, y)) data.set([10, 20, 30, 255], (y * w + x) * 4);
  return { width: w, height: h, data };
}

/** Marks every spot's outline on its sheet's grid; throws on an overlap or a cell outside the area. */
function checkNoOverlap(spots: readonly NestSpot[], cols: number, rows: number): void {
  const sheets = new Map<number, Uint8Array>();
  for (const s of spots) {
    const occ = sheets.get(s.sheet) ?? new Uint8Array(cols * rows);
    sheets.set(s.sheet, occ);
    const { rowStart, runs } = s.shape;
    for (let r = 0; r < s.shape.h; r++) {
      for (let k = rowStart[r]!; k < rowStart[r + 1]!; k++) {
        for (let c = runs[2 * k]!; c < runs[2 * k + 1]!; c++) {
          const x = s.x + c, y = s.y + r;
          if (x < 0 || y < 0 || x >= cols || y >= rows) throw new Error(`item ${s.item} copy ${s.copy} outside the sheet`);
          if (occ[y * cols + x]) throw new Error(`item ${s.item} copy ${s.copy} overlaps`);
          occ[y * cols + x] = 1;
        }
      }
    }
  }
}

describe('gangsheet nesting', () => {
  const disc = itemShape(raster(200, 200, (x, y) => (x - 100) ** 2 + (y - 100) ** 2 <= 100 ** 2), 2, 2, 0.125);
  const bar = itemShape(raster(300, 60, () => true), 5, 1, 0.125);
  const copies: NestCopy[] = [];
  for (let c = 0; c < 10; c++) copies.push({ item: 0, copy: c, shapes: turnsOf('90').map((t) => turnShape(bar, t)) });
  for (let c = 0; c < 25; c++) copies.push({ item: 1, copy: c, shapes: turnsOf('any').map((t) => turnShape(disc, t)) });
  const area = nestArea(11, 12, 0.25, 0.0625);

  it('a budget already spent places every copy by the fast path, without overlaps, over several sheets if need be', () => {
    const spots = nest(copies, area, -1);
    expect(spots.map((s) => `${s.item}:${s.copy}`)).toEqual(copies.map((c) => `${c.item}:${c.copy}`));
    expect(spots.every((s) => s.fast)).toBe(true);
    checkNoOverlap(spots, area.cols, area.rows);
  });

  it('with time, the search places every copy (none by the fast path) and the layout is shorter', () => {
    const spots = nest(copies, area, 60_000);
    expect(spots.some((s) => s.fast)).toBe(false);
    checkNoOverlap(spots, area.cols, area.rows);
    const fast = nest(copies, area, -1);
    const rowsUsed = (list: NestSpot[]) => list.reduce((m, s) => Math.max(m, s.sheet * area.rows + s.y + s.shape.h), 0);
    expect(rowsUsed(spots)).toBeLessThan(rowsUsed(fast));
  });
});
