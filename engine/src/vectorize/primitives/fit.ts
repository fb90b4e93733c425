// Primitive recognition for traced outlines: is a closed subpath a circle, an ellipse, a rectangle or a
// rounded rectangle (any rotation) within a tolerance? The outline is sampled densely; the candidate shape
// comes from the outline's area moments (centroid, area, second moments: for a filled ellipse they give its
// axes exactly) or, for rectangles, from the dominant edge direction (4-fold circular mean) and the extents
// in that frame (corner radius from the area deficit w*h - A = (4 - pi) r^2). A candidate is accepted when
// every sample lies within `tol` px of its boundary and the areas agree; the simplest accepted model wins
// (circle, rectangle, ellipse, rounded rectangle).
import type { PathSegments, Primitive } from '../types.js';
import { hypot } from '../hypot.js';

export type { Primitive } from '../types.js';

/** Samples along a closed subpath, about every `step` px (Béziers by parameter, lines by length). */
export function sampleOutline(sp: PathSegments, step = 0.5): Float64Array {
  // at most ~600 samples: large outlines are sampled more sparsely
  let approx = 0;
  let px = sp.start[0], py = sp.start[1];
  for (const s of sp.segs) {
    approx += hypot(s.x - px, s.y - py);
    px = s.x;
    py = s.y;
  }
  step = Math.max(step, approx / 600);
  // samples per segment, counted first so they are written straight into the result
  const count = (s: PathSegments['segs'][number], x0: number, y0: number): number => {
    if (s.kind === 'L') return Math.max(1, Math.ceil(hypot(s.x - x0, s.y - y0) / step));
    const len = hypot(s.x1 - x0, s.y1 - y0) + hypot(s.x2 - s.x1, s.y2 - s.y1) + hypot(s.x - s.x2, s.y - s.y2);
    return Math.max(2, Math.ceil(len / step));
  };
  let total = 0;
  px = sp.start[0];
  py = sp.start[1];
  for (const s of sp.segs) {
    total += count(s, px, py);
    px = s.x;
    py = s.y;
  }
  const out = new Float64Array(2 * total);
  let o = 0;
  let x0 = sp.start[0], y0 = sp.start[1];
  for (const s of sp.segs) {
    const n = count(s, x0, y0);
    if (s.kind === 'L') {
      for (let i = 0; i < n; i++) {
        out[o++] = x0 + ((s.x - x0) * i) / n;
        out[o++] = y0 + ((s.y - y0) * i) / n;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const t = i / n, u = 1 - t;
        const a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
        out[o++] = a * x0 + b * s.x1 + c * s.x2 + d * s.x;
        out[o++] = a * y0 + b * s.y1 + c * s.y2 + d * s.y;
      }
    }
    x0 = s.x;
    y0 = s.y;
  }
  return out;
}

/** Signed area (positive = clockwise on screen, y down), centroid and central second moments of a polygon. */
export function moments(p: Float64Array): { area: number; cx: number; cy: number; xx: number; yy: number; xy: number } {
  const n = p.length / 2;
  let a = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (let i = 0; i < n; i++) {
    const x0 = p[2 * i]!, y0 = p[2 * i + 1]!;
    const j = (i + 1) % n;
    const x1 = p[2 * j]!, y1 = p[2 * j + 1]!;
    const c = x0 * y1 - x1 * y0;
    a += c;
    sx += (x0 + x1) * c;
    sy += (y0 + y1) * c;
    sxx += (x0 * x0 + x0 * x1 + x1 * x1) * c;
    syy += (y0 * y0 + y0 * y1 + y1 * y1) * c;
    sxy += (x0 * y1 + 2 * x0 * y0 + 2 * x1 * y1 + x1 * y0) * c;
  }
  const area = a / 2;
  if (area === 0) return { area: 0, cx: 0, cy: 0, xx: 0, yy: 0, xy: 0 };
  const cx = sx / (6 * area), cy = sy / (6 * area);
  return { area, cx, cy, xx: sxx / (12 * area) - cx * cx, yy: syy / (12 * area) - cy * cy, xy: sxy / (24 * area) - cx * cy };
}

