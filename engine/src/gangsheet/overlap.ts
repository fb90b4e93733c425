// The film as compaction sees it: where outlines may overlap, each cell holds how many copies cover it and
// the sum of their weights, the weights as per-row prefix sums so the weighted overlap of an outline at a
// position is a few reads per row run, not a read per cell. Weights are small whole numbers, so every sum is
// exact and the same on any machine (32-bit integers: 500 copies x weight 128 x depth 4 x 2,400 cells, a 60 in
// row at 40 cells per inch, is 6e8).
import { newGrid, refreshFree, setCell, type Grid } from './grid.js';
import type { TurnedShape } from './shapes.js';

/** Cells rewritten (counts and prefix sums) per work unit when an outline is added, taken away or reweighed. */
const CELLS_PER_WORK = 4;

/** How deep a cell may count: overlap deeper than this inside an outline costs no more. */
export const DEPTH_CAP = 4;

/** Per outline, each cell's depth (1 on the edge, up to DEPTH_CAP inside; 0 outside) and their sum. */
interface Depth {
  depth: Uint8Array;
  mass: number;
}

const depths = new WeakMap<TurnedShape, Depth>();

/**
 * Cells weigh by their depth in the outline (city-block distance to its outside, capped): overlapping an
 * outline's edge costs less than its middle, so a copy in collision has a slope to slide down, where a count
 * of cells would be flat.
 */
export function depthOf(s: TurnedShape): Depth {
  let d = depths.get(s);
  if (d) return d;
  const { w, h } = s;
  const depth = new Uint8Array(w * h);
  for (let r = 0; r < h; r++) for (let k = s.rowStart[r]!; k < s.rowStart[r + 1]!; k++) depth.fill(255, r * w + s.runs[2 * k]!, r * w + s.runs[2 * k + 1]!);
  // two chamfer passes: from the top-left, then from the bottom-right (outside the grid counts as outside)
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      const i = r * w + c;
      if (!depth[i]) continue;
      depth[i] = Math.min(depth[i]!, 1 + Math.min(r > 0 ? depth[i - w]! : 0, c > 0 ? depth[i - 1]! : 0));
    }
  }
  let mass = 0;
  for (let r = h - 1; r >= 0; r--) {
    for (let c = w - 1; c >= 0; c--) {
      const i = r * w + c;
      if (!depth[i]) continue;
      depth[i] = Math.min(depth[i]!, 1 + Math.min(r < h - 1 ? depth[i + w]! : 0, c < w - 1 ? depth[i + 1]! : 0), DEPTH_CAP);
      mass += depth[i]!;
    }
  }
  d = { depth, mass };
  depths.set(s, d);
  return d;
}

export class OverlapField {
  readonly cols: number;
  /** The strip's length in rows (at most the length the field was made for). */
  rows: number;
  /**
   * Per row, the weighted sum over cells 0..c-1 is blk[row * blocks + (c >> 5)] + inb[row * istride + c]:
   * blk the sum left of each 32-cell block, inb the sum within the block left of c. Adding an outline then
   * rewrites its own cells' blocks and one entry per block to its right, not every cell to its right.
   */
  private readonly inb: Int32Array;
  private readonly blk: Int32Array;
  private readonly blocks: number;
  private readonly istride: number;
  private readonly count: Uint16Array;
  /** Cells covered more than once, counted once per extra copy: 0 is a layout without overlap. */
  overlap = 0;
  /** Cells covered at least once, as the constructive search's bit grid: where a copy fits without overlap. */
  readonly grid: Grid;
  /** Rows whose longest free run in `grid` is out of date. */
  private readonly stale: Uint8Array;
  /** Work spent: outline rows evaluated plus cells rewritten / CELLS_PER_WORK (deterministic). */
  work = 0;

