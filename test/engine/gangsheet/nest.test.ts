// The nester through the engine's internals: when the wall-clock cap is spent before the first copy, every copy
// still gets a place (the fast path, rows below the rest), none overlapping another's grown outline and none
// outside the sheet; with time, the search places them with no fast placement; the work budget, not the
// clock, decides the layout (the same layout with any cap that does not cut the search, and more work never
// a longer layout); the contact rule beats bottom-left first fit where first fit leaves film trapped.
import { describe, expect, it } from 'vitest';
import { BOTTOM_LEFT, itemShape, nest, nestArea, PLACEMENT, turnShape, turnsOf, type NestGroup, type NestSpot, type TurnedShape } from '@inkprep/engine/internals';
import type { Raster } from '@inkprep/engine';

/** A `w` x `h` px raster, opaque where `inside`. */
function raster(w: number, h: number, inside: (x: number, y: number) => boolean): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (inside(x, y)) data.set([10, 20, 30, 255], (y * w + x) * 4);
  return { width: w, height: h, data };
}

/** An outline drawn in ASCII ('#' a taken cell), unturned. */
function drawn(art: readonly string[]): TurnedShape {
  const w = Math.max(...art.map((r) => r.length));
  const rowStart = new Int32Array(art.length + 1);
  const runs: number[] = [];
  art.forEach((row, r) => {
    rowStart[r] = runs.length / 2;
    for (let c = 0; c < w; c++) {
      if (row[c] !== '#') continue;
      const a = c;
      while (row[c] === '#') c++;
      runs.push(a, c);
    }
  });
  rowStart[art.length] = runs.length / 2;
  return { turn: 0, w, h: art.length, rowStart, runs: Int32Array.from(runs), artX: 0, artY: 0, boxWidthIn: w, boxHeightIn: art.length, inkBottom: art.length };
}

