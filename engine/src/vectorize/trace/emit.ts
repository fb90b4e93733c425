// Turns a smoothed curve (or a raw lattice path, for pixel-exact output) into PathSegments in source-pixel
// coordinates: starts closed curves at a corner when they have one, drops zero-length lines and merges
// collinear consecutive lines so a square is exactly four corners.

import type { PathSegments } from '../types.js';
import type { LatticePath, SmoothCurve } from './path.js';
import { hypot } from '../hypot.js';

type Seg = PathSegments['segs'][number];

const EPS = 1e-9;

/** Appends a line unless it is zero-length (lines are merged later by `mergeLines`). */
function pushLine(segs: Seg[], px: number, py: number, x: number, y: number): void {
  if (Math.abs(x - px) < EPS && Math.abs(y - py) < EPS) return;
  segs.push({ kind: 'L', x, y });
}

/** Merges consecutive collinear lines running the same way (and, on closed paths, across the start). */
function mergeLines(start: [number, number], segs: Seg[], closed: boolean): PathSegments {
  const out: Seg[] = [];
  let ax = start[0];
  let ay = start[1];
  // (ax, ay): start of the last output segment's line; (px, py): current point
  let px = start[0];
  let py = start[1];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (s.kind === 'L' && last && last.kind === 'L' && collinear(ax, ay, px, py, s.x, s.y)) {
      last.x = s.x;
      last.y = s.y;
    } else {
      out.push(s.kind === 'L' ? { kind: 'L', x: s.x, y: s.y } : s);
      ax = px;
      ay = py;
    }
    px = s.x;
    py = s.y;
  }
  if (closed && out.length >= 3) {
    // the start point itself may sit in the middle of a straight line: start at the previous vertex instead
    const first = out[0]!;
    const last = out[out.length - 1]!;
    const prev = out[out.length - 2]!;
    if (first.kind === 'L' && last.kind === 'L' && collinear(prev.x, prev.y, start[0], start[1], first.x, first.y)) {
      return { start: [prev.x, prev.y], segs: [{ kind: 'L', x: first.x, y: first.y }, ...out.slice(1, out.length - 1)] };
    }
  }
  return { start, segs: out };
}

function collinear(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  const ux = bx - ax;
  const uy = by - ay;
  const vx = cx - bx;
  const vy = cy - by;
  const cr = ux * vy - uy * vx;
  return Math.abs(cr) <= 1e-9 * hypot(ux, uy) * hypot(vx, vy) && ux * vx + uy * vy > 0;
}

export function emitCurve(c: SmoothCurve): PathSegments {
  const m = c.m;
  const segs: Seg[] = [];
  if (c.open) {
    let px = c.sx;
    let py = c.sy;
    for (let j = 0; j < m; j++) {
      ({ px, py } = emitOne(segs, c, j, px, py));
    }
    return mergeLines([c.sx, c.sy], segs, false);
  }
  // closed: start at the first corner vertex, if any, else at the end of the last segment
  let first = -1;
  for (let j = 0; j < m; j++) {
    if (c.corner[j]) {
      first = j;
      break;
    }
  }
  let sx: number;
  let sy: number;
  let px: number;
  let py: number;
  if (first >= 0) {
    sx = c.vx[first]!;
    sy = c.vy[first]!;
    px = sx;
    py = sy;
    segs.push({ kind: 'L', x: c.ex[first]!, y: c.ey[first]! });
    px = c.ex[first]!;
    py = c.ey[first]!;
    if (Math.abs(px - sx) < EPS && Math.abs(py - sy) < EPS) segs.pop();
    for (let i = 1; i < m; i++) ({ px, py } = emitOne(segs, c, (first + i) % m, px, py));
    pushLine(segs, px, py, sx, sy);
  } else {
    sx = c.ex[m - 1]!;
    sy = c.ey[m - 1]!;
    px = sx;
    py = sy;
    for (let j = 0; j < m; j++) ({ px, py } = emitOne(segs, c, j, px, py));
  }
  return mergeLines([sx, sy], segs, true);
}

function emitOne(segs: Seg[], c: SmoothCurve, j: number, px: number, py: number): { px: number; py: number } {
  if (c.corner[j]) {
    pushLine(segs, px, py, c.vx[j]!, c.vy[j]!);
    pushLine(segs, c.vx[j]!, c.vy[j]!, c.ex[j]!, c.ey[j]!);
  } else {
    segs.push({ kind: 'C', x1: c.c1x[j]!, y1: c.c1y[j]!, x2: c.c2x[j]!, y2: c.c2y[j]!, x: c.ex[j]!, y: c.ey[j]! });
  }
  return { px: c.ex[j]!, py: c.ey[j]! };
}

/** Pixel-exact outline: one line per direction change of the lattice path. */
export function emitLattice(p: LatticePath): PathSegments {
  const { xs, ys } = p;
  const n = xs.length;
  const segs: Seg[] = [];
  const steps = p.open ? n - 1 : n;
  for (let i = 1; i <= steps; i++) {
    const j = i % n;
    if (i < steps) {
      const k = (i + 1) % n;
      if (xs[j]! - xs[i - 1]! === xs[k]! - xs[j]! && ys[j]! - ys[i - 1]! === ys[k]! - ys[j]!) continue;
    }
    segs.push({ kind: 'L', x: xs[j]!, y: ys[j]! });
  }
  return { start: [xs[0]!, ys[0]!], segs };
}
