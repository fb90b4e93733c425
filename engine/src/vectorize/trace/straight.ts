// Straight subpaths (Selinger 2003, sec. 2.2.1): for every point i of a lattice path, lon[i] is the furthest
// index k such that the subpath i..k is straight: not all four step directions occur, and some line passes
// within the admissible square (|dx|, |dy| <= 1) of every point. The admissible directions from p[i] form a
// cone that is narrowed point by point; axis-aligned runs are skipped in one jump.
// Closed paths wrap around; open paths (cutout chains) stop at their last point.
//
// Speed (this scan is O(points x runs per straight stretch), the largest trace cost on smooth art):
// - the path is first compressed into its axis-aligned runs, listed twice over for closed paths, so the scan
//   walks consecutive runs with unwrapped indices (no modulo, no index chasing);
// - the run at which all four directions have occurred is precomputed per starting run (the `seen` test);
// - lon[i] is min(pivot[i], lon[i+1]) (cyclically), so the scan from i stops as soon as it passes lon[i+1]:
//   pivot[i] lies beyond its last scanned run start, hence cannot lower lon[i].

import type { LatticePath } from './path.js';
import { scratchI32, scratchU8, Slot } from './scratch.js';

/** a <= b < c in cyclic order. */
function cyclicLe(a: number, b: number, c: number): boolean {
  return a <= c ? a <= b && b < c : a <= b || b < c;
}

/** Unit step of each direction index. */
const DIR_X = new Int32Array([1, 0, -1, 0]);
const DIR_Y = new Int32Array([0, 1, 0, -1]);

/** "Never": no run completes the four directions. */
const NEVER = 0x7fffffff;

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
  const steps = open ? n - 1 : n;
  // runs: run q covers points runStart[q] .. runStart[q + 1] in direction runDir[q]; (runX, runY)[q] is the
  // point runStart[q]. A closed path starts at a direction change (decompose), so its runs start at point 0;
  // they are listed twice (the copy shifted by n) so a scan can go once around without wrapping.
  const cap = 2 * steps + 2;
  const runStart = scratchI32(Slot.RunStart, cap);
  const runX = scratchI32(Slot.RunX, cap);
  const runY = scratchI32(Slot.RunY, cap);
  const runDir = scratchU8(Slot.RunDir, cap);
  let m = 0;
  let prevDir = -1;
  for (let i = 0; i < steps; i++) {
    const j = i + 1 === n ? 0 : i + 1;
    const d = dirIndex(xs[j]! - xs[i]!, ys[j]! - ys[i]!);
    if (d !== prevDir) {
      runStart[m] = i;
      runX[m] = xs[i]!;
      runY[m] = ys[i]!;
      runDir[m] = d;
      m++;
      prevDir = d;
    }
  }
  const total = open ? m : 2 * m;
  if (!open) {
    for (let q = 0; q < m; q++) {
      runStart[m + q] = runStart[q]! + n;
      runX[m + q] = runX[q]!;
      runY[m + q] = runY[q]!;
      runDir[m + q] = runDir[q]!;
    }
  }
  // the end of the last run: the path's last point (open) or point 0 again (closed, index 2n)
  runStart[total] = open ? n - 1 : 2 * n;
  runX[total] = open ? xs[n - 1]! : xs[0]!;
  runY[total] = open ? ys[n - 1]! : ys[0]!;

  // fourAt[q]: the first run q' >= q such that runs q..q' contain all four directions (NEVER if none)
  const fourAt = scratchI32(Slot.FourAt, cap);
  let last0 = NEVER;
  let last1 = NEVER;
  let last2 = NEVER;
  let last3 = NEVER;
  for (let q = total - 1; q >= 0; q--) {
    const d = runDir[q]!;
    if (d === 0) last0 = q;
    else if (d === 1) last1 = q;
    else if (d === 2) last2 = q;
    else last3 = q;
    fourAt[q] = Math.max(last0, last1, last2, last3);
  }
  // a closed path missing a direction could scan all the way round: no early stop then (see below)
  const earlyStop = open || fourAt[0]! !== NEVER;

  // nextRun[k]: the first run starting at or after point k (k in 0..n)
  const nextRun = scratchI32(Slot.NextRun, n + 1);
  for (let q = m, k = open ? n - 1 : n; k >= 0; k--) {
    while (q > 0 && runStart[q - 1]! >= k) q--;
    nextRun[k] = q;
  }

  const lon = scratchI32(Slot.Lon, n);
  // j: lon of the point after i (open: the running minimum of pivot; closed: cyclically)
  let j = -1;
  let r = m - 1;
  for (let i = n - 1; i >= 0; i--) {
    if (open && i === n - 1) {
      j = lon[i] = n - 1;
      continue;
    }
    while (runStart[r]! > i) r--;
    // the scan from run r ends at the first of: the path's last point (open; pivot n-1), the first run
    // starting at or past j (unwrapped; pivot[i] lies beyond it and cannot lower j), the run that passes i
    // again (closed; partial step below), the run completing the four directions (pivot: its start)
    let limitRun = NEVER;
    if (j >= 0 && earlyStop) limitRun = open ? nextRun[j]! : j > i ? nextRun[j]! : nextRun[j]! + m;
    const wrapRun = open ? m : r + m;
    const stop = fourAt[r]!;
    const qEnd = Math.min(limitRun, wrapRun, stop);
    // the cone of admissible directions: v is admissible iff cross(lo, v) >= 0 and cross(hi, v) <= 0
    let lox = 0;
    let loy = 0;
    let hix = 0;
    let hiy = 0;
    const xi = xs[i]!;
    const yi = ys[i]!;
    // q: the run whose end is tested
    let q = r;
    for (; q < qEnd; q++) {
      const cx = runX[q + 1]! - xi;
      const cy = runY[q + 1]! - yi;
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
    }
    const k1 = runStart[q]!;
    let pivot: number;
    if (q < qEnd || (q === wrapRun && !open && q < limitRun)) {
      // k1 satisfied the cone, the end of run q did not (or passes i): the last admissible point on run q
      const dir = runDir[q]!;
      const dkx = DIR_X[dir]!;
      const dky = DIR_Y[dir]!;
      const cx = runX[q]! - xi;
      const cy = runY[q]! - yi;
      const a = lox * cy - loy * cx;
      const b = lox * dky - loy * dkx;
      const c = hix * cy - hiy * cx;
      const d = hix * dky - hiy * dkx;
      let step = 1 << 30;
      if (b < 0) step = floorDiv(a, -b);
      if (d > 0) step = Math.min(step, floorDiv(-c, d));
      pivot = open ? Math.min(k1 + step, n - 1) : (k1 + step) % n;
    } else if (open && q === m) {
      pivot = n - 1;
    } else if (q >= limitRun) {
      lon[i] = j;
      continue;
    } else {
      // q === stop: runs r..q hold all four directions
      pivot = k1 >= n ? k1 - n : k1;
    }
    // lon[i]: the largest k such that every i' in [i, k) has k <= pivot[i'] (cyclically for closed paths)
    if (j < 0 || (open ? pivot < j : cyclicLe(i + 1, pivot, j))) j = pivot;
    lon[i] = j;
  }
  if (!open) for (let i = n - 1; cyclicLe((i + 1) % n, j, lon[n - 1]!); i--) lon[i] = j;
  return lon;
}
