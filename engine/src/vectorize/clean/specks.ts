// Clean stage: merge specks. A 4-connected component of one ink whose bounding box is smaller than
// `speckSize` px in both directions takes the ink that borders it most (merging, not deleting, so no hole
// appears). A speck floating on transparency, with no ink around it, is dropped. Transparent pixels are
// never filled. Specks are processed smallest first, so clusters of specks resolve into their surroundings.
import { TRANSPARENT, type LabelMap } from '../types.js';

/** Default `speck_size` (px across). */
export const DEFAULT_SPECK_SIZE = 4;

/** Merge specks of `map` in place; returns how many components were merged. */
export function mergeSpecks(map: LabelMap, speckSize: number): number {
  if (speckSize <= 1) return 0;
  const { width: w, height: h, labels } = map;
  const n = w * h;
  const comp = new Int32Array(n).fill(-1);
  const order = new Int32Array(n);
  const starts: number[] = [];
  const sizes: number[] = [];
  let head = 0;
  let nc = 0;
  const small: number[] = [];
  for (let s = 0; s < n; s++) {
    if (comp[s] !== -1) continue;
    const l = labels[s]!;
    const start = head;
    comp[s] = nc;
    order[head++] = s;
    let minX = s % w, maxX = minX, minY = (s / w) | 0, maxY = minY;
    for (let q = start; q < head; q++) {
      const p = order[q]!;
      const x = p % w, y = (p / w) | 0;
      if (x < minX) minX = x; else if (x > maxX) maxX = x;
      if (y < minY) minY = y; else if (y > maxY) maxY = y;
      if (x > 0 && comp[p - 1] === -1 && labels[p - 1] === l) { comp[p - 1] = nc; order[head++] = p - 1; }
      if (x < w - 1 && comp[p + 1] === -1 && labels[p + 1] === l) { comp[p + 1] = nc; order[head++] = p + 1; }
      if (y > 0 && comp[p - w] === -1 && labels[p - w] === l) { comp[p - w] = nc; order[head++] = p - w; }
      if (y < h - 1 && comp[p + w] === -1 && labels[p + w] === l) { comp[p + w] = nc; order[head++] = p + w; }
    }
    starts.push(start);
    sizes.push(head - start);
    if (l !== TRANSPARENT && maxX - minX + 1 < speckSize && maxY - minY + 1 < speckSize) small.push(nc);
    nc++;
  }
  small.sort((a, b) => sizes[a]! - sizes[b]! || a - b);
  const hist = new Map<number, number>();
  let merged = 0;
  for (const c of small) {
    hist.clear();
    const start = starts[c]!, end = start + sizes[c]!;
    const own = labels[order[start]!]!;
    for (let q = start; q < end; q++) {
      const p = order[q]!;
      const x = p % w;
      const y = (p / w) | 0;
      if (x > 0 && comp[p - 1] !== c) bump(hist, labels[p - 1]!);
      if (x < w - 1 && comp[p + 1] !== c) bump(hist, labels[p + 1]!);
      if (y > 0 && comp[p - w] !== c) bump(hist, labels[p - w]!);
      if (y < h - 1 && comp[p + w] !== c) bump(hist, labels[p + w]!);
    }
    let best = TRANSPARENT, bestC = 0;
    for (const [l, cnt] of hist) {
      if (l === TRANSPARENT || l === own) continue;
      if (cnt > bestC || (cnt === bestC && l < best)) { best = l; bestC = cnt; }
    }
    if (best === TRANSPARENT && hist.size > 0 && [...hist.keys()].some((l) => l === own)) continue;
    for (let q = start; q < end; q++) labels[order[q]!] = best;
    merged++;
  }
  return merged;
}

function bump(m: Map<number, number>, l: number): void {
  m.set(l, (m.get(l) ?? 0) + 1);
}