/** Signed distance from (x, y) to the boundary of `prim` (negative inside; ellipses: radial approximation). */
export function distanceTo(prim: Primitive, x: number, y: number): number {
  const dx = x - prim.cx, dy = y - prim.cy;
  if (prim.kind === 'circle') return hypot(dx, dy) - prim.r;
  const c = Math.cos(prim.angle), s = Math.sin(prim.angle);
  const u = dx * c + dy * s, v = -dx * s + dy * c;
  if (prim.kind === 'ellipse') {
    const d = hypot(u, v);
    if (d === 0) return -Math.min(prim.rx, prim.ry);
    const re = 1 / Math.sqrt((u / d / prim.rx) ** 2 + (v / d / prim.ry) ** 2);
    return d - re;
  }
  const qx = Math.abs(u) - (prim.w / 2 - prim.r), qy = Math.abs(v) - (prim.h / 2 - prim.r);
  return hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - prim.r;
}

function area(prim: Primitive): number {
  if (prim.kind === 'circle') return Math.PI * prim.r * prim.r;
  if (prim.kind === 'ellipse') return Math.PI * prim.rx * prim.ry;
  return prim.w * prim.h - (4 - Math.PI) * prim.r * prim.r;
}

function toVector(prim: Primitive): number[] {
  if (prim.kind === 'circle') return [prim.cx, prim.cy, prim.r];
  if (prim.kind === 'ellipse') return [prim.cx, prim.cy, prim.rx, prim.ry, prim.angle];
  return prim.r > 0 ? [prim.cx, prim.cy, prim.w, prim.h, prim.angle, prim.r] : [prim.cx, prim.cy, prim.w, prim.h, prim.angle];
}

function fromVector(kind: Primitive['kind'], v: number[]): Primitive {
  if (kind === 'circle') return { kind, cx: v[0]!, cy: v[1]!, r: Math.abs(v[2]!) };
  if (kind === 'ellipse') return { kind, cx: v[0]!, cy: v[1]!, rx: Math.abs(v[2]!), ry: Math.abs(v[3]!), angle: v[4]! };
  const w = Math.abs(v[2]!), h = Math.abs(v[3]!);
  return { kind, cx: v[0]!, cy: v[1]!, w, h, angle: v[4]!, r: v.length > 5 ? Math.min(Math.abs(v[5]!), Math.min(w, h) / 2) : 0 };
}

function rms(prim: Primitive, p: Float64Array): number {
  return rmsOf(prim.kind, Float64Array.from(toVector(prim)), p);
}

/** RMS distance of the samples from the shape with parameter vector `v` (no allocation: runs in the refinement loop). */
function rmsOf(kind: Primitive['kind'], v: Float64Array, p: Float64Array): number {
  const cx = v[0]!, cy = v[1]!;
  let s = 0;
  if (kind === 'circle') {
    const r = Math.abs(v[2]!);
    for (let i = 0; i < p.length; i += 2) s += (hypot(p[i]! - cx, p[i + 1]! - cy) - r) ** 2;
  } else {
    const c = Math.cos(v[4]!), sn = Math.sin(v[4]!);
    const a = Math.abs(v[2]!), b = Math.abs(v[3]!);
    if (kind === 'ellipse') {
      for (let i = 0; i < p.length; i += 2) {
        const dx = p[i]! - cx, dy = p[i + 1]! - cy;
        const u = dx * c + dy * sn, w = -dx * sn + dy * c;
        const d = hypot(u, w);
        const re = d === 0 ? 0 : 1 / Math.sqrt((u / d / a) ** 2 + (w / d / b) ** 2);
        s += (d - re) ** 2;
      }
    } else {
      const r = v.length > 5 ? Math.min(Math.abs(v[5]!), Math.min(a, b) / 2) : 0;
      const hx = a / 2 - r, hy = b / 2 - r;
      for (let i = 0; i < p.length; i += 2) {
        const dx = p[i]! - cx, dy = p[i + 1]! - cy;
        const qx = Math.abs(dx * c + dy * sn) - hx, qy = Math.abs(-dx * sn + dy * c) - hy;
        const d = hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
        s += d * d;
      }
    }
  }
  return Math.sqrt(s / (p.length / 2));
}

