// Island pruning for stacked layers (our addition): layer k traces the union of ranks >= k, but a connected
// piece of that union holding no pixel of colour k (an eye or an ear drawn in higher colours, not touching
// colour k) is painted anyway by the higher layers, each of which extends under its own seams. Such pieces
// (their outline and their holes) are dropped from layer k, which removes repeated outlines. A piece is kept
// when a representative pixel of any 4-connected colour-k region lies inside its outline (exact up to
// regions nested in the piece's holes, where it keeps the piece: conservative). Bounded: only for layers
// with few paths and colours with few regions; otherwise every path is kept.

import type { LatticePath } from './path.js';

/** At most this many regions per colour are tracked (more: the colour is not pruned). */
export const MAX_REGIONS = 64;
/** Layers with more paths than this are not pruned (the containment tests are pairwise). */
const MAX_PATHS = 512;

/**
 * One pixel index per 4-connected region of each rank (first in scan order); null for ranks with more
 * than MAX_REGIONS regions.
 */
export function regionSeeds(rank: Int32Array, w: number, h: number, layers: number): (Int32Array | null)[] {
  const pw = w + 2;
  const seen = new Uint8Array(pw * (h + 2));
  const seeds: number[][] = Array.from({ length: layers }, () => []);
  const over = new Uint8Array(layers);
  let stack = new Int32Array(1024);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = (y + 1) * pw + x + 1;
      const r = rank[p]!;
      if (r < 0 || seen[p]) continue;
      if (!over[r]) {
        if (seeds[r]!.length >= MAX_REGIONS) over[r] = 1;
        else seeds[r]!.push(y * w + x);
      }
      // flood the region so its other pixels are not seeds
      let top = 0;
      stack[top++] = p;
      seen[p] = 1;
      while (top > 0) {
        const q = stack[--top]!;
        if (top + 4 >= stack.length) {
          const next = new Int32Array(stack.length * 2);
          next.set(stack);
          stack = next;
        }
        const n1 = q - 1;
        const n2 = q + 1;
        const n3 = q - pw;
        const n4 = q + pw;
        if (!seen[n1] && rank[n1] === r) {
          seen[n1] = 1;
          stack[top++] = n1;
        }
        if (!seen[n2] && rank[n2] === r) {
          seen[n2] = 1;
          stack[top++] = n2;
        }
        if (!seen[n3] && rank[n3] === r) {
          seen[n3] = 1;
          stack[top++] = n3;
        }
        if (!seen[n4] && rank[n4] === r) {
          seen[n4] = 1;
          stack[top++] = n4;
        }
      }
    }
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
