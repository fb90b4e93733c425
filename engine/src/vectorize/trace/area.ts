// Area correction (our addition to the potrace pipeline): Béziers drawn between the midpoints of a polygon's
// edges cut inside convex turns, so potrace outlines shrink by about 0.2-0.4 px along their length (a 24 px
// disc loses ~2% of its area). We measure the signed area of the fitted closed curve against the lattice
// path's exact area and offset every tangent line of the curve by the mean difference (area / perimeter),
// moving junctions and control points along their tangent's normal and corners to the intersection of the
// offset lines. The curve keeps its structure (same segments, tangent continuity, corners).

import type { SmoothCurve } from './path.js';
import { cubicArea } from './opticurve.js';
import { scratchF64, Slot } from './scratch.js';
import { hypot } from '../hypot.js';

/** Largest correction in px (thin or tiny shapes must not balloon). */
const MAX_SHIFT = 0.4;

export function curveArea(c: SmoothCurve): number {
  let a = 0;
  let px = c.sx;
  let py = c.sy;
  for (let j = 0; j < c.m; j++) {
    if (c.corner[j]) {
      a += (px * c.vy[j]! - c.vx[j]! * py) / 2 + (c.vx[j]! * c.ey[j]! - c.ex[j]! * c.vy[j]!) / 2;
    } else {
      a += cubicArea(px, py, c.c1x[j]!, c.c1y[j]!, c.c2x[j]!, c.c2y[j]!, c.ex[j]!, c.ey[j]!);
    }
    px = c.ex[j]!;
    py = c.ey[j]!;
  }
  return a;
}

function perimeter(c: SmoothCurve): number {
  let l = 0;
  let px = c.sx;
  let py = c.sy;
  for (let j = 0; j < c.m; j++) {
    if (c.corner[j]) l += hypot(c.vx[j]! - px, c.vy[j]! - py) + hypot(c.ex[j]! - c.vx[j]!, c.ey[j]! - c.vy[j]!);
    else l += hypot(c.ex[j]! - px, c.ey[j]! - py);
    px = c.ex[j]!;
    py = c.ey[j]!;
  }
  return l;
}

/** Offsets a closed curve in place so its signed area matches `target` (the lattice path's area). */
export function correctArea(c: SmoothCurve, target: number): void {
  if (c.open || c.m < 2) return;
  const per = perimeter(c);
  if (per <= 0) return;
  let d = (target - curveArea(c)) / per;
  if (d > MAX_SHIFT) d = MAX_SHIFT;
  else if (d < -MAX_SHIFT) d = -MAX_SHIFT;
  if (Math.abs(d) < 1e-3) return;
  const m = c.m;
  // left-hand unit normal of the tangent at each junction e_j (end of segment j)
  const nx = scratchF64(Slot.NormalX, m);
  const ny = scratchF64(Slot.NormalY, m);
  for (let j = 0; j < m; j++) {
    let tx = c.ex[j]! - (c.corner[j] ? c.vx[j]! : c.c2x[j]!);
    let ty = c.ey[j]! - (c.corner[j] ? c.vy[j]! : c.c2y[j]!);
    if (tx * tx + ty * ty < 1e-12) {
      const k = (j + 1) % m;
      tx = (c.corner[k] ? c.vx[k]! : c.c1x[k]!) - c.ex[j]!;
      ty = (c.corner[k] ? c.vy[k]! : c.c1y[k]!) - c.ey[j]!;
    }
    const l = hypot(tx, ty) || 1;
    nx[j] = ty / l;
    ny[j] = -tx / l;
  }
  for (let j = 0; j < m; j++) {
    const i = (j - 1 + m) % m;
    if (c.corner[j]) {
      // the vertex moves to the intersection of both offset tangent lines
      const dot = nx[i]! * nx[j]! + ny[i]! * ny[j]!;
      const f = dot > -0.9 ? d / (1 + dot) : d;
      c.vx[j]! += (nx[i]! + nx[j]!) * f;
      c.vy[j]! += (ny[i]! + ny[j]!) * f;
      c.c1x[j] = c.c2x[j] = c.vx[j]!;
      c.c1y[j] = c.c2y[j] = c.vy[j]!;
    } else {
      c.c1x[j]! += nx[i]! * d;
      c.c1y[j]! += ny[i]! * d;
      c.c2x[j]! += nx[j]! * d;
      c.c2y[j]! += ny[j]! * d;
    }
  }
  for (let j = 0; j < m; j++) {
    c.ex[j]! += nx[j]! * d;
    c.ey[j]! += ny[j]! * d;
  }
  c.sx = c.ex[m - 1]!;
  c.sy = c.ey[m - 1]!;
}