/** Least-squares refinement of a candidate's parameters (Nelder-Mead on the RMS distance of the samples). */
function refine(prim: Primitive, p: Float64Array): Primitive {
  const kind = prim.kind;
  const x0 = toVector(prim);
  const n = x0.length;
  // simplex vertices as rows of one array; scratch points for reflection, expansion, contraction
  const S = new Float64Array((n + 1) * n);
  const vals = new Float64Array(n + 1);
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j < n; j++) S[i * n + j] = x0[j]! + (i === j + 1 ? (j === 4 ? 0.01 : 0.5) : 0);
    vals[i] = rmsOf(kind, S.subarray(i * n, i * n + n), p);
  }
  const cen = new Float64Array(n), xr = new Float64Array(n), xe = new Float64Array(n), xc = new Float64Array(n);
  const order = Array.from({ length: n + 1 }, (_, i) => i);
  for (let iter = 0; iter < 30 * n; iter++) {
    sortByValue(order, vals);
    const best = order[0]!, worst = order[n]!, second = order[n - 1]!;
    if (vals[worst]! - vals[best]! < 1e-5) break;
    cen.fill(0);
    for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) cen[j] += S[order[k]! * n + j]! / n;
    const W = worst * n;
    for (let j = 0; j < n; j++) xr[j] = cen[j]! - (S[W + j]! - cen[j]!);
    const fr = rmsOf(kind, xr, p);
    if (fr < vals[best]!) {
      for (let j = 0; j < n; j++) xe[j] = cen[j]! - 2 * (S[W + j]! - cen[j]!);
      const fe = rmsOf(kind, xe, p);
      if (fe < fr) { S.set(xe, W); vals[worst] = fe; } else { S.set(xr, W); vals[worst] = fr; }
    } else if (fr < vals[second]!) {
      S.set(xr, W);
      vals[worst] = fr;
    } else {
      for (let j = 0; j < n; j++) xc[j] = cen[j]! + 0.5 * (S[W + j]! - cen[j]!);
      const fc = rmsOf(kind, xc, p);
      if (fc < vals[worst]!) {
        S.set(xc, W);
        vals[worst] = fc;
      } else {
        const B = best * n;
        for (let i = 0; i <= n; i++) {
          if (i === best) continue;
          for (let j = 0; j < n; j++) S[i * n + j] = S[B + j]! + 0.5 * (S[i * n + j]! - S[B + j]!);
          vals[i] = rmsOf(kind, S.subarray(i * n, i * n + n), p);
        }
      }
    }
  }
  let bi = 0;
  for (let i = 1; i <= n; i++) if (vals[i]! < vals[bi]!) bi = i;
  return fromVector(kind, Array.from(S.subarray(bi * n, bi * n + n)));
}

/**
 * `order.sort((a, b) => vals[a] - vals[b])` without its allocations (a closure and the sort's work arrays per
 * call, hundreds of calls per refinement): a stable insertion sort, so the same order as the (stable) built-in
 * sort whenever the comparisons are consistent; with a NaN value the built-in sort itself decides.
 */
function sortByValue(order: number[], vals: Float64Array): void {
  for (let i = 0; i < order.length; i++) {
    if (Number.isNaN(vals[order[i]!]!)) {
      order.sort((a, b) => vals[a]! - vals[b]!);
      return;
    }
  }
  for (let i = 1; i < order.length; i++) {
    const o = order[i]!;
    const v = vals[o]!;
    let j = i;
    for (; j > 0 && vals[order[j - 1]!]! > v; j--) order[j] = order[j - 1]!;
    order[j] = o;
  }
}

