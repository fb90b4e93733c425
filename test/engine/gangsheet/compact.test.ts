// Compaction of a sheet by overlap minimisation: the overlap field's sums against a cell-by-cell count; from a
// layout with room to spare (outlines drawn as ASCII art, stacked in a column), compaction finds a shorter
// one with no two outlines sharing a cell and nothing outside the strip, every copy once; the same input and
// budget give the same layout; no budget, no change; and through the nester, compaction never lengthens the
// bottom-left layout it starts from.
import { describe, expect, it } from 'vitest';
import { compact, depthOf, itemShape, nest, nestArea, OverlapField, turnShape, turnsOf, type CompactPiece, type ItemShape, type NestGroup, type TurnedShape } from '@inkprep/engine/internals';
import type { Raster } from '@inkprep/engine';

/** A fixed pseudo-random sequence (the tests' own). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** An outline from ASCII art ('#' = cell), with its turns. */
function outline(art: string, turns: 'none' | 'any' = 'any'): TurnedShape[] {
  const lines = art.trim().split('\n').map((l) => l.trim());
  const w = Math.max(...lines.map((l) => l.length));
  const h = lines.length;
  const cells = new Uint8Array(w * h);
  lines.forEach((l, y) => [...l].forEach((ch, x) => { if (ch === '#') cells[y * w + x] = 1; }));
  const shape: ItemShape = { w, h, cells, pad: 0, artX: 0, artY: 0, ink: [0, 0, w, h], widthIn: w / 20, heightIn: h / 20, inkSqIn: 0, grownSqIn: 0 };
  return turnsOf(turns).map((t) => turnShape(shape, t));
}

/** Every piece's cells on a grid: throws on a shared cell or one outside `cols` x `rows`. */
function checkLayout(ps: readonly CompactPiece[], cols: number, rows: number): void {
  const occ = new Uint8Array(cols * rows);
  ps.forEach((p, i) => {
    const s = p.shapes[p.turn]!;
    for (let r = 0; r < s.h; r++) {
      for (let k = s.rowStart[r]!; k < s.rowStart[r + 1]!; k++) {
        for (let c = s.runs[2 * k]!; c < s.runs[2 * k + 1]!; c++) {
          const x = p.x + c, y = p.y + r;
          if (x < 0 || y < 0 || x >= cols || y >= rows) throw new Error(`piece ${i} outside the strip`);
          if (occ[y * cols + x]) throw new Error(`piece ${i} overlaps another`);
          occ[y * cols + x] = 1;
        }
      }
    }
  });
}

const rowsOf = (ps: readonly CompactPiece[]) => Math.max(...ps.map((p) => p.y + p.shapes[p.turn]!.h));
const layoutOf = (ps: readonly CompactPiece[]) => ps.map((p) => `${p.turn}:${p.x},${p.y}`).join(' ');

describe('overlap field', () => {
  it('gives the same weighted sums as counting cell by cell, as outlines come and go', () => {
    const rand = lcg(5);
    const blob = (w: number, h: number): TurnedShape => {
      const rowStart = new Int32Array(h + 1);
      const runs: number[] = [];
      for (let r = 0; r < h; r++) {
        rowStart[r] = runs.length / 2;
        for (let c = Math.floor(rand() * 6); c < w; c += 2 + Math.floor(rand() * 4)) {
          const b = Math.min(w, c + 1 + Math.floor(rand() * 40));
          runs.push(c, b);
          c = b;
        }
      }
      rowStart[h] = runs.length / 2;
      return { turn: 0, w, h, rowStart, runs: Int32Array.from(runs), artX: 0, artY: 0, boxWidthIn: 1, boxHeightIn: 1, inkBottom: h };
    };
    const cols = 150, rows = 60;
    const field = new OverlapField(cols, rows);
    field.reset(rows);
    const ref = new Float64Array(cols * rows);
    const paint = (s: TurnedShape, x: number, y: number, v: number) => {
      const { depth } = depthOf(s);
      for (let r = 0; r < s.h; r++) {
        for (let k = s.rowStart[r]!; k < s.rowStart[r + 1]!; k++) {
          for (let c = s.runs[2 * k]!; c < s.runs[2 * k + 1]!; c++) ref[(y + r) * cols + x + c] += v * depth[r * s.w + c]!;
        }
      }
    };
    const placed: [TurnedShape, number, number, number][] = [];
    for (let it = 0; it < 300; it++) {
      if (placed.length > 5 && rand() < 0.4) {
        const [s, x, y, w] = placed.splice(Math.floor(rand() * placed.length), 1)[0]!;
        field.add(s, x, y, -w);
        paint(s, x, y, -w);
      } else {
        const s = blob(5 + Math.floor(rand() * 140), 3 + Math.floor(rand() * 20));
        const x = Math.floor(rand() * (cols - s.w + 1)), y = Math.floor(rand() * (rows - s.h + 1)), w = 1 + Math.floor(rand() * 50);
        field.add(s, x, y, w);
        paint(s, x, y, w);
        placed.push([s, x, y, w]);
      }
      const q = blob(5 + Math.floor(rand() * 140), 3 + Math.floor(rand() * 20));
      const x = Math.floor(rand() * (cols - q.w + 1)), y = Math.floor(rand() * (rows - q.h + 1));
      let want = 0;
      for (let r = 0; r < q.h; r++) {
        for (let k = q.rowStart[r]!; k < q.rowStart[r + 1]!; k++) for (let c = q.runs[2 * k]!; c < q.runs[2 * k + 1]!; c++) want += ref[(y + r) * cols + x + c]!;
      }
      expect(field.cost(q, x, y, Infinity)).toBe(want);
    }
    // everything taken away: no overlap left, and the sums back to zero
    for (const [s, x, y, w] of placed) field.add(s, x, y, -w);
    expect(field.overlap).toBe(0);
    expect(field.cost(blob(cols, rows), 0, 0, Infinity)).toBe(0);
  });
});

