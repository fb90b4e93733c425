// Primitive recognition over a traced result: every closed outline that is a circle, ellipse, rectangle or
// rounded rectangle within the tolerance (fit.ts) is replaced by that exact shape, kept as its parameters
// (the SVG writer emits <circle>/<ellipse>/<rect> for a shape made of that one outline) and as exact segments
// (quarter-ellipse Béziers, error 0.03 % of the radius, and lines) for path data, PDF, EPS and DXF, in the
// outline's own direction so holes stay holes.
// Seams: an outline that coincides along part of its length with another shape's outline (stacked: a lower
// layer extended under it and bordering the same transparency; cutout: a piece sharing part of its boundary
// with several neighbours) is left as traced, since moving one of two coincident curves opens a sliver.
// The one exception is a cutout boundary shared whole with one neighbour (the same curve reversed, e.g. a
// dot inside a field): both outlines get the same exact shape.
import type { PathSegments, Primitive, TraceResult, TracedShape } from '../types.js';
import { fitPrimitive, moments, sampleOutline } from './fit.js';
import { hypot } from '../hypot.js';

export { fitPrimitive } from './fit.js';

/** 4/3 tan(pi/8): control arm of a quarter-circle cubic. */
const KAPPA = 0.5522847498307936;

/**
 * Tolerances (px) for an outline of `minSide` px across: circles and ellipses 0.5 px up to 125 px across
 * (a typographic O of 113 px is within 1 px of an ellipse, and must not become one); rectangles up to 1 px, since the tracer cuts their corners by that much
 * (0.9 px on a 160 x 90 rectangle turned 20 degrees, 1.0 px where a 20 px corner arc meets its sides); large
 * circles up to 1 px too (0.004 x size). Every accepted shape also stays within 0.3 px RMS (fit.ts).
 */
export function primitiveTolerance(minSide: number): { tol: number; rectTol: number } {
  return { tol: Math.max(0.5, Math.min(1, 0.004 * minSide)), rectTol: Math.max(0.5, Math.min(1, 0.012 * minSide)) };
}

/** Exact segments of `prim`, clockwise on screen (y down) when `clockwise`, else counter-clockwise. */
export function primitiveSegments(prim: Primitive, clockwise: boolean): PathSegments {
  // local frame: u along the angle, v perpendicular; ellipse/circle as four quarter arcs from (rx, 0)
  const angle = prim.kind === 'circle' ? 0 : prim.angle;
  const c = Math.cos(angle), s = Math.sin(angle);
  const X = (u: number, v: number) => prim.cx + u * c - v * s;
  const Y = (u: number, v: number) => prim.cy + u * s + v * c;
  const segs: PathSegments['segs'] = [];
  let start: [number, number];
  // a quarter arc of the axis-aligned ellipse (radii a, b) centred at (ou, ov), from angle t0 to t0 + pi/2
  const quarter = (ou: number, ov: number, a: number, b: number, t0: number) => {
    const t1 = t0 + Math.PI / 2;
    const u0 = ou + a * Math.cos(t0), v0 = ov + b * Math.sin(t0);
    const u1 = ou + a * Math.cos(t1), v1 = ov + b * Math.sin(t1);
    const du0 = -a * Math.sin(t0), dv0 = b * Math.cos(t0);
    const du1 = -a * Math.sin(t1), dv1 = b * Math.cos(t1);
    segs.push({ kind: 'C', x1: X(u0 + KAPPA * du0, v0 + KAPPA * dv0), y1: Y(u0 + KAPPA * du0, v0 + KAPPA * dv0), x2: X(u1 - KAPPA * du1, v1 - KAPPA * dv1), y2: Y(u1 - KAPPA * du1, v1 - KAPPA * dv1), x: X(u1, v1), y: Y(u1, v1) });
  };
  if (prim.kind === 'circle' || prim.kind === 'ellipse') {
    const a = prim.kind === 'circle' ? prim.r : prim.rx, b = prim.kind === 'circle' ? prim.r : prim.ry;
    start = [X(a, 0), Y(a, 0)];
    for (let k = 0; k < 4; k++) quarter(0, 0, a, b, (k * Math.PI) / 2);
  } else {
    const hw = prim.w / 2, hh = prim.h / 2, r = prim.r;
    // clockwise on screen from the right side's top end: right side down, bottom-right corner, bottom side...
    start = [X(hw, -hh + r), Y(hw, -hh + r)];
    const line = (u: number, v: number) => segs.push({ kind: 'L', x: X(u, v), y: Y(u, v) });
    line(hw, hh - r);
    if (r > 0) quarter(hw - r, hh - r, r, r, 0);
    line(-hw + r, hh);
    if (r > 0) quarter(-hw + r, hh - r, r, r, Math.PI / 2);
    line(-hw, -hh + r);
    if (r > 0) quarter(-hw + r, -hh + r, r, r, Math.PI);
    line(hw - r, -hh);
    if (r > 0) quarter(hw - r, -hh + r, r, r, (3 * Math.PI) / 2);
    else line(hw, -hh);
  }
  const sp: PathSegments = { start, segs };
  return clockwise ? sp : reverse(sp);
}