  constructor(cols: number, rows: number) {
    this.cols = cols;
    this.rows = rows;
    this.blocks = (cols >> 5) + 1;
    this.istride = this.blocks * 32;
    this.inb = new Int32Array(this.istride * rows);
    this.blk = new Int32Array(this.blocks * rows);
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
    this.inb.fill(0, 0, this.istride * rows);
    this.blk.fill(0, 0, this.blocks * rows);
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

  /** What `s` adds to the field's sums per unit of weight (its cells' depths). */
  massOf(s: TurnedShape): number {
    return depthOf(s).mass;
  }

  /**
   * Add `weight` to the cells of `s` at (x, y) and `copies` (1: the copy arrives, -1: it leaves, 0: only its
   * weight changes) to their counts.
   */
  add(s: TurnedShape, x: number, y: number, weight: number, copies: 1 | -1 | 0 = weight > 0 ? 1 : -1): void {
    const { inb, blk, count, cols, istride, blocks } = this;
    const { depth } = depthOf(s);
    let touched = 0;
    for (let r = 0; r < s.h; r++) {
      const k0 = s.rowStart[r]!;
      const k1 = s.rowStart[r + 1]!;
      if (k0 === k1) continue;
      const row = y + r;
      if (copies !== 0) {
        const crow = row * cols + x;
        for (let k = k0; k < k1; k++) {
          touched += s.runs[2 * k + 1]! - s.runs[2 * k]!;
          for (let c = s.runs[2 * k]!, b = s.runs[2 * k + 1]!; c < b; c++) {
            if (copies === 1) {
              if (count[crow + c]!++ > 0) this.overlap++;
              else setCell(this.grid, x + c, row, true);
            } else if (--count[crow + c]! > 0) this.overlap--;
            else setCell(this.grid, x + c, row, false);
          }
        }
        this.stale[row] = 1;
      }
      // the prefix sums, column by absolute column d: within d's block what was added left of d, and at each
      // block's start the whole row's so far; stretches where nothing changes are skipped
      const ib = row * istride;
      const bb = row * blocks;
      const drow = r * s.w - x;
      let acc = 0;
      let base = 0;
      let k = k0;
      let a = x + s.runs[2 * k]!;
      let b = x + s.runs[2 * k + 1]!;
      const last = x + s.runs[2 * k1 - 1]!;
      const end = ((last - 1) | 31) + 1;
      for (let d = a; d < end; d++) {
        touched++;
        if ((d & 31) === 0) {
          blk[bb + (d >> 5)] = blk[bb + (d >> 5)]! + acc;
          base = acc;
        } else if (acc !== base) {
          inb[ib + d] = inb[ib + d]! + acc - base;
        }
        if (d < a) {
          // a gap: nothing to add until the next run or the next block
          if (acc === base) d = Math.min(a, (d | 31) + 1) - 1;
          continue;
        }
        acc += weight * depth[drow + d]!;
        if (d + 1 === b) {
          if (++k < k1) {
            a = x + s.runs[2 * k]!;
            b = x + s.runs[2 * k + 1]!;
          } else {
            a = Infinity; // past the last run: the rest of its block only carries the sum
          }
        }
      }
      for (let j = end >> 5; j < blocks; j++) blk[bb + j] = blk[bb + j]! + acc;
      touched += blocks - (end >> 5);
    }
    this.work += touched / CELLS_PER_WORK;
  }

  /** Weighted overlap of `s` at (x, y) with what the field holds; stops once it reaches `limit`. */
  cost(s: TurnedShape, x: number, y: number, limit: number): number {
    const { inb, blk, istride, blocks } = this;
    let sum = 0;
    let r = 0;
    for (; r < s.h; r++) {
      const ib = (y + r) * istride + x;
      const bb = (y + r) * blocks;
      for (let k = s.rowStart[r]!, end = s.rowStart[r + 1]!; k < end; k++) {
        const a = x + s.runs[2 * k]!;
        const b = x + s.runs[2 * k + 1]!;
        sum += blk[bb + (b >> 5)]! + inb[ib + s.runs[2 * k + 1]!]! - blk[bb + (a >> 5)]! - inb[ib + s.runs[2 * k]!]!;
      }
      if (sum >= limit) {
        r++;
        break;
      }
    }
    this.work += r;
    return sum;
  }
}
