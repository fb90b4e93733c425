// Island pruning for stacked layers (our addition): layer k traces the union of ranks >= k, but a connected
// piece of that union holding no pixel of colour k (an eye or an ear drawn in higher colours, not touching
// colour k) is painted anyway by the higher layers, each of which extends under its own seams. Such pieces
// (their outline and their holes) are dropped from layer k, which removes repeated outlines. A piece is kept
// when a representative pixel of any 4-connected colour-k region lies inside its outline (exact up to
// regions nested in the piece's holes, where it keeps the piece: conservative). Bounded: only for layers
// with few paths and colours with few regions; otherwise every path is kept.

import type { LatticePath } from './path.js';
import type { LabelRuns } from './runs.js';

/** At most this many regions per colour are tracked (more: the colour is not pruned). */
export const MAX_REGIONS = 64;
/** Layers with more paths than this are not pruned (the containment tests are pairwise). */
const MAX_PATHS = 512;

/**
 * One pixel index per 4-connected region of each rank (first in scan order); null for ranks with more
 * than MAX_REGIONS regions. Works on the label map's runs (union-find over same-rank runs that overlap the
 * row above), so a flat 100 MP image costs a few thousand runs, not a flood over every pixel and a visited grid.
 */
export function regionSeeds(runs: LabelRuns, rank: Int16Array, layers: number): (Int32Array | null)[] {
  const { width: w, height: h, rowStart, x0: runX } = runs;
  const pw = w + 2;
  let cap = 1024;
  // Per run (ids in scan order): union-find parent and the index of its first pixel. The root of a component
  // is always its smallest id, so its first pixel is the component's first in scan order.
  let parent = new Int32Array(cap);
  let first = new Int32Array(cap);
  let runRank = new Int16Array(cap);
  // Runs of the previous and the current row: x0, x1 (exclusive), id.
  let prev = new Int32Array(3 * (w + 1));
  let cur = new Int32Array(3 * (w + 1));
  let nPrev = 0;
  let count = 0;
  const find = (a: number): number => {
    let r = a;
    while (parent[r] !== r) r = parent[r]!;
    while (parent[a] !== r) { const nx = parent[a]!; parent[a] = r; a = nx; }
    return r;
  };
  for (let y = 0; y < h; y++) {
    const row = (y + 1) * pw + 1;
    let nCur = 0;
    let j = 0;
    const end = rowStart[y + 1]!;
    for (let i = rowStart[y]!; i < end; i++) {
      const x = runX[i]!;
      const x1 = i + 1 < end ? runX[i + 1]! : w;
      const r = rank[row + x]!;
      if (r >= 0) {
        if (count === cap) {
          cap *= 2;
          const p2 = new Int32Array(cap); p2.set(parent); parent = p2;
          const f2 = new Int32Array(cap); f2.set(first); first = f2;
          const r2 = new Int16Array(cap); r2.set(runRank); runRank = r2;
        }
        const id = count++;
        parent[id] = id; first[id] = y * w + x; runRank[id] = r;
        // Previous-row runs overlapping [x, x1): skip those ending at or before x.
        while (j < nPrev && prev[j * 3 + 1]! <= x) j++;
        for (let t = j; t < nPrev && prev[t * 3]! < x1; t++) {
          const q = prev[t * 3 + 2]!;
          if (runRank[q] !== r) continue;
          const a = find(id), b = find(q);
          if (a < b) parent[b] = a; else if (b < a) parent[a] = b;
        }
        cur[nCur * 3] = x; cur[nCur * 3 + 1] = x1; cur[nCur * 3 + 2] = id;
        nCur++;
      }
    }
    const t = prev; prev = cur; cur = t;
    nPrev = nCur;
  }
  const seeds: number[][] = Array.from({ length: layers }, () => []);
  const over = new Uint8Array(layers);
  for (let id = 0; id < count; id++) {
    if (find(id) !== id) continue;
    const r = runRank[id]!;
    if (over[r]) continue;
    if (seeds[r]!.length >= MAX_REGIONS) over[r] = 1;
    else seeds[r]!.push(first[id]!);
  }
  return seeds.map((s, r) => (over[r] ? null : Int32Array.from(s)));
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function bbox(p: LatticePath): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let i = 0; i < p.xs.length; i++) {
    const x = p.xs[i]!;
    const y = p.ys[i]!;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return { x0, y0, x1, y1 };
}

/** Whether pixel (px, py) lies inside the closed lattice path (crossing parity along its row). */
function contains(p: LatticePath, b: Box, px: number, py: number): boolean {
  if (px < b.x0 || px >= b.x1 || py < b.y0 || py >= b.y1) return false;
  const { xs, ys } = p;
  const n = xs.length;
  let inside = false;
  for (let i = 0; i < n; i++) {
    const j = i + 1 === n ? 0 : i + 1;
    if (xs[i] !== xs[j] || xs[i]! <= px) continue;
    if ((ys[i]! < ys[j]! ? ys[i] : ys[j]) === py) inside = !inside;
  }
  return inside;
}

/** Pixel on the set side of a path's first step (the step's right-hand pixel). */
function setSidePixel(p: LatticePath): [number, number] {
  const x = p.xs[0]!;
  const y = p.ys[0]!;
  const dx = p.xs[1 % p.xs.length]! - x;
  const dy = p.ys[1 % p.ys.length]! - y;
  if (dx > 0) return [x, y];
  if (dy > 0) return [x - 1, y];
  if (dx < 0) return [x - 1, y - 1];
  return [x, y - 1];
}

/**
 * Filters the paths of stacked layer k in place of a keep-list: returns a boolean per path (true = keep).
 * `seeds` are the pixel indices (y * w + x) of colour k's regions.
 */
export function keepPaths(paths: LatticePath[], seeds: Int32Array | null, w: number): boolean[] {
  const keep = paths.map(() => true);
  if (!seeds || paths.length > MAX_PATHS) return keep;
  const boxes = paths.map(bbox);
  const outer: number[] = [];
  for (let i = 0; i < paths.length; i++) if (paths[i]!.area > 0) outer.push(i);
  for (const i of outer) {
    let has = false;
    for (let s = 0; s < seeds.length && !has; s++) {
      const sx = seeds[s]! % w;
      const sy = (seeds[s]! - sx) / w;
      has = contains(paths[i]!, boxes[i]!, sx, sy);
    }
    keep[i] = has;
  }
  for (let i = 0; i < paths.length; i++) {
    if (paths[i]!.area > 0) continue;
    // a hole belongs to the innermost outline around its set-side pixel
    const [px, py] = setSidePixel(paths[i]!);
    let owner = -1;
    let ownerArea = Infinity;
    for (const o of outer) {
      const a = paths[o]!.area;
      if (a < ownerArea && contains(paths[o]!, boxes[o]!, px, py)) {
        owner = o;
        ownerArea = a;
      }
    }
    if (owner >= 0 && !keep[owner]) keep[i] = false;
  }
  return keep;
}