function reverse(p: PathSegments): PathSegments {
  const n = p.segs.length;
  const segs: PathSegments['segs'] = [];
  for (let i = n - 1; i >= 0; i--) {
    const s = p.segs[i]!;
    const prev = i > 0 ? p.segs[i - 1]! : null;
    const px = prev ? prev.x : p.start[0], py = prev ? prev.y : p.start[1];
    if (s.kind === 'L') segs.push({ kind: 'L', x: px, y: py });
    else segs.push({ kind: 'C', x1: s.x2, y1: s.y2, x2: s.x1, y2: s.y1, x: px, y: py });
  }
  const last = p.segs[n - 1]!;
  return { start: [last.x, last.y], segs };
}

function endpointKey(sp: PathSegments): string {
  const pts = [sp.start, ...sp.segs.map((s) => [s.x, s.y] as const)].map((p) => `${Math.round(p[0] * 100)},${Math.round(p[1] * 100)}`);
  return [...new Set(pts)].sort().join(';');
}

interface Outline {
  shape: number;
  index: number;
  sp: PathSegments;
  /** Samples along the outline, made when first needed (most outlines are never compared). */
  samples: Float64Array | null;
  /** Bounding box of the segment end and control points (contains the outline). */
  box: [number, number, number, number];
}

function samplesOf(o: Outline): Float64Array {
  return (o.samples ??= sampleOutline(o.sp));
}

/**
 * The outlines of other shapes with a sample within `d` px of a sample of `a`. a's samples are bucketed once
 * into a dense grid over their bounding box (at most ~64 x 64 cells, each at least `d` and 1 px wide, so the
 * 3 x 3 cells around a point hold every sample within `d` of it), linked through typed arrays.
 */
function coincident(a: Outline, all: readonly Outline[], d: number): Outline[] {
  const as = samplesOf(a);
  const ns = as.length / 2;
  if (ns === 0) return [];
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < as.length; i += 2) {
    const x = as[i]!, y = as[i + 1]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const cell = Math.max(d, 1, (maxX - minX) / 64, (maxY - minY) / 64);
  const gw = Math.floor((maxX - minX) / cell) + 1;
  const gh = Math.floor((maxY - minY) / cell) + 1;
  // head[cell]: first sample in the cell (-1: none); next[sample]: the next sample in its cell
  const head = new Int32Array(gw * gh).fill(-1);
  const next = new Int32Array(ns);
  for (let s = 0; s < ns; s++) {
    const c = Math.floor((as[2 * s + 1]! - minY) / cell) * gw + Math.floor((as[2 * s]! - minX) / cell);
    next[s] = head[c]!;
    head[c] = s;
  }
  const out: Outline[] = [];
  for (const b of all) {
    if (b === a || b.shape === a.shape) continue;
    if (b.box[0] > a.box[2] + d || b.box[2] < a.box[0] - d || b.box[1] > a.box[3] + d || b.box[3] < a.box[1] - d) continue;
    let hit = false;
    const bs = samplesOf(b);
    for (let j = 0; j < bs.length && !hit; j += 2) {
      const x = bs[j]!, y = bs[j + 1]!;
      if (x < a.box[0] - d || x > a.box[2] + d || y < a.box[1] - d || y > a.box[3] + d) continue;
      const gx = Math.floor((x - minX) / cell), gy = Math.floor((y - minY) / cell);
      for (let cy = Math.max(0, gy - 1); cy <= Math.min(gh - 1, gy + 1) && !hit; cy++) {
        for (let cx = Math.max(0, gx - 1); cx <= Math.min(gw - 1, gx + 1) && !hit; cx++) {
          for (let s = head[cy * gw + cx]!; s >= 0; s = next[s]!) {
            const ax = as[2 * s]!, ay = as[2 * s + 1]!;
            if (Math.abs(ax - x) <= d && Math.abs(ay - y) <= d && hypot(ax - x, ay - y) <= d) { hit = true; break; }
          }
        }
      }
    }
    if (hit) out.push(b);
  }
  return out;
}

