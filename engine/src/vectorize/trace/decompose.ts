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
const DX = [1, 0, -1, 0] as const;
const DY = [0, 1, 0, -1] as const;
/** Offset of the pixel ahead-right / ahead-left of a corner, per direction (see file header). */
const RFX = [0, -1, -1, 0] as const;
const RFY = [0, 0, -1, -1] as const;
const LFX = [0, 0, -1, -1] as const;
const LFY = [-1, 0, 0, -1] as const;

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
  for (;;) {
    if (n >= buf.xs.length) buf.grow();
    buf.xs[n] = x;
    buf.ys[n] = y;
    if (y < buf.ys[best]! || (y === buf.ys[best]! && x < buf.xs[best]!)) best = n;
    n++;
    const ddy = DY[d]!;
    if (ddy !== 0) {
      visited[(ddy > 0 ? y : y - 1) * ew + x] = stamp;
      area += x * ddy;
    }
    x += DX[d]!;
    y += ddy;
    if (x === x0 && y === y0) {
      // a closed walk may pass its start corner twice (pinch); stop only when heading the same way
      const nd = nextDir(d);
      if (nd === d0) break;
      d = nd;
      continue;
    }
    d = nextDir(d);
  }
  const xs = new Int32Array(n);
  const ys = new Int32Array(n);
  const head = n - best;
  xs.set(buf.xs.subarray(best, n), 0);
  xs.set(buf.xs.subarray(0, best), head);
  ys.set(buf.ys.subarray(best, n), 0);
  ys.set(buf.ys.subarray(0, best), head);
  return { xs, ys, area, open: false };

  function nextDir(dir: number): number {
    const rf = rank[(y + RFY[dir]! + 1) * pw + x + RFX[dir]! + 1]!;
    const lf = rank[(y + LFY[dir]! + 1) * pw + x + LFX[dir]! + 1]!;
    const rIn = rf >= lo && rf <= hi;
    const lIn = lf >= lo && lf <= hi;
    if (rIn) return lIn ? (dir + 3) & 3 : dir;
    if (!lIn) return (dir + 1) & 3;
    return connectSet(s, x, y) ? (dir + 3) & 3 : (dir + 1) & 3;
  }
}
