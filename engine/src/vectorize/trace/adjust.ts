// Vertex adjustment (Selinger 2003, sec. 2.3.1): fit a least-squares line to the path points each polygon
// edge covers, then move every vertex to the point of its unit square (|dx|, |dy| <= 1/2 around the original
// lattice corner) that minimises the summed squared distance to the lines of its two edges. End points of
// open chains stay exactly where they are (they are shared with neighbouring chains).

import type { LatticePath } from './path.js';
import type { PathSums } from './polygon.js';
import { scratchF64, Slot } from './scratch.js';
import { hypot } from '../hypot.js';

/** Value of the quadratic form at (x, y). */
function qval(qxx: number, qxy: number, qx: number, qyy: number, qy: number, q1: number, x: number, y: number): number {
  return qxx * x * x + 2 * qxy * x * y + 2 * qx * x + qyy * y * y + 2 * qy * y + q1;
}

/** Returns absolute vertex coordinates, one per polygon vertex. */
export function adjustVertices(p: LatticePath, sums: PathSums, verts: Int32Array): { vx: Float64Array; vy: Float64Array } {
  const n = p.xs.length;
  const m = verts.length;
  const x0 = p.xs[0]!;
  const y0 = p.ys[0]!;
  const edges = p.open ? m - 1 : m;
  // per edge quadratic form of the squared distance to its fitted line: 6 coefficients (xx, xy, x, yy, y, 1)
  const q = scratchF64(Slot.Quad, edges * 6);
  for (let e = 0; e < edges; e++) {
    const i = verts[e]!;
    const j = e + 1 < m ? verts[e + 1]! : n;
    const jj = j >= n ? n - 1 : j;
    const cnt = j + 1 - i;
    const sx = sums.x[jj + 1]! - sums.x[i]!;
    const sy = sums.y[jj + 1]! - sums.y[i]!;
    const mx = sx / cnt;
    const my = sy / cnt;
    const a = (sums.xx[jj + 1]! - sums.xx[i]!) / cnt - mx * mx;
    const b = (sums.xy[jj + 1]! - sums.xy[i]!) / cnt - mx * my;
    const c = (sums.yy[jj + 1]! - sums.yy[i]!) / cnt - my * my;
    // principal direction of the covariance
    const lambda = (a + c) / 2 + Math.sqrt(((a - c) / 2) ** 2 + b * b);
    let dx: number;
    let dy: number;
    const ux = b;
    const uy = lambda - a;
    const wx = lambda - c;
    const wy = b;
    if (ux * ux + uy * uy >= wx * wx + wy * wy) {
      dx = ux;
      dy = uy;
    } else {
      dx = wx;
      dy = wy;
    }
    let len = hypot(dx, dy);
    if (len < 1e-12) {
      dx = p.xs[j % n]! - p.xs[i]!;
      dy = p.ys[j % n]! - p.ys[i]!;
      len = hypot(dx, dy) || 1;
    }
    const nx = -dy / len;
    const ny = dx / len;
    const nc = -(nx * mx + ny * my);
    const o = e * 6;
    q[o] = nx * nx;
    q[o + 1] = nx * ny;
    q[o + 2] = nx * nc;
    q[o + 3] = ny * ny;
    q[o + 4] = ny * nc;
    q[o + 5] = nc * nc;
  }
  const vx = new Float64Array(m);
  const vy = new Float64Array(m);
  for (let v = 0; v < m; v++) {
    const sx = p.xs[verts[v]!]! - x0;
    const sy = p.ys[verts[v]!]! - y0;
    if (p.open && (v === 0 || v === m - 1)) {
      vx[v] = sx + x0;
      vy[v] = sy + y0;
      continue;
    }
    const e0 = ((v - 1 + edges) % edges) * 6;
    const e1 = (v % edges) * 6;
    let qxx = q[e0]! + q[e1]!;
    let qxy = q[e0 + 1]! + q[e1 + 1]!;
    let qx = q[e0 + 2]! + q[e1 + 2]!;
    let qyy = q[e0 + 3]! + q[e1 + 3]!;
    let qy = q[e0 + 4]! + q[e1 + 4]!;
    let q1 = q[e0 + 5]! + q[e1 + 5]!;
    let det = qxx * qyy - qxy * qxy;
    if (Math.abs(det) < 1e-9) {
      // parallel lines: the minimum is a valley along them; also pull towards the original corner
      let ux = qxx >= qyy ? -qxy : -qyy;
      let uy = qxx >= qyy ? qxx : qxy;
      const ul = hypot(ux, uy);
      if (ul < 1e-12) {
        ux = 1;
        uy = 0;
      } else {
        ux /= ul;
        uy /= ul;
      }
      // ux, uy is now the direction of the lines; penalise displacement along it
      const c = -(ux * sx + uy * sy);
      qxx += ux * ux;
      qxy += ux * uy;
      qx += ux * c;
      qyy += uy * uy;
      qy += uy * c;
      q1 += c * c;
      det = qxx * qyy - qxy * qxy;
    }
    if (Math.abs(det) > 1e-12) {
      const px = (-qx * qyy + qy * qxy) / det;
      const py = (-qy * qxx + qx * qxy) / det;
      if (Math.abs(px - sx) <= 0.5 && Math.abs(py - sy) <= 0.5) {
        vx[v] = px + x0;
        vy[v] = py + y0;
        continue;
      }
    }
    // minimum on the boundary of the unit square
    let bx = sx;
    let by = sy;
    let bv = Infinity;
    for (let side = 0; side < 2; side++) {
      const x = sx - 0.5 + side;
      if (qyy > 1e-12) {
        const y = -(qxy * x + qy) / qyy;
        if (Math.abs(y - sy) <= 0.5) {
          const val = qval(qxx, qxy, qx, qyy, qy, q1, x, y);
          if (val < bv) {
            bv = val;
            bx = x;
            by = y;
          }
        }
      }
      const y = sy - 0.5 + side;
      if (qxx > 1e-12) {
        const xx = -(qxy * y + qx) / qxx;
        if (Math.abs(xx - sx) <= 0.5) {
          const val = qval(qxx, qxy, qx, qyy, qy, q1, xx, y);
          if (val < bv) {
            bv = val;
            bx = xx;
            by = y;
          }
        }
      }
    }
    for (let cx = 0; cx < 2; cx++) {
      for (let cy = 0; cy < 2; cy++) {
        const x = sx - 0.5 + cx;
        const y = sy - 0.5 + cy;
        const val = qval(qxx, qxy, qx, qyy, qy, q1, x, y);
        if (val < bv) {
          bv = val;
          bx = x;
          by = y;
        }
      }
    }
    vx[v] = bx + x0;
    vy[v] = by + y0;
  }
  return { vx, vy };
}
