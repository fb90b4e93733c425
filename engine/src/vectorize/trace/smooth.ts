// Smoothing and corner detection (Selinger 2003, sec. 2.3.2): each polygon vertex v_j becomes one segment
// from the midpoint of its incoming edge to the midpoint of its outgoing edge. alpha measures how far v_j
// sits from the line of its neighbours (relative to the unit-square tolerance): alpha >= alphaMax gives a
// corner (two straight lines through v_j), otherwise a cubic Bézier whose control points lie on the two
// edges at fraction alpha from the midpoints towards v_j, clamped to [circle arm, 1] (potrace: [0.55, 1]).

import { CurveSlot, scratchCurve, type SmoothCurve } from './path.js';
import { scratchF64, Slot } from './scratch.js';
import { hypot } from '../hypot.js';

/** An edge longer than this many times a short neighbour gets an extra vertex near that neighbour... */
const SPLIT_RATIO = 5;
/** ...when that neighbour is at most this long (px): the width of a thin stroke, not a curve's chord. */
const SPLIT_SHORT = 2.5;

/**
 * Thin features: a Bézier runs from the middle of one edge to the middle of the next, so where a long
 * edge meets a short one (the end of a 1 px line) the curve would taper the whole half of the long edge
 * into a spindle. Splitting the long edge at twice the short edge's length from the vertex keeps the
 * rounding local. Only stroke-width neighbours count: splitting the flats of a circle would leave them flat.
 */
export function splitLongEdges(vx: Float64Array, vy: Float64Array, open: boolean): { vx: Float64Array; vy: Float64Array } {
  const m = vx.length;
  const edges = open ? m - 1 : m;
  if (edges < 2) return { vx, vy };
  const len = scratchF64(Slot.EdgeLen, edges);
  for (let e = 0; e < edges; e++) {
    const f = (e + 1) % m;
    len[e] = hypot(vx[f]! - vx[e]!, vy[f]! - vy[e]!);
  }
  const ox: number[] = [];
  const oy: number[] = [];
  for (let e = 0; e < m; e++) {
    ox.push(vx[e]!);
    oy.push(vy[e]!);
    if (e >= edges) continue;
    const l = len[e]!;
    if (l <= 4) continue;
    const prev = open && e === 0 ? Infinity : len[(e - 1 + edges) % edges]!;
    const next = open && e === edges - 1 ? Infinity : len[(e + 1) % edges]!;
    const f = (e + 1) % m;
    const ux = (vx[f]! - vx[e]!) / l;
    const uy = (vy[f]! - vy[e]!) / l;
    let a = prev <= SPLIT_SHORT && l > SPLIT_RATIO * prev ? Math.max(1, 2 * prev) : 0;
    let b = next <= SPLIT_SHORT && l > SPLIT_RATIO * next ? Math.max(1, 2 * next) : 0;
    if (a + b > l - 1) {
      if (a > 0 && b > 0) {
        a = l / 2;
        b = 0;
      } else continue;
    }
    if (a > 0) {
      ox.push(vx[e]! + ux * a);
      oy.push(vy[e]! + uy * a);
    }
    if (b > 0) {
      ox.push(vx[f]! - ux * b);
      oy.push(vy[f]! - uy * b);
    }
  }
  if (ox.length === m) return { vx, vy };
  return { vx: Float64Array.from(ox), vy: Float64Array.from(oy) };
}

/** The result is a scratch curve (path.ts), valid until the next call. */
export function smoothPolygon(vx: Float64Array, vy: Float64Array, open: boolean, alphaMax: number): SmoothCurve {
  const m = vx.length;
  if (open) return smoothOpen(vx, vy, alphaMax);
  const c = scratchCurve(CurveSlot.Smooth, m, false);
  for (let j = 0; j < m; j++) {
    const i = (j - 1 + m) % m;
    const k = (j + 1) % m;
    setSegment(c, j, vx[i]!, vy[i]!, vx[j]!, vy[j]!, vx[k]!, vy[k]!, alphaMax);
  }
  c.sx = c.ex[m - 1]!;
  c.sy = c.ey[m - 1]!;
  return c;
}

