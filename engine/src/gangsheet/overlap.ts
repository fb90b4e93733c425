// The film as compaction sees it: where outlines may overlap, each cell holds how many copies cover it and
// the sum of their weights, the weights as per-row prefix sums so the weighted overlap of an outline at a
// position is two reads per row run, not a read per cell. Weights are small whole numbers, so every sum is
// exact (32-bit integers: at most 500 copies x weight 256 x the row's cells) and the same on any machine.
import { newGrid, refreshFree, setCell, type Grid } from './grid.js';
import type { TurnedShape } from './shapes.js';

/** Prefix cells rewritten per work unit when an outline is added or taken away (a tight sequential loop). */
const CELLS_PER_WORK = 8;

const areas = new WeakMap<TurnedShape, number>();

/** Cells of an outline. */
export function areaOf(s: TurnedShape): number {
  let a = areas.get(s);
  if (a !== undefined) return a;
  a = 0;
  for (let k = 0; k < s.rowStart[s.h]!; k++) a += s.runs[2 * k + 1]! - s.runs[2 * k]!;
  areas.set(s, a);
  return a;
}

export class OverlapField {
  readonly cols: number;
  /** The strip's length in rows (at most the length the field was made for). */
  rows: number;
  private readonly stride: number;
  /** Per row, pre[row * stride + c] = sum of the weights over cells 0..c-1. */
  private readonly pre: Int32Array;
  private readonly count: Uint16Array;
  /** Cells covered more than once, counted once per extra copy: 0 is a layout without overlap. */
  overlap = 0;
  /** Cells covered at least once, as the constructive search's bit grid: where a copy fits without overlap. */
  readonly grid: Grid;
  /** Rows whose longest free run in `grid` is out of date. */
  private readonly stale: Uint8Array;
  /** Work spent: outline rows evaluated plus prefix cells rewritten / CELLS_PER_WORK (deterministic). */
  work = 0;

  constructor(cols: number, rows: number) {
    this.cols = cols;
    this.rows = rows;
    this.stride = cols + 1;
    this.pre = new Int32Array(this.stride * rows);
    this.count = new Uint16Array(cols * rows);
    this.grid = newGrid(cols, rows);
    this.stale = new Uint8Array(rows);
  }

  /** Bring the bit grid's longest free runs up to date (they are only needed to look for holes). */
  syncGrid(): void {
    for (let y = 0; y < this.rows; y++) {
      if (!this.stale[y]) continue;
      refreshFree(this.grid, y);
      this.stale[y] = 0;
      this.work += this.cols / CELLS_PER_WORK;
    }
  }

  /** Empty the first `rows` rows and make that the strip. */
  reset(rows: number): void {
    this.rows = rows;
    this.pre.fill(0, 0, this.stride * rows);
    this.count.fill(0, 0, this.cols * rows);
    this.overlap = 0;
    const g = this.grid;
    g.bits.fill(0);
    g.free.fill(g.cols);
    g.rows = rows;
    // every row counts as used: the free-run test then rules out lines all over the strip
    g.usedRows = rows;
    this.stale.fill(0);
  }

  areaOf(s: TurnedShape): number {
    return areaOf(s);
  }

  /**
   * Add `weight` to the cells of `s` at (x, y) and `copies` (1: the copy arrives, -1: it leaves, 0: only its
   * weight changes) to their counts.
   */
  add(s: TurnedShape, x: number, y: number, weight: number, copies: 1 | -1 | 0 = weight > 0 ? 1 : -1): void {
    const { pre, count, cols, stride } = this;
    let touched = 0;
    for (let r = 0; r < s.h; r++) {
      const k0 = s.rowStart[r]!;
      const k1 = s.rowStart[r + 1]!;
      if (k0 === k1) continue;
      const base = (y + r) * stride + x + 1;
      const crow = (y + r) * cols + x;
      let acc = 0;
      let c = s.runs[2 * k0]!;
      for (let k = k0; k < k1; k++) {
        const a = s.runs[2 * k]!;
        const b = s.runs[2 * k + 1]!;
        for (; c < a; c++) pre[base + c] = pre[base + c]! + acc;
        for (; c < b; c++) {
          acc += weight;
          pre[base + c] = pre[base + c]! + acc;
          if (copies === 1) {
            if (count[crow + c]!++ > 0) this.overlap++;
            else setCell(this.grid, x + c, y + r, true);
          } else if (copies === -1) {
            if (--count[crow + c]! > 0) this.overlap--;
            else setCell(this.grid, x + c, y + r, false);
          }
        }
      }
      for (const end = cols - x; c < end; c++) pre[base + c] = pre[base + c]! + acc;
      touched += cols - x - s.runs[2 * k0]!;
      if (copies !== 0) this.stale[y + r] = 1;
    }
    this.work += touched / CELLS_PER_WORK;
  }

  /** Weighted overlap of `s` at (x, y) with what the field holds; stops once it reaches `limit`. */
  cost(s: TurnedShape, x: number, y: number, limit: number): number {
    const { pre, stride } = this;
    let sum = 0;
    let r = 0;
    for (; r < s.h; r++) {
      const base = (y + r) * stride + x;
      for (let k = s.rowStart[r]!, end = s.rowStart[r + 1]!; k < end; k++) sum += pre[base + s.runs[2 * k + 1]!]! - pre[base + s.runs[2 * k]!]!;
      if (sum >= limit) {
        r++;
        break;
      }
    }
    this.work += r;
    return sum;
  }
}
