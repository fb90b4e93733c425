// Curve optimisation (Selinger 2003, sec. 2.4): join runs of consecutive Bézier segments into one Bézier
// when the run is convex (all turns the same way), turns less than 179 degrees in total, has no corner, and
// the single curve stays within `tolerance` px of the original run. The joined curve keeps the end points
// and end tangents of the run; its control arms are the same fraction alpha of the way to the tangents'
// intersection, with alpha chosen so the enclosed area is preserved (a cubic with arms alpha towards the
// apex of triangle T encloses 0.3 * alpha * (4 - alpha) * area(T)). A dynamic programme picks the fewest
// segments, ties broken by the least summed squared deviation.

import { CurveSlot, scratchCurve, type SmoothCurve } from './path.js';
import { scratchF64, scratchI32, Slot } from './scratch.js';

const MAX_RUN = 48;
const MAX_TURN = (179 / 180) * Math.PI;
// 3-point Gauss-Legendre on [0, 1]: exact for the degree-5 integrand of a cubic's area
const GT = [0.5 - Math.sqrt(15) / 10, 0.5, 0.5 + Math.sqrt(15) / 10];
const GW = [5 / 18, 8 / 18, 5 / 18];
const NEW_SAMPLES = 12;
const ORIG_SAMPLES = 4;

/** Signed area term of a cubic (integral of (x dy - y dx) / 2). */
export function cubicArea(x0: number, y0: number, x1: number, y1: number, x2: number, y2: number, x3: number, y3: number): number {
  let a = 0;
  for (let g = 0; g < 3; g++) {
    const t = GT[g]!;
    const u = 1 - t;
    const x = u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3;
    const y = u * u * u * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3;
    const dx = 3 * (u * u * (x1 - x0) + 2 * u * t * (x2 - x1) + t * t * (x3 - x2));
    const dy = 3 * (u * u * (y1 - y0) + 2 * u * t * (y2 - y1) + t * t * (y3 - y2));
    a += GW[g]! * (x * dy - y * dx);
  }
  return a / 2;
}