describe('compaction', () => {
  // an L: two of them, one turned a half, make a 6 x 6 block; stacked upright they take 6 rows each
  const ell = outline(`
    ##....
    ##....
    ##....
    ##....
    ######
    ######`);
  const bar = outline(`
    ########
    ########`);
  const cols = 12;
  // a layout with room to spare: every copy upright, one above the other in a column at the left
  const stack = (): CompactPiece[] => {
    const ps: CompactPiece[] = [];
    let y = 0;
    for (const shapes of [ell, ell, ell, ell, bar, bar, ell, ell]) {
      ps.push({ shapes, turn: 0, x: 0, y });
      y += shapes[0]!.h;
    }
    return ps;
  };

  it('finds a shorter layout than the stack it starts from, with no shared cell and nothing outside, every copy once', () => {
    const start = stack();
    checkLayout(start, cols, rowsOf(start));
    const r = compact(start, cols, 2e6, lcg(1), performance.now() + 600_000);
    expect(r.capped).toBe(false);
    expect(r.pieces).toHaveLength(start.length);
    r.pieces.forEach((p, i) => expect(p.shapes).toBe(start[i]!.shapes));
    checkLayout(r.pieces, cols, r.rows);
    expect(r.rows).toBe(rowsOf(r.pieces));
    // 6 Ls and 2 bars = 6 x 20 + 2 x 16 = 152 cells on a 12 wide strip: at least 13 rows; the stack is 40
    expect(rowsOf(start)).toBe(40);
    expect(r.rows).toBeLessThanOrEqual(16);
    expect(r.shrinks).toBeGreaterThan(0);
  });

  it('is deterministic: the same start, budget and sequence give the same layout; no budget, no change', () => {
    const a = compact(stack(), cols, 5e5, lcg(7), performance.now() + 600_000);
    const b = compact(stack(), cols, 5e5, lcg(7), performance.now() + 3_600_000);
    expect(a.capped || b.capped).toBe(false);
    expect(layoutOf(b.pieces)).toBe(layoutOf(a.pieces));
    expect(b.work).toBe(a.work);
    const none = compact(stack(), cols, 0, lcg(7), performance.now() + 600_000);
    expect(layoutOf(none.pieces)).toBe(layoutOf(stack()));
    expect(none.rows).toBe(40);
  });

  it('a cap already spent returns the start unchanged, saying so', () => {
    const r = compact(stack(), cols, 5e5, lcg(7), performance.now() - 1);
    expect(r.capped).toBe(true);
    expect(layoutOf(r.pieces)).toBe(layoutOf(stack()));
  });
});

describe('compaction in the nester', () => {
  function raster(w: number, h: number, inside: (x: number, y: number) => boolean): Raster {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (inside(x, y)) data.set([10, 20, 30, 255], (y * w + x) * 4);
    return { width: w, height: h, data };
  }
  const ell = itemShape(raster(240, 180, (x, y) => x < 80 || y > 120), 4, 3, 0.125);
  const wedge = itemShape(raster(200, 160, (x, y) => y >= (x * 160) / 200), 2.5, 2, 0.125);
  const groups: NestGroup[] = [
    { item: 0, quantity: 7, shapes: turnsOf('any').map((t) => turnShape(ell, t)), area: ell.grownSqIn },
    { item: 1, quantity: 9, shapes: turnsOf('any').map((t) => turnShape(wedge, t)), area: wedge.grownSqIn },
  ];

  it('never makes the last sheet longer than the bottom-left layout it starts from, and keeps earlier sheets', () => {
    // a 6 in long sheet: two sheets, the second compacted
    const area = nestArea(11, 6, 0.25, 0.0625);
    const r = nest(groups, area, { capMs: 600_000, workBudget: 2e5 });
    expect(r.capped).toBe(false);
    const c = r.compaction!;
    expect(c.rowsAfter).toBeLessThanOrEqual(c.rowsBefore);
    const sheets = Math.max(...r.spots.map((s) => s.sheet)) + 1;
    expect(sheets).toBeGreaterThan(1);
    const last = r.spots.filter((s) => s.sheet === sheets - 1);
    expect(Math.max(...last.map((s) => s.y + s.shape.h))).toBe(c.rowsAfter);
    expect(r.spots.map((s) => `${s.item}:${s.copy}`).sort()).toEqual(groups.flatMap((g) => Array.from({ length: g.quantity }, (_, k) => `${g.item}:${k}`)).sort());
    for (let k = 0; k < sheets; k++) {
      checkLayout(r.spots.filter((s) => s.sheet === k).map((s) => ({ shapes: [s.shape], turn: 0, x: s.x, y: s.y })), area.cols, area.rows);
    }
    // the same request again: the same layout
    const again = nest(groups, area, { capMs: 600_000, workBudget: 2e5 });
    expect(again.spots.map((s) => `${s.item}:${s.copy}@${s.sheet}:${s.x},${s.y},${s.shape.turn}`)).toEqual(r.spots.map((s) => `${s.item}:${s.copy}@${s.sheet}:${s.x},${s.y},${s.shape.turn}`));
  });
});
