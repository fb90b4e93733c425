// Optimal polygon (Selinger 2003, sec. 2.2.2-2.2.4): among the polygons whose every edge i -> j is a
// possible segment (the subpath i-1 .. j+1 is straight, from lon[]), choose one with the fewest edges and,
// among those, the least total penalty. The penalty of an edge is its length times the RMS distance of the
// covered path points to it, computed in O(1) from prefix sums. Closed paths keep point 0 as a vertex (the
// decomposition starts them at a corner); open paths keep both end points.

import type { LatticePath } from './path.js';
import { scratchF64, scratchI32, Slot } from './scratch.js';

/** Prefix sums of x, y, x^2, xy, y^2 relative to point 0; entry k covers points 0..k-1. */
export interface PathSums {
  x: Float64Array;
  y: Float64Array;
  xx: Float64Array;
  xy: Float64Array;
  yy: Float64Array;
}

/** Prefix sums of the path (scratch arrays, valid until the next call). */
export function pathSums(p: LatticePath): PathSums {
  const n = p.xs.length;
  const x = scratchF64(Slot.SumX, n + 1);
  const y = scratchF64(Slot.SumY, n + 1);
  const xx = scratchF64(Slot.SumXX, n + 1);
  const xy = scratchF64(Slot.SumXY, n + 1);
  const yy = scratchF64(Slot.SumYY, n + 1);
  x[0] = y[0] = xx[0] = xy[0] = yy[0] = 0;
  const x0 = p.xs[0]!;
  const y0 = p.ys[0]!;
  for (let i = 0; i < n; i++) {
    const u = p.xs[i]! - x0;
    const v = p.ys[i]! - y0;
    x[i + 1] = x[i]! + u;
    y[i + 1] = y[i]! + v;
    xx[i + 1] = xx[i]! + u * u;
    xy[i + 1] = xy[i]! + u * v;
    yy[i + 1] = yy[i]! + v * v;
  }
  return { x, y, xx, xy, yy };
}

/**
 * Returns the polygon vertices as indices into the path (ascending; closed paths start at 0, open paths
 * start at 0 and end at n-1).
 */
export function optimalPolygon(p: LatticePath, lon: Int32Array, sums: PathSums): Int32Array {
  const n = p.xs.length;
  const open = p.open;
  const end = open ? n - 1 : n;
  // reach[i]: the furthest j such that i -> j is a possible edge
  const reach = scratchI32(Slot.Reach, n + 1);
  for (let i = 0; i < n; i++) {
    if (open) {
      if (i === n - 1) {
        reach[i] = n - 1;
        continue;
      }
      const l = i === 0 ? lon[0]! : lon[i - 1]!;
      let c = l >= n - 1 ? n - 1 : i === 0 ? l : l - 1;
      if (c <= i) c = i + 1;
      reach[i] = c;
    } else {
      let c = (lon[(i - 1 + n) % n]! - 1 + n) % n;
      if (c === i) c = (i + 1) % n;
      reach[i] = c < i ? n : c;
    }
  }
  // back[j]: the smallest i with reach[i] >= j
  const back = scratchI32(Slot.Back, end + 1);
  back[0] = 0;
  {
    let j = 1;
    for (let i = 0; i < end; i++) {
      while (j <= reach[i]! && j <= end) {
        back[j] = i;
        j++;
      }
    }
  }
  // fewest edges: greedy forward gives the latest vertex per step, greedy backward the earliest
  const fwd: number[] = [0];
  {
    let i = 0;
    while (i < end) {
      i = reach[i]!;
      fwd.push(i > end ? end : i);
    }
  }
  const m = fwd.length - 1;
  const bwd = scratchI32(Slot.Bwd, m + 1);
  {
    let i = end;
    for (let j = m; j > 0; j--) {
      bwd[j] = i;
      i = back[i]!;
    }
    bwd[0] = 0;
  }
  const pen = scratchF64(Slot.Pen, end + 1);
  const prev = scratchI32(Slot.Prev, end + 1);
  pen[0] = 0;
  // The penalty of edge k -> t (the RMS distance of the path points from it, scaled by its length), with everything that depends on t alone hoisted out of the k loop
  // (the same floating-point operations in the same order, so the same result)
  const { xs, ys } = p;
  const x0 = xs[0]!;
  const y0 = ys[0]!;
  const { x: SX, y: SY, xx: SXX, xy: SXY, yy: SYY } = sums;
  for (let j = 1; j <= m; j++) {
    const hiPrev = fwd[j - 1]!;
    const loPrev = bwd[j - 1]!;
    for (let t = bwd[j]!; t <= fwd[j]!; t++) {
      let best = -1;
      const kmin = Math.max(back[t]!, loPrev);
      const tt = (t >= n ? n - 1 : t) + 1;
      const tx = SX[tt]!;
      const ty = SY[tt]!;
      const txx = SXX[tt]!;
      const txy = SXY[tt]!;
      const tyy = SYY[tt]!;
      const jx = xs[t % n]! - x0;
      const jy = ys[t % n]! - y0;
      for (let k = hiPrev; k >= kmin; k--) {
        const cnt = t + 1 - k;
        const sx = tx - SX[k]!;
        const sy = ty - SY[k]!;
        const sxx = txx - SXX[k]!;
        const sxy = txy - SXY[k]!;
        const syy = tyy - SYY[k]!;
        const ix = xs[k]! - x0;
        const iy = ys[k]! - y0;
        const mx = (ix + jx) / 2;
        const my = (iy + jy) / 2;
        const nx = -(jy - iy);
        const ny = jx - ix;
        const a = (sxx - 2 * sx * mx) / cnt + mx * mx;
        const b = (sxy - sx * my - sy * mx) / cnt + mx * my;
        const c = (syy - 2 * sy * my) / cnt + my * my;
        const q = nx * nx * a + 2 * nx * ny * b + ny * ny * c;
        const v = Math.sqrt(q > 0 ? q : 0) + pen[k]!;
        if (best < 0 || v < best) {
          prev[t] = k;
          best = v;
        }
      }
      pen[t] = best;
    }
  }
  const verts = new Int32Array(open ? m + 1 : m);
  let t = end;
  for (let j = m - 1; j >= 0; j--) {
    t = prev[t]!;
    verts[j] = t;
  }
  if (open) verts[m] = n - 1;
  return verts;
}