function bez(t: number, p0: number, p1: number, p2: number, p3: number): number {
  const u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

/**
 * The operands of distSqToCubic and advance: the cubic x0, y0, x1, y1, x2, y2, x3, y3 (0..7), the point px, py
 * (8, 9), the start parameter t0 (10); distSqToCubic leaves its result at 11. Passed through this array, not as
 * arguments and return values: every double passed to or returned from a call the optimiser does not inline is
 * boxed (a heap number each, ~12 a call, tens of thousands of calls per image).
 */
const cubic = new Float64Array(12);

/** Sets the cubic of distSqToCubic to smooth segment k of `c`. */
function setSegmentCubic(c: SmoothCurve, k: number): void {
  cubic[0] = k === 0 ? (c.open ? c.sx : c.ex[c.m - 1]!) : c.ex[k - 1]!;
  cubic[1] = k === 0 ? (c.open ? c.sy : c.ey[c.m - 1]!) : c.ey[k - 1]!;
  cubic[2] = c.c1x[k]!;
  cubic[3] = c.c1y[k]!;
  cubic[4] = c.c2x[k]!;
  cubic[5] = c.c2y[k]!;
  cubic[6] = c.ex[k]!;
  cubic[7] = c.ey[k]!;
}

/**
 * Squared distance from (px, py) to the cubic, refined by Newton steps from parameter t0
 * (the nearest of a set of samples); see `cubic` for where the operands and the result are.
 */
function distSqToCubic(): void {
  const px = cubic[8]!;
  const py = cubic[9]!;
  const x0 = cubic[0]!;
  const y0 = cubic[1]!;
  const x1 = cubic[2]!;
  const y1 = cubic[3]!;
  const x2 = cubic[4]!;
  const y2 = cubic[5]!;
  const x3 = cubic[6]!;
  const y3 = cubic[7]!;
  let t = cubic[10]!;
  for (let it = 0; it < 4; it++) {
    const u = 1 - t;
    const bx = bez(t, x0, x1, x2, x3) - px;
    const by = bez(t, y0, y1, y2, y3) - py;
    const dx = 3 * (u * u * (x1 - x0) + 2 * u * t * (x2 - x1) + t * t * (x3 - x2));
    const dy = 3 * (u * u * (y1 - y0) + 2 * u * t * (y2 - y1) + t * t * (y3 - y2));
    const ddx = 6 * (u * (x2 - 2 * x1 + x0) + t * (x3 - 2 * x2 + x1));
    const ddy = 6 * (u * (y2 - 2 * y1 + y0) + t * (y3 - 2 * y2 + y1));
    const f = bx * dx + by * dy;
    const fp = dx * dx + dy * dy + bx * ddx + by * ddy;
    if (fp <= 1e-12) break;
    let nt = t - f / fp;
    if (nt < 0) nt = 0;
    else if (nt > 1) nt = 1;
    if (Math.abs(nt - t) < 1e-6) {
      t = nt;
      break;
    }
    t = nt;
  }
  const ex = bez(t, x0, x1, x2, x3) - px;
  const ey = bez(t, y0, y1, y2, y3) - py;
  cubic[11] = ex * ex + ey * ey;
}


/** From index `from`, moves forward while the next sample is nearer to (px, py) (`cubic`); returns the index. */
function advance(xs: Float64Array, ys: Float64Array, n: number, from: number): number {
  const px = cubic[8]!;
  const py = cubic[9]!;
  let i = from;
  let dx = xs[i]! - px;
  let dy = ys[i]! - py;
  let bd = dx * dx + dy * dy;
  while (i + 1 < n) {
    dx = xs[i + 1]! - px;
    dy = ys[i + 1]! - py;
    const d = dx * dx + dy * dy;
    if (d > bd) break;
    bd = d;
    i++;
  }
  return i;
}

/** Start point of segment s (the end of segment s - 1; closed curves wrap, open ones start at (sx, sy)). */
function startX(c: SmoothCurve, s: number): number {
  return s === 0 ? (c.open ? c.sx : c.ex[c.m - 1]!) : c.ex[s - 1]!;
}

function startY(c: SmoothCurve, s: number): number {
  return s === 0 ? (c.open ? c.sy : c.ey[c.m - 1]!) : c.ey[s - 1]!;
}

// fixed-size scratch (one trace runs at a time per thread)
const origX = new Float64Array(MAX_RUN * ORIG_SAMPLES + 1);
const origY = new Float64Array(MAX_RUN * ORIG_SAMPLES + 1);
const newX = new Float64Array(NEW_SAMPLES + 1);
const newY = new Float64Array(NEW_SAMPLES + 1);
const tmp = new Float64Array(6);

/** Returns `c` itself or a scratch curve (path.ts), valid until the next call. */
export function optimizeCurve(c: SmoothCurve, tolerance: number): SmoothCurve {
  const m = c.m;
  if (tolerance <= 0 || m < 3) return c;
  // turn direction and angle at each segment's vertex
  const turnSign = scratchI32(Slot.TurnSign, m);
  const turnAngle = scratchF64(Slot.TurnAngle, m);
  for (let j = 0; j < m; j++) {
    const ax = c.vx[j]! - startX(c, j);
    const ay = c.vy[j]! - startY(c, j);
    const bx = c.ex[j]! - c.vx[j]!;
    const by = c.ey[j]! - c.vy[j]!;
    const cr = ax * by - ay * bx;
    turnSign[j] = cr > 0 ? 1 : cr < 0 ? -1 : 0;
    turnAngle[j] = Math.abs(Math.atan2(cr, ax * bx + ay * by));
  }
  // prefix sums of each segment's area term, so a run's area is O(1)
  const areaPrefix = scratchF64(Slot.AreaPrefix, m + 1);
  areaPrefix[0] = 0;
  for (let k = 0; k < m; k++) {
    const a = c.corner[k]
      ? (startX(c, k) * c.vy[k]! - c.vx[k]! * startY(c, k)) / 2 + (c.vx[k]! * c.ey[k]! - c.ex[k]! * c.vy[k]!) / 2
      : cubicArea(startX(c, k), startY(c, k), c.c1x[k]!, c.c1y[k]!, c.c2x[k]!, c.c2y[k]!, c.ex[k]!, c.ey[k]!);
    areaPrefix[k + 1] = areaPrefix[k]! + a;
  }
  const tol2 = tolerance * tolerance;

  const best = scratchI32(Slot.CurveBest, m + 1);
  const pen = scratchF64(Slot.CurvePen, m + 1);
  const from = scratchI32(Slot.CurveFrom, m + 1);
  // the merged curve found for node t (if from[t] < t - 1)
  const mc = scratchF64(Slot.Merged, (m + 1) * 6);
  best[0] = 0;
  pen[0] = 0;
  for (let t = 1; t <= m; t++) {
    best[t] = best[t - 1]! + 1;
    pen[t] = pen[t - 1]!;
    from[t] = t - 1;
    const last = t - 1;
    if (c.corner[last]) continue;
    let angle = turnAngle[last]!;
    const sign = turnSign[last]!;
    let failures = 0;
    for (let s = t - 2; s >= 0 && t - s <= MAX_RUN; s--) {
      if (c.corner[s] || turnSign[s] !== sign || sign === 0) break;
      angle += turnAngle[s]!;
      if (angle >= MAX_TURN) break;
      const e = tryMerge(c, areaPrefix, tol2, s, t);
      if (e < 0) {
        if (++failures > 1) break;
        continue;
      }
      const cand = best[s]! + 1;
      const cp = pen[s]! + e;
      if (cand < best[t]! || (cand === best[t]! && cp < pen[t]!)) {
        best[t] = cand;
        pen[t] = cp;
        from[t] = s;
        mc.set(tmp, t * 6);
      }
    }
  }
  if (best[m] === m) return c;
  const count = best[m]!;
  const out = scratchCurve(CurveSlot.Optimized, count, c.open);
  out.sx = c.open ? c.sx : 0;
  out.sy = c.open ? c.sy : 0;
  let t = m;
  let o = count - 1;
  while (t > 0) {
    const s = from[t]!;
    if (s === t - 1) {
      out.corner[o] = c.corner[s]!;
      out.vx[o] = c.vx[s]!;
      out.vy[o] = c.vy[s]!;
      out.c1x[o] = c.c1x[s]!;
      out.c1y[o] = c.c1y[s]!;
      out.c2x[o] = c.c2x[s]!;
      out.c2y[o] = c.c2y[s]!;
    } else {
      const b = t * 6;
      out.corner[o] = 0;
      out.c1x[o] = mc[b]!;
      out.c1y[o] = mc[b + 1]!;
      out.c2x[o] = mc[b + 2]!;
      out.c2y[o] = mc[b + 3]!;
      out.vx[o] = mc[b + 4]!;
      out.vy[o] = mc[b + 5]!;
    }
    out.ex[o] = c.ex[t - 1]!;
    out.ey[o] = c.ey[t - 1]!;
    o--;
    t = s;
  }
  if (!c.open) {
    out.sx = out.ex[count - 1]!;
    out.sy = out.ey[count - 1]!;
  }
  return out;
}

/** Fits one Bézier to segments s..t-1; returns the summed squared deviation, or -1 if it does not fit. */
function tryMerge(c: SmoothCurve, areaPrefix: Float64Array, tol2: number, s: number, t: number): number {
  const p0x = startX(c, s);
  const p0y = startY(c, s);
  const p3x = c.ex[t - 1]!;
  const p3y = c.ey[t - 1]!;
  const d0x = c.vx[s]! - p0x;
  const d0y = c.vy[s]! - p0y;
  const d3x = p3x - c.vx[t - 1]!;
  const d3y = p3y - c.vy[t - 1]!;
  const den = d0x * d3y - d0y * d3x;
  if (Math.abs(den) < 1e-12) return -1;
  const qx = p3x - p0x;
  const qy = p3y - p0y;
  const u = (qx * d3y - qy * d3x) / den;
  const w = (d0x * qy - d0y * qx) / den;
  if (u <= 0 || w <= 0) return -1;
  const ox = p0x + u * d0x;
  const oy = p0y + u * d0y;
  // areas against the chord p3 -> p0
  const chord = (p3x * p0y - p3y * p0x) / 2;
  const tri = (p0x * oy - p0y * ox + ox * p3y - oy * p3x) / 2 + chord;
  if (Math.abs(tri) < 1e-12) return -1;
  const area = chord + areaPrefix[t]! - areaPrefix[s]!;
  const r = area / tri / 0.3;
  if (r <= 0 || r > 4) return -1;
  const alpha = 2 - Math.sqrt(4 - r);
  const c1x = p0x + alpha * (ox - p0x);
  const c1y = p0y + alpha * (oy - p0y);
  const c2x = p3x + alpha * (ox - p3x);
  const c2y = p3y + alpha * (oy - p3y);
  // deviation both ways between the original run and the new curve
  for (let i = 0; i <= NEW_SAMPLES; i++) {
    const tt = i / NEW_SAMPLES;
    newX[i] = bez(tt, p0x, c1x, c2x, p3x);
    newY[i] = bez(tt, p0y, c1y, c2y, p3y);
  }
  let n = 0;
  for (let k = s; k < t; k++) {
    const ax = startX(c, k);
    const ay = startY(c, k);
    for (let i = 0; i < ORIG_SAMPLES; i++) {
      const tt = i / ORIG_SAMPLES;
      origX[n] = bez(tt, ax, c.c1x[k]!, c.c2x[k]!, c.ex[k]!);
      origY[n] = bez(tt, ay, c.c1y[k]!, c.c2y[k]!, c.ey[k]!);
      n++;
    }
  }
  origX[n] = p3x;
  origY[n] = p3y;
  n++;
  // both sample sequences run along the same curve, so nearest samples advance monotonically
  let sum = 0;
  let near = 0;
  cubic[0] = p0x;
  cubic[1] = p0y;
  cubic[2] = c1x;
  cubic[3] = c1y;
  cubic[4] = c2x;
  cubic[5] = c2y;
  cubic[6] = p3x;
  cubic[7] = p3y;
  for (let i = 1; i < n - 1; i++) {
    cubic[8] = origX[i]!;
    cubic[9] = origY[i]!;
    near = advance(newX, newY, NEW_SAMPLES + 1, near);
    cubic[10] = near / NEW_SAMPLES;
    distSqToCubic();
    const d = cubic[11]!;
    if (d > tol2) return -1;
    sum += d;
  }
  near = 0;
  // the original segment measured against, set when it changes
  let segment = -1;
  for (let i = 1; i < NEW_SAMPLES; i++) {
    cubic[8] = newX[i]!;
    cubic[9] = newY[i]!;
    near = advance(origX, origY, n, near);
    const ni = Math.min(near, n - 2);
    const k = s + Math.floor(ni / ORIG_SAMPLES);
    if (k !== segment) {
      setSegmentCubic(c, k);
      segment = k;
    }
    cubic[10] = (ni % ORIG_SAMPLES) / ORIG_SAMPLES;
    distSqToCubic();
    const d = cubic[11]!;
    if (d > tol2) return -1;
    sum += d;
  }
  tmp[0] = c1x;
  tmp[1] = c1y;
  tmp[2] = c2x;
  tmp[3] = c2y;
  tmp[4] = ox;
  tmp[5] = oy;
  return sum;
}