/** alpha of vertex j between neighbours i and k (4/3 means "as sharp as the unit square allows"). */
export function vertexAlpha(ix: number, iy: number, jx: number, jy: number, kx: number, ky: number): number {
  const denom = Math.abs(kx - ix) + Math.abs(ky - iy);
  if (denom === 0) return 4 / 3;
  const dd = Math.abs((jx - ix) * (ky - iy) - (jy - iy) * (kx - ix)) / denom;
  return dd > 1 ? (1 - 1 / dd) / 0.75 : 0;
}

/** Control-arm fraction of a circular arc tangent to edges i->j and j->k at their midpoints' distance. */
function circleAlpha(ix: number, iy: number, jx: number, jy: number, kx: number, ky: number): number {
  const ax = jx - ix;
  const ay = jy - iy;
  const bx = kx - jx;
  const by = ky - jy;
  const turn = Math.abs(Math.atan2(ax * by - ay * bx, ax * bx + ay * by));
  if (turn < 1e-6) return 2 / 3;
  if (turn > Math.PI / 2) return 0.55;
  return Math.max(0.55, ((4 / 3) * Math.tan(turn / 4)) / Math.tan(turn / 2));
}

function setSegment(c: SmoothCurve, j: number, ix: number, iy: number, jx: number, jy: number, kx: number, ky: number, alphaMax: number): void {
  const ax = (ix + jx) / 2;
  const ay = (iy + jy) / 2;
  const bx = (jx + kx) / 2;
  const by = (jy + ky) / 2;
  c.vx[j] = jx;
  c.vy[j] = jy;
  c.ex[j] = bx;
  c.ey[j] = by;
  let alpha = vertexAlpha(ix, iy, jx, jy, kx, ky);
  if (alpha >= alphaMax) {
    c.corner[j] = 1;
    c.c1x[j] = jx;
    c.c1y[j] = jy;
    c.c2x[j] = jx;
    c.c2y[j] = jy;
    return;
  }
  // lower bound: the arm of a circular arc tangent to both edges (4/3 tan(t/4) / tan(t/2) for a turn of t),
  // so gentle turns bulge like a circle instead of potrace's fixed 0.55 (which leaves fine polygons looking
  // faceted)
  const floor = circleAlpha(ix, iy, jx, jy, kx, ky);
  if (alpha < floor) alpha = floor;
  else if (alpha > 1) alpha = 1;
  c.corner[j] = 0;
  c.c1x[j] = ax + alpha * (jx - ax);
  c.c1y[j] = ay + alpha * (jy - ay);
  c.c2x[j] = bx + alpha * (jx - bx);
  c.c2y[j] = by + alpha * (jy - by);
}

/** Open chains: a straight half-edge from the fixed start, one segment per interior vertex, a half-edge to the end. */
function smoothOpen(vx: Float64Array, vy: Float64Array, alphaMax: number): SmoothCurve {
  const m = vx.length;
  if (m <= 2) {
    const c = scratchCurve(CurveSlot.Smooth, 1, true);
    c.sx = vx[0]!;
    c.sy = vy[0]!;
    c.corner[0] = 1;
    c.vx[0] = c.c1x[0] = c.c2x[0] = vx[0]!;
    c.vy[0] = c.c1y[0] = c.c2y[0] = vy[0]!;
    c.ex[0] = vx[m - 1]!;
    c.ey[0] = vy[m - 1]!;
    return c;
  }
  const c = scratchCurve(CurveSlot.Smooth, m, true);
  c.sx = vx[0]!;
  c.sy = vy[0]!;
  // segment 0: start -> midpoint of the first edge (a line; the vertex is the start itself)
  c.corner[0] = 1;
  c.vx[0] = c.c1x[0] = c.c2x[0] = vx[0]!;
  c.vy[0] = c.c1y[0] = c.c2y[0] = vy[0]!;
  c.ex[0] = (vx[0]! + vx[1]!) / 2;
  c.ey[0] = (vy[0]! + vy[1]!) / 2;
  for (let j = 1; j < m - 1; j++) setSegment(c, j, vx[j - 1]!, vy[j - 1]!, vx[j]!, vy[j]!, vx[j + 1]!, vy[j + 1]!, alphaMax);
  // last segment: midpoint of the last edge -> end (a line)
  const l = m - 1;
  c.corner[l] = 1;
  c.vx[l] = c.c1x[l] = c.c2x[l] = vx[l]!;
  c.vy[l] = c.c1y[l] = c.c2y[l] = vy[l]!;
  c.ex[l] = vx[l]!;
  c.ey[l] = vy[l]!;
  return c;
}
