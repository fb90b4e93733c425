// The film as the nester sees it: an occupancy grid of cells, one bit a cell (32 cells a word), with per row
// the longest free run. A turned outline is tested against it word by word (its rows as bit masks shifted to
// the column), which is what makes trying many layouts affordable.
import type { TurnedShape } from './shapes.js';

/** One sheet's occupancy. */
export interface Grid {
  cols: number;
  rows: number;
  /** Words per row (one spare, so a shifted mask's carry word always exists). */
  stride: number;
  bits: Uint32Array;
  /** Per row, the longest run of free cells: a shape row with a longer run cannot sit on that row anywhere. */
  free: Int32Array;
  /** Rows down to the lowest occupied one. */
  usedRows: number;
}

export function newGrid(cols: number, rows: number): Grid {
  const stride = (cols >> 5) + 2;
  return { cols, rows, stride, bits: new Uint32Array(stride * rows), free: new Int32Array(rows).fill(cols), usedRows: 0 };
}

/** An outline's rows as bit masks, with each cell's run start (for the jump past a hit) and each row's longest run. */
interface Masks {
  words: number;
  masks: Uint32Array;
  runStart: Int32Array;
  longest: Int32Array;
}

/** Masks per outline, made once (outlines are shared by every copy and every layout tried). */
const cache = new WeakMap<TurnedShape, Masks>();

function masksOf(s: TurnedShape): Masks {
  let m = cache.get(s);
  if (m) return m;
  const words = (s.w + 31) >> 5;
  m = { words, masks: new Uint32Array(words * s.h), runStart: new Int32Array(s.w * s.h), longest: new Int32Array(s.h) };
  for (let r = 0; r < s.h; r++) {
    for (let k = s.rowStart[r]!; k < s.rowStart[r + 1]!; k++) {
      const a = s.runs[2 * k]!;
      const b = s.runs[2 * k + 1]!;
      m.longest[r] = Math.max(m.longest[r]!, b - a);
      for (let c = a; c < b; c++) {
        m.masks[r * words + (c >> 5)] = m.masks[r * words + (c >> 5)]! | (1 << (c & 31));
        m.runStart[r * s.w + c] = a;
      }
    }
  }
  cache.set(s, m);
  return m;
}

/** The outline row where the last collision was found: tried first next time (neighbouring positions tend to hit the same row). */
let hitRow = 0;

/** Start a layout: the work count of a search depends on the hint, so every layout starts alike. */
export function resetHint(): void {
  hitRow = 0;
}

/** One outline row at (x, y): the first column from which it could fit, or -1 when it is clear. */
function collideRow(g: Grid, s: TurnedShape, m: Masks, x: number, y: number, r: number): number {
  const base = (y + r) * g.stride + (x >> 5);
  const sh = x & 31;
  const row = r * m.words;
  // from the rightmost word down, the carry part (higher columns) before the word's own: the first hit is the
  // rightmost occupied cell, and the jump goes past the start of the outline run that hit it
  for (let j = m.words - 1; j >= 0; j--) {
    const mask = m.masks[row + j]!;
    if (mask === 0) continue;
    if (sh !== 0) {
      const hit = g.bits[base + j + 1]! & (mask >>> (32 - sh));
      if (hit !== 0) return jump(s, m, x, r, ((x >> 5) + j + 1) * 32 + 31 - Math.clz32(hit));
    }
    const hit = g.bits[base + j]! & (mask << sh);
    if (hit !== 0) return jump(s, m, x, r, ((x >> 5) + j) * 32 + 31 - Math.clz32(hit));
  }
  return -1;
}

/** Past the occupied column `col` hit by outline row `r` at x: every x up to there would hit it again. */
function jump(s: TurnedShape, m: Masks, x: number, r: number, col: number): number {
  return col - m.runStart[r * s.w + (col - x)]! + 1;
}

/**
 * The first column from which `s` at (x, y) could fit: -1 when it fits there, else a column past the
 * rightmost occupied cell one of its rows hit.
 */
export function collide(g: Grid, s: TurnedShape, x: number, y: number): number {
  return collideMasks(g, s, masksOf(s), x, y);
}

function collideMasks(g: Grid, s: TurnedShape, m: Masks, x: number, y: number): number {
  if (hitRow < s.h) {
    const next = collideRow(g, s, m, x, y, hitRow);
    if (next >= 0) return next;
  }
  for (let r = 0; r < s.h; r++) {
    const next = collideRow(g, s, m, x, y, r);
    if (next >= 0) {
      hitRow = r;
      return next;
    }
  }
  return -1;
}