/** What `recognisePrimitives` did. */
export interface PrimitiveStats {
  /** Closed outlines looked at. */
  outlines: number;
  /** Outlines replaced by an exact shape, by kind. */
  circle: number;
  ellipse: number;
  rect: number;
  roundedRect: number;
  /** Outlines that fit a shape but were kept because they coincide with another outline. */
  keptForSeams: number;
}

/**
 * Replace every outline that is a circle, ellipse, rectangle or rounded rectangle (any rotation) by the exact
 * shape. Pure: returns a new result; `shapes[i].subpaths[j].primitive` is set on replaced outlines.
 */
export function recognisePrimitives(result: TraceResult): { result: TraceResult; stats: PrimitiveStats } {
  const stats: PrimitiveStats = { outlines: 0, circle: 0, ellipse: 0, rect: 0, roundedRect: 0, keptForSeams: 0 };
  const outlines: Outline[] = [];
  result.shapes.forEach((shape, si) => {
    shape.subpaths.forEach((sp, index) => {
      if (sp.segs.length === 0) return;
      stats.outlines++;
      let x0 = sp.start[0], y0 = sp.start[1], x1 = x0, y1 = y0;
      const grow = (x: number, y: number) => {
        if (x < x0) x0 = x; else if (x > x1) x1 = x;
        if (y < y0) y0 = y; else if (y > y1) y1 = y;
      };
      for (const g of sp.segs) {
        grow(g.x, g.y);
        if (g.kind === 'C') { grow(g.x1, g.y1); grow(g.x2, g.y2); }
      }
      outlines.push({ shape: si, index, sp, samples: null, box: [x0, y0, x1, y1] });
    });
  });
  const replaced = new Map<Outline, Primitive>();
  const keys = new Map<Outline, string>();
  const keyOf = (o: Outline) => {
    let k = keys.get(o);
    if (k === undefined) keys.set(o, (k = endpointKey(o.sp)));
    return k;
  };
  for (const o of outlines) {
    if (replaced.has(o)) continue;
    const minSide = Math.min(o.box[2] - o.box[0], o.box[3] - o.box[1]);
    const prim = fitPrimitive(o.sp, primitiveTolerance(minSide));
    if (!prim) continue;
    const near = coincident(o, outlines, 0.6);
    if (near.length === 0) {
      replaced.set(o, prim);
    } else if (near.length === 1 && keyOf(near[0]!) === keyOf(o)) {
      replaced.set(o, prim);
      replaced.set(near[0]!, prim);
    } else {
      stats.keptForSeams++;
    }
  }
  // the outline of subpath `index` of shape `si`: bySlot[si][index]
  const bySlot: Outline[][] = result.shapes.map(() => []);
  for (const o of outlines) bySlot[o.shape]![o.index] = o;
  const shapes: TracedShape[] = result.shapes.map((shape, si) => ({
    label: shape.label,
    subpaths: shape.subpaths.map((sp, index) => {
      const o = bySlot[si]![index];
      const prim = o ? replaced.get(o) : undefined;
      if (!o || !prim) return sp;
      const kind = prim.kind === 'rect' && prim.r > 0 ? 'roundedRect' : prim.kind;
      stats[kind]++;
      const clockwise = moments(samplesOf(o)).area > 0;
      return { ...primitiveSegments(prim, clockwise), primitive: prim };
    }),
  }));
  return { result: { shapes }, stats };
}
