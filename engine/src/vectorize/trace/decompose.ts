// Path decomposition (Selinger 2003, "Potrace: a polygon-based tracing algorithm", sec. 2.1): walk the
// boundary of a pixel set on the pixel-corner grid into closed lattice paths, set pixels always on the
// right-hand side of travel (y down), so outer boundaries run clockwise on screen (positive area) and
// holes counter-clockwise. Ambiguous diagonal configurations are resolved by the "minority" turn policy.
//
// The pixel set is given as a padded rank grid: pixel (x, y) is at (y + 1) * (w + 2) + x + 1, the border
// holds -1, and a pixel is in the set when lo <= rank <= hi. Stacked layers use [k, +inf), cutout pieces
// [r, r]. Visited vertical edges are stamped so every path is walked exactly once.

import type { LatticePath } from './path.js';

/** Step directions in clockwise screen order: east, south, west, north. */
const DX = new Int32Array([1, 0, -1, 0]);
const DY = new Int32Array([0, 1, 0, -1]);
/** Offset of the pixel ahead-right / ahead-left of a corner, per direction (see file header). */
const RFX = new Int32Array([0, -1, -1, 0]);
const RFY = new Int32Array([0, 0, -1, -1]);
const LFX = new Int32Array([0, 0, -1, -1]);
const LFY = new Int32Array([-1, 0, 0, -1]);

export interface PixelSet {
  rank: Int16Array;
  width: number;
  height: number;
  lo: number;
  hi: number;
}

/** Growable scratch buffer shared by all walks of one trace call. */
export class WalkBuffer {
  xs = new Int32Array(4096);
  ys = new Int32Array(4096);
  grow(): void {
    const nx = new Int32Array(this.xs.length * 2);
    nx.set(this.xs);
    const ny = new Int32Array(this.ys.length * 2);
    ny.set(this.ys);
    this.xs = nx;
    this.ys = ny;
  }
}

/**
 * Minority turn policy: at an ambiguous corner, connect the pixels of whichever side (set or unset) is the
 * minority in growing square rings around the corner; a tie connects the set pixels.
 * Returns true to connect the set pixels (turn left).
 */
function connectSet(s: PixelSet, x: number, y: number): boolean {
  const { rank, width, height, lo, hi } = s;
  const pw = width + 2;
  let balance = 0;
  for (let r = 2; r <= 4; r++) {
    for (let i = -r; i < r; i++) {
      // the four sides of the ring of pixels [x-r, x+r-1] x [y-r, y+r-1]
      balance += sample(x + i, y - r) + sample(x + r - 1, y + i) + sample(x - i - 1, y + r - 1) + sample(x - r, y - i - 1);
    }
    if (balance !== 0) return balance < 0;
  }
  return true;

  function sample(px: number, py: number): number {
    if (px < 0 || py < 0 || px >= width || py >= height) return -1;
    const v = rank[(py + 1) * pw + px + 1]!;
    return v >= lo && v <= hi ? 1 : -1;
  }
}

/**
 * Walks the boundary through the vertical edge `edge` (index y * (w + 1) + x: between pixels (x-1, y) and
 * (x, y)) unless already stamped. Returns null when the edge is not a boundary of the set or was visited.
 * The path is rotated to start at its top-most, left-most corner (always a direction change).
 */
export function walkFrom(s: PixelSet, edge: number, visited: Uint16Array, stamp: number, buf: WalkBuffer): LatticePath | null {
  if (visited[edge] === stamp) return null;
  const { rank, width, lo, hi } = s;
  const pw = width + 2;
  const ew = width + 1;
  const ex = edge % ew;
  const eyy = (edge - ex) / ew;
  const lv = rank[(eyy + 1) * pw + ex]!;
  const rv = rank[(eyy + 1) * pw + ex + 1]!;
  const lin = lv >= lo && lv <= hi;
  const rin = rv >= lo && rv <= hi;
  if (lin === rin) return null;
  let x = ex;
  let y = rin ? eyy + 1 : eyy;
  let d = rin ? 3 : 1;
  const x0 = x;
  const y0 = y;
  const d0 = d;
  let n = 0;
  let area = 0;
  let best = 0;
  let bx = x;
  let by = y;
  let bufX = buf.xs;
  let bufY = buf.ys;
  // the turn rule is inlined here (no closure over x, y, d), so the walk keeps its state in registers
  for (;;) {
    if (n >= bufX.length) {
      buf.grow();
      bufX = buf.xs;
      bufY = buf.ys;
    }
    bufX[n] = x;
    bufY[n] = y;
    if (y < by || (y === by && x < bx)) {
      best = n;
      bx = x;
      by = y;
    }
    n++;
    const ddy = DY[d]!;
    if (ddy !== 0) {
      visited[(ddy > 0 ? y : y - 1) * ew + x] = stamp;
      area += x * ddy;
    }
    x += DX[d]!;
    y += ddy;
    // next direction: by the pixels ahead-right and ahead-left of the new corner
    const rf = rank[(y + RFY[d]! + 1) * pw + x + RFX[d]! + 1]!;
    const lf = rank[(y + LFY[d]! + 1) * pw + x + LFX[d]! + 1]!;
    const rIn = rf >= lo && rf <= hi;
    const lIn = lf >= lo && lf <= hi;
    const nd = rIn ? (lIn ? (d + 3) & 3 : d) : !lIn ? (d + 1) & 3 : connectSet(s, x, y) ? (d + 3) & 3 : (d + 1) & 3;
    // a closed walk may pass its start corner twice (pinch); stop only when heading the same way
    if (x === x0 && y === y0 && nd === d0) break;
    d = nd;
  }
  const xs = new Int32Array(n);
  const ys = new Int32Array(n);
  const head = n - best;
  xs.set(bufX.subarray(best, n), 0);
  xs.set(bufX.subarray(0, best), head);
  ys.set(bufY.subarray(best, n), 0);
  ys.set(bufY.subarray(0, best), head);
  return { xs, ys, area, open: false };
}