function maxDistance(prim: Primitive, p: Float64Array, limit: number): number {
  let worst = 0;
  for (let i = 0; i < p.length; i += 2) {
    const d = Math.abs(distanceTo(prim, p[i]!, p[i + 1]!));
    if (d > worst) worst = d;
    if (worst > limit) return Infinity;
  }
  return worst;
}

/** Largest RMS distance (px) of the samples from an accepted primitive: a shape that is only close all along is not it. */
const MAX_RMS = 0.3;

function fits(prim: Primitive, p: Float64Array, signedArea: number, tol: number): number {
  let worst = 0, sum = 0;
  for (let i = 0; i < p.length; i += 2) {
    const d = Math.abs(distanceTo(prim, p[i]!, p[i + 1]!));
    sum += d * d;
    if (d > worst) worst = d;
    if (worst > tol) return Infinity;
  }
  if (Math.sqrt(sum / (p.length / 2)) > MAX_RMS) return Infinity;
  // the same area within a tol-wide band along the perimeter (rules out paths that double back on the shape)
  const perim = (p.length / 2) * 0.5;
  if (Math.abs(Math.abs(signedArea) - area(prim)) > perim * tol) return Infinity;
  return worst;
}

/** Dominant edge direction modulo 90 degrees (length-weighted circular mean of 4 x direction), in radians. */
function edgeDirection(p: Float64Array): number {
  const n = p.length / 2;
  let c = 0, s = 0;
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    const dx = p[2 * j]! - p[2 * i]!, dy = p[2 * j + 1]! - p[2 * i + 1]!;
    const len = hypot(dx, dy);
    if (len === 0) continue;
    const a = 4 * Math.atan2(dy, dx);
    c += len * Math.cos(a);
    s += len * Math.sin(a);
  }
  return Math.atan2(s, c) / 4;
}

/**
 * A rounded rectangle must have a straight side at least twice its corner radius: a round letter (an O, a
 * squircle) fits a large-radius rounded rectangle within the corner tolerance (Dior's O: 0.47 px) but has no
 * straight part, while buttons, pills and frames do (a 400 x 110 pill: 290 px against r = 55).
 */
function plausible(prim: Primitive): boolean {
  if (prim.kind !== 'rect' || prim.r === 0) return true;
  return Math.max(prim.w, prim.h) - 2 * prim.r >= 2 * prim.r;
}

/** Outlines with more segments than this are not tried (a traced rounded rectangle has about 16). */
const MAX_SEGMENTS = 48;

/** Options of `fitPrimitive`. */
export interface FitOptions {
  /** Largest distance (px) of any outline sample from a circle's or ellipse's boundary. */
  tol: number;
  /** The same for rectangles (the tracer rounds their corners by up to ~1 px); default `tol`. */
  rectTol?: number;
  /** Smallest size (px across) worth recognising. */
  minSize?: number;
}

/**
 * The primitive `sp` is within `opts.tol`, or null. Tries circle, rectangle, ellipse, rounded rectangle.
 * @example fitPrimitive(subpath, { tol: 0.5 }) // { kind: 'circle', cx: 40, cy: 40, r: 30 }
 */