/** Occupy the cells of `s` at (x, y). */
export function mark(g: Grid, s: TurnedShape, x: number, y: number): void {
  for (let r = 0; r < s.h; r++) {
    const base = (y + r) * g.stride;
    for (let k = s.rowStart[r]!; k < s.rowStart[r + 1]!; k++) {
      for (let c = x + s.runs[2 * k]!, end = x + s.runs[2 * k + 1]!; c < end; c++) g.bits[base + (c >> 5)] = g.bits[base + (c >> 5)]! | (1 << (c & 31));
    }
    refreshFree(g, y + r);
  }
  g.usedRows = Math.max(g.usedRows, y + s.h);
}

/** Set (`on`) or clear one cell; the row's longest free run is then stale until `refreshFree`. */
export function setCell(g: Grid, x: number, y: number, on: boolean): void {
  const i = y * g.stride + (x >> 5);
  g.bits[i] = on ? g.bits[i]! | (1 << (x & 31)) : g.bits[i]! & ~(1 << (x & 31));
}

/** Recount row `y`'s longest free run. */
export function refreshFree(g: Grid, y: number): void {
  const base = y * g.stride;
  let longest = 0;
  let run = 0;
  for (let c = 0; c < g.cols; c++) {
    if ((g.bits[base + (c >> 5)]! >>> (c & 31)) & 1) run = 0;
    else if (++run > longest) longest = run;
  }
  g.free[y] = longest;
}

/** Counts probes (the deterministic work measure) and says when to give up (the wall-clock cap). */
export interface Probe {
  work: number;
  /** Called every few rows; throws to abandon the search. */
  check(): void;
}

/** Lowest-then-leftmost free spot of `s` from (startX, startY) in scan order, on rows up to `maxY`; null when none. */
export function firstFit(g: Grid, s: TurnedShape, startX: number, startY: number, p: Probe, maxY = Infinity): { x: number; y: number } | null {
  const m = masksOf(s);
  const need = m.longest;
  const { free } = g;
  rows: for (let y = startY; y + s.h <= g.rows && y <= maxY; y++) {
    if ((y & 31) === 0) p.check();
    p.work++;
    // a row whose longest free run is shorter than the outline's there rules the whole line out; below the
    // lowest ink every row is free
    for (let r = 0, end = Math.min(s.h, g.usedRows - y); r < end; r++) if (need[r]! > free[y + r]!) continue rows;
    let x = y === startY ? startX : 0;
    while (x + s.w <= g.cols) {
      p.work++;
      const next = collideMasks(g, s, m, x, y);
      if (next < 0) return { x, y };
      x = next;
    }
  }
  return null;
}

/** Set bits in a word. */
function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Grid row `y`'s 32 cells from column `x`, as one word (bit i = column x + i). */
function gridWord(g: Grid, y: number, x: number): number {
  const k = y * g.stride + (x >> 5);
  const sh = x & 31;
  return sh === 0 ? g.bits[k]! : (g.bits[k]! >>> sh) | (g.bits[k + 1]! << (32 - sh));
}

/**
 * Contact of `s` at (x, y), a free position: how many edges of its outline's cells touch an occupied cell or
 * a wall of the sheet (the top, bottom and sides). An outline that touches much leaves little free film
 * trapped around it, which first fit alone does not look at.
 */
export function contact(g: Grid, s: TurnedShape, x: number, y: number): number {
  const m = masksOf(s);
  let n = 0;
  for (let r = 0; r < s.h; r++) {
    const gy = y + r;
    // sideways: each run's two ends
    for (let k = s.rowStart[r]!; k < s.rowStart[r + 1]!; k++) {
      const a = x + s.runs[2 * k]!;
      const b = x + s.runs[2 * k + 1]!;
      if (a === 0 || (g.bits[gy * g.stride + ((a - 1) >> 5)]! >>> ((a - 1) & 31)) & 1) n++;
      if (b === g.cols || (g.bits[gy * g.stride + (b >> 5)]! >>> (b & 31)) & 1) n++;
    }
    // up and down: the row's cells with no outline cell above (below), against the grid's row there
    for (let j = 0; j < m.words; j++) {
      const mask = m.masks[r * m.words + j]!;
      if (mask === 0) continue;
      const up = mask & ~(r > 0 ? m.masks[(r - 1) * m.words + j]! : 0);
      if (up !== 0) n += popcount(gy === 0 ? up : up & gridWord(g, gy - 1, x + 32 * j));
      const down = mask & ~(r + 1 < s.h ? m.masks[(r + 1) * m.words + j]! : 0);
      if (down !== 0) n += popcount(gy + 1 === g.rows ? down : down & gridWord(g, gy + 1, x + 32 * j));
    }
  }
  return n;
}
