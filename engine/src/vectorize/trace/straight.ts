// Straight subpaths (Selinger 2003, sec. 2.2.1): for every point i of a lattice path, lon[i] is the furthest
// index k such that the subpath i..k is straight: not all four step directions occur, and some line passes
// within the admissible square (|dx|, |dy| <= 1) of every point. The admissible directions from p[i] form a
// cone that is narrowed point by point; axis-aligned runs are skipped in one jump.
// Closed paths wrap around; open paths (cutout chains) stop at their last point.

import type { LatticePath } from './path.js';
import { scratchI32, scratchU8, Slot } from './scratch.js';

function cross(ax: number, ay: number, bx: number, by: number): number {
  return ax * by - ay * bx;
}

/** a <= b < c in cyclic order. */
export function cyclicLe(a: number, b: number, c: number): boolean {
  return a <= c ? a <= b && b < c : a <= b || b < c;
}

/** Unit step of each direction index. */
const DIR_X = new Int32Array([1, 0, -1, 0]);
const DIR_Y = new Int32Array([0, 1, 0, -1]);

function dirIndex(dx: number, dy: number): number {
  // east 0, south 1, west 2, north 3 (only unit or axis-aligned displacements occur)
  return dx > 0 ? 0 : dy > 0 ? 1 : dx < 0 ? 2 : 3;
}

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/** Computes lon[] for the path (sec. 2.2.1); the result is a scratch array valid until the next call. */
export function straightRuns(p: LatticePath): Int32Array {
  const { xs, ys, open } = p;
  const n = xs.length;
  // runEnd[i]: end index of the axis-aligned run that starts with step i -> i+1
  const runEnd = scratchI32(Slot.RunEnd, n);
  const stepDir = scratchU8(Slot.StepDir, n);
  for (let i = 0; i < n; i++) {
    const j = i + 1 === n ? 0 : i + 1;
    stepDir[i] = open && i === n - 1 ? 255 : dirIndex(xs[j]! - xs[i]!, ys[j]! - ys[i]!);
  }
  if (open) {
    runEnd[n - 1] = n - 1;
    for (let i = n - 2; i >= 0; i--) runEnd[i] = i + 1 < n - 1 && stepDir[i] === stepDir[i + 1] ? runEnd[i + 1]! : i + 1;
  } else {
    // the decomposition starts every closed path at a direction change
    runEnd[n - 1] = 0;
    for (let i = n - 2; i >= 0; i--) runEnd[i] = stepDir[i] === stepDir[i + 1] ? runEnd[i + 1]! : i + 1;
  }

  const pivot = scratchI32(Slot.Pivot, n);
  for (let i = n - 1; i >= 0; i--) {
    if (open && i === n - 1) {
      pivot[i] = n - 1;
      continue;
    }
    // step directions met so far, one bit each (all four: not straight)
    let seen = 1 << stepDir[i]!;
    // the cone of admissible directions: v is admissible iff cross(lo, v) >= 0 and cross(hi, v) <= 0
    let lox = 0;
    let loy = 0;
    let hix = 0;
    let hiy = 0;
    let k1 = i;
    let k = runEnd[i]!;
    let found = -1;
    const xi = xs[i]!;
    const yi = ys[i]!;
    for (;;) {
      // k1 -> k is one axis-aligned run: its direction is that of its first step
      seen |= 1 << stepDir[k1]!;
      if (seen === 15) {
        found = k1;
        break;
      }
      const cx = xs[k]! - xi;
      const cy = ys[k]! - yi;
      if (lox * cy - loy * cx < 0 || hix * cy - hiy * cx > 0) break;
      if (cx > 1 || cx < -1 || cy > 1 || cy < -1) {
        // tighten the cone by the extreme corners of the square of half-width 1 around cur
        const ax = cx + (cy >= 0 && (cy > 0 || cx < 0) ? 1 : -1);
        const ay = cy + (cx <= 0 && (cx < 0 || cy < 0) ? 1 : -1);
        if (lox * ay - loy * ax >= 0) {
          lox = ax;
          loy = ay;
        }
        const bx = cx + (cy <= 0 && (cy < 0 || cx < 0) ? 1 : -1);
        const by = cy + (cx >= 0 && (cx > 0 || cy < 0) ? 1 : -1);
        if (hix * by - hiy * bx <= 0) {
          hix = bx;
          hiy = by;
        }
      }
      if (open && k === n - 1) {
        found = n - 1;
        break;
      }
      k1 = k;
      k = runEnd[k1]!;
      // wrapped past the start (k, i, k1 not in cyclic order): fall through to the partial step below
      if (!open && !(k <= k1 ? k <= i && i < k1 : k <= i || i < k1)) break;
    }
    if (found >= 0) {
      pivot[i] = found;
      continue;
    }
    // k1 satisfied the cone, k did not: the last admissible point on the run k1 -> k
    const dir = stepDir[k1]!;
    const dkx = DIR_X[dir]!;
    const dky = DIR_Y[dir]!;
    const cx = xs[k1]! - xi;
    const cy = ys[k1]! - yi;
    const a = cross(lox, loy, cx, cy);
    const b = cross(lox, loy, dkx, dky);
    const c = cross(hix, hiy, cx, cy);
    const d = cross(hix, hiy, dkx, dky);
    let j = 1 << 30;
    if (b < 0) j = floorDiv(a, -b);
    if (d > 0) j = Math.min(j, floorDiv(-c, d));
    pivot[i] = open ? Math.min(k1 + j, n - 1) : (k1 + j) % n;
  }

  // lon[i]: the largest k such that every i' in [i, k) has k <= pivot[i'] (cyclically for closed paths)
  const lon = scratchI32(Slot.Lon, n);
  if (open) {
    let j = pivot[n - 1]!;
    lon[n - 1] = j;
    for (let i = n - 2; i >= 0; i--) {
      if (pivot[i]! < j) j = pivot[i]!;
      lon[i] = j;
    }
    return lon;
  }
  let j = pivot[n - 1]!;
  lon[n - 1] = j;
  for (let i = n - 2; i >= 0; i--) {
    if (cyclicLe(i + 1, pivot[i]!, j)) j = pivot[i]!;
    lon[i] = j;
  }
  for (let i = n - 1; cyclicLe((i + 1) % n, j, lon[n - 1]!); i--) lon[i] = j;
  return lon;
}