export function fitPrimitive(sp: PathSegments, opts: FitOptions): Primitive | null {
  const tol = opts.tol;
  // a traced circle, ellipse or (rounded) rectangle has a handful of segments; long outlines are something else
  if (sp.segs.length > MAX_SEGMENTS) return null;
  const p = sampleOutline(sp);
  if (p.length < 16) return null;
  const m = moments(p);
  const A = Math.abs(m.area);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < p.length; i += 2) {
    minX = Math.min(minX, p[i]!); maxX = Math.max(maxX, p[i]!);
    minY = Math.min(minY, p[i + 1]!); maxY = Math.max(maxY, p[i + 1]!);
  }
  if (Math.min(maxX - minX, maxY - minY) < (opts.minSize ?? 4) || A === 0) return null;
  const candidates: Primitive[] = [];
  candidates.push({ kind: 'circle', cx: m.cx, cy: m.cy, r: Math.sqrt(A / Math.PI) });
  // rectangle frame: dominant edge direction, extents in that frame
  const ang = edgeDirection(p);
  const c = Math.cos(ang), s = Math.sin(ang);
  let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity;
  for (let i = 0; i < p.length; i += 2) {
    const dx = p[i]! - m.cx, dy = p[i + 1]! - m.cy;
    const u = dx * c + dy * s, v = -dx * s + dy * c;
    u0 = Math.min(u0, u); u1 = Math.max(u1, u); v0 = Math.min(v0, v); v1 = Math.max(v1, v);
  }
  const w = u1 - u0, h = v1 - v0;
  const rcx = m.cx + ((u0 + u1) / 2) * c - ((v0 + v1) / 2) * s, rcy = m.cy + ((u0 + u1) / 2) * s + ((v0 + v1) / 2) * c;
  candidates.push({ kind: 'rect', cx: rcx, cy: rcy, w, h, angle: ang, r: 0 });
  // ellipse from the second moments: for a filled ellipse, variance along an axis = (semi-axis)^2 / 4
  const tr = m.xx + m.yy, det = m.xx * m.yy - m.xy * m.xy;
  const disc = Math.sqrt(Math.max(0, (tr * tr) / 4 - det));
  const l1 = tr / 2 + disc, l2 = tr / 2 - disc;
  if (l2 > 0) {
    const theta = Math.abs(m.xy) < 1e-12 ? (m.xx >= m.yy ? 0 : Math.PI / 2) : Math.atan2(l1 - m.xx, m.xy);
    candidates.push({ kind: 'ellipse', cx: m.cx, cy: m.cy, rx: 2 * Math.sqrt(l1), ry: 2 * Math.sqrt(l2), angle: theta });
  }
  const deficit = w * h - A;
  if (deficit > 0) {
    const r = Math.min(Math.sqrt(deficit / (4 - Math.PI)), Math.min(w, h) / 2);
    if (r >= 1) candidates.push({ kind: 'rect', cx: rcx, cy: rcy, w, h, angle: ang, r });
  }
  // refinement reads at most ~120 samples (the full set checks the result)
  const every = Math.max(1, Math.floor(p.length / 2 / 120));
  let sparse = p;
  if (every > 1) {
    sparse = new Float64Array(2 * Math.floor(p.length / 2 / every));
    for (let i = 0; i < sparse.length; i += 2) {
      sparse[i] = p[i * every]!;
      sparse[i + 1] = p[i * every + 1]!;
    }
  }
  for (const cand of candidates) {
    const t = cand.kind === 'rect' ? (opts.rectTol ?? tol) : tol;
    // only near-misses are worth refining: a different shape misses by far more than the tolerance
    if (maxDistance(cand, p, 2 * t + 0.5) === Infinity) continue;
    // the moment estimate of a true circle or ellipse is usually within tolerance already
    if (plausible(cand) && fits(cand, p, m.area, t) <= t) return normalise(cand);
    // refinement moves the estimate by a fraction of a pixel: a candidate this far off in RMS will not fit
    if (rms(cand, sparse) > 3 * MAX_RMS) continue;
    const best = refine(cand, sparse);
    if (!plausible(best)) continue;
    if (fits(best, p, m.area, t) <= t) return normalise(best);
  }
  return null;
}

/** Canonical parameters: angle in (-pi/2, pi/2], rectangles with w >= h... kept as fitted but angle near 0 snapped. */
function normalise(prim: Primitive): Primitive {
  if (prim.kind === 'circle') return prim;
  // a square whose corner radius is half its side is a circle
  if (prim.kind === 'rect' && Math.abs(prim.w - prim.h) < 1 && prim.r >= Math.min(prim.w, prim.h) / 2 - 0.5) {
    return { kind: 'circle', cx: prim.cx, cy: prim.cy, r: (prim.w + prim.h) / 4 };
  }
  let a = prim.angle % Math.PI;
  if (a > Math.PI / 2) a -= Math.PI;
  if (a <= -Math.PI / 2) a += Math.PI;
  if (Math.abs(a) < 1e-3) a = 0;
  return { ...prim, angle: a };
}