/** The sheet's used rows as ASCII, each copy a letter in placement order. */
function picture(spots: readonly NestSpot[], cols: number): string[] {
  const rows = Math.max(...spots.map((s) => s.y + s.shape.h));
  const g = Array.from({ length: rows }, () => Array<string>(cols).fill('.'));
  spots.forEach((s, i) => {
    for (let r = 0; r < s.shape.h; r++) {
      for (let k = s.shape.rowStart[r]!; k < s.shape.rowStart[r + 1]!; k++) {
        for (let c = s.shape.runs[2 * k]!; c < s.shape.runs[2 * k + 1]!; c++) g[s.y + r]![s.x + c] = String.fromCharCode(97 + i);
      }
    }
  });
  return g.map((r) => r.join(''));
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
  // an L (a slanted, concave outline): its turns interlock
  const ell = itemShape(raster(240, 180, (x, y) => x < 80 || y > 120), 4, 3, 0.125);
  const groups: NestGroup[] = [
    { item: 0, quantity: 10, shapes: turnsOf('90').map((t) => turnShape(bar, t)), area: bar.grownSqIn },
    { item: 1, quantity: 25, shapes: turnsOf('any').map((t) => turnShape(disc, t)), area: disc.grownSqIn },
    { item: 2, quantity: 6, shapes: turnsOf('any').map((t) => turnShape(ell, t)), area: ell.grownSqIn },
  ];
  const copies = groups.flatMap((g) => Array.from({ length: g.quantity }, (_, c) => `${g.item}:${c}`));
  const area = nestArea(11, 12, 0.25, 0.0625);
  const rowsUsed = (list: readonly NestSpot[]) => list.reduce((m, s) => Math.max(m, s.sheet * area.rows + s.y + s.shape.h), 0);
  const layoutOf = (list: readonly NestSpot[]) => list.map((s) => `${s.item}:${s.copy}@${s.sheet}:${s.x},${s.y},${s.shape.turn}`);

  it('a cap already spent places every copy by the fast path, without overlaps, over several sheets if need be', () => {
    const r = nest(groups, area, { capMs: -1, workBudget: 1e9 });
    expect(r.spots.map((s) => `${s.item}:${s.copy}`)).toEqual(copies);
    expect(r.spots.every((s) => s.fast)).toBe(true);
    expect(r.capped).toBe(true);
    expect(new Set(r.spots.map((s) => s.sheet)).size).toBeGreaterThan(1);
    checkNoOverlap(r.spots, area.cols, area.rows);
  });

  it('with time, the search places every copy once (none by the fast path), and the layout is shorter', () => {
    const r = nest(groups, area, { capMs: 600_000, workBudget: 2e6 });
    expect(r.capped).toBe(false);
    expect(r.spots.some((s) => s.fast)).toBe(false);
    expect(r.runs).toBeGreaterThan(1);
    expect(r.spots.map((s) => `${s.item}:${s.copy}`).sort()).toEqual([...copies].sort());
    checkNoOverlap(r.spots, area.cols, area.rows);
    const fast = nest(groups, area, { capMs: -1, workBudget: 1e9 });
    expect(rowsUsed(r.spots)).toBeLessThan(rowsUsed(fast.spots));
  });

  it('the work budget decides the layout: the same with any cap that does not cut the search, never longer with more work', () => {
    const a = nest(groups, area, { capMs: 600_000, workBudget: 1e6 });
    const b = nest(groups, area, { capMs: 3_600_000, workBudget: 1e6 });
    expect(a.capped || b.capped).toBe(false);
    expect(layoutOf(b.spots)).toEqual(layoutOf(a.spots));
    expect(b.work).toBe(a.work);
    expect(b.runs).toBe(a.runs);
    // no work beyond the first layout: the first layout, which the search then only improves on
    const first = nest(groups, area, { capMs: 600_000, workBudget: 0 });
    expect(first.runs).toBe(1);
    const more = nest(groups, area, { capMs: 600_000, workBudget: 4e6 });
    expect(rowsUsed(a.spots)).toBeLessThanOrEqual(rowsUsed(first.spots));
    expect(rowsUsed(more.spots)).toBeLessThanOrEqual(rowsUsed(a.spots));
    checkNoOverlap(more.spots, area.cols, area.rows);
  });

  it('placement by contact: a copy one row lower, flush with the wall, leaves room that bottom-left first fit traps', () => {
    // one layout (no search, no compaction), one turn: the order is the largest outline first
    const post = drawn(['.#..', '####', '####', '####', '####']);
    const boot = drawn(['###', '###', '###', '###', '#..']);
    const bar = drawn(['##', '##', '##', '##', '##']);
    const small: NestGroup[] = [
      { item: 0, quantity: 2, shapes: [post], area: 17 },
      { item: 1, quantity: 2, shapes: [boot], area: 13 },
      { item: 2, quantity: 2, shapes: [bar], area: 10 },
    ];
    const sheet = { cols: 5, rows: 60 };
    const limits = { capMs: 600_000, workBudget: 0 };
    const firstFit = nest(small, sheet, limits, BOTTOM_LEFT);
    const byContact = nest(small, sheet, limits, PLACEMENT);
    // bottom-left hangs the second boot (d) under the first one's toe, at its first fit, and the bars (e, f) go below
    expect(picture(firstFit.spots, 5).slice(10)).toEqual([
      'ccc..', 'ccc..', 'ccc..', 'ccc..', 'cddd.', '.ddd.', '.ddd.', '.ddd.', '.dee.', 'ffee.', 'ffee.', 'ffee.', 'ffee.', 'ff...',
    ]);
    // contact puts it a row lower against the wall and the first boot, and a bar fills the column beside each
    expect(picture(byContact.spots, 5).slice(10)).toEqual([
      'cccee', 'cccee', 'cccee', 'cccee', 'c..ee', 'dddff', 'dddff', 'dddff', 'dddff', 'd..ff',
    ]);
    expect(picture(byContact.spots, 5).length).toBe(20);
    expect(picture(firstFit.spots, 5).length).toBe(24);
    checkNoOverlap(byContact.spots, sheet.cols, sheet.rows);
    // the contact counts and the extra candidates are work: a layout by contact costs more probes
    expect(byContact.work).toBeGreaterThan(firstFit.work);
  });
});
