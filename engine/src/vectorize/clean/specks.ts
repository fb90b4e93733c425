// Clean stage: merge specks. A 4-connected component of one ink whose bounding box is smaller than
// `speckSize` px in both directions takes the ink that borders it most (merging, not deleting, so no hole
// appears). A speck floating on transparency, with no ink around it, is dropped. Transparent pixels are
// never filled. Specks are processed smallest first, so clusters of specks resolve into their surroundings.
// Components are found on row runs with union-find (cost follows the number of runs, not pixels).
import { TRANSPARENT, type LabelMap } from '../types.js';

/** Default `speck_size` (px across). */
export const DEFAULT_SPECK_SIZE = 4;

/** Merge specks of `map` in place; returns how many components were merged. */
export function mergeSpecks(map: LabelMap, speckSize: number): number {
  if (speckSize <= 1) return 0;
  const { width: w, height: h, labels } = map;
  // 1. Row runs.
  let cap = h * 8;
  let rs = new Int32Array(cap), re = new Int32Array(cap), ry = new Int32Array(cap);
  const rowStart = new Int32Array(h + 1);
  let nr = 0;
  for (let y = 0; y < h; y++) {
    rowStart[y] = nr;
    const row = y * w;
    let x = 0;
    while (x < w) {
      const l = labels[row + x]!;
      let e = x + 1;
      while (e < w && labels[row + e] === l) e++;
      if (nr === cap) {
        cap *= 2;
        const a = new Int32Array(cap), b = new Int32Array(cap), c = new Int32Array(cap);
        a.set(rs); b.set(re); c.set(ry);
        rs = a; re = b; ry = c;
      }
      rs[nr] = x; re[nr] = e - 1; ry[nr] = y;
      nr++;
      x = e;
    }
  }
  rowStart[h] = nr;
  // 2. Union runs of the same label that touch vertically.
  const parent = new Int32Array(nr);
  for (let i = 0; i < nr; i++) parent[i] = i;
  const find = (a: number): number => {
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]!]!;
      a = parent[a]!;
    }
    return a;
  };
  for (let y = 1; y < h; y++) {
    let a = rowStart[y - 1]!;
    const aEnd = rowStart[y]!;
    for (let b = rowStart[y]!; b < rowStart[y + 1]!; b++) {
      while (a < aEnd && re[a]! < rs[b]!) a++;
      for (let k = a; k < aEnd && rs[k]! <= re[b]!; k++) {
        if (labels[(y - 1) * w + rs[k]!] !== labels[y * w + rs[b]!]) continue;
        const ra = find(k), rb = find(b);
        if (ra !== rb) parent[ra > rb ? ra : rb] = ra > rb ? rb : ra;
      }
    }
  }
  // 3. Bounding boxes and areas per root.
  const minX = new Int32Array(nr).fill(0x7fffffff), maxX = new Int32Array(nr).fill(-1);
  const minY = new Int32Array(nr).fill(0x7fffffff), maxY = new Int32Array(nr).fill(-1);
  const area = new Int32Array(nr);
  for (let i = 0; i < nr; i++) {
    const r = find(i);
    if (rs[i]! < minX[r]!) minX[r] = rs[i]!;
    if (re[i]! > maxX[r]!) maxX[r] = re[i]!;
    if (ry[i]! < minY[r]!) minY[r] = ry[i]!;
    if (ry[i]! > maxY[r]!) maxY[r] = ry[i]!;
    area[r]! += re[i]! - rs[i]! + 1;
  }
  const small: number[] = [];
  for (let i = 0; i < nr; i++) {
    if (parent[i] !== i) continue;
    if (labels[ry[i]! * w + rs[i]!] === TRANSPARENT) continue;
    if (maxX[i]! - minX[i]! + 1 < speckSize && maxY[i]! - minY[i]! + 1 < speckSize) small.push(i);
  }
  if (!small.length) return 0;
  // Runs of each small component.
  const isSmall = new Int32Array(nr).fill(-1);
  small.forEach((r, j) => { isSmall[r] = j; });
  const members: number[][] = small.map(() => []);
  for (let i = 0; i < nr; i++) {
    const j = isSmall[find(i)]!;
    if (j >= 0) members[j]!.push(i);
  }
  const order = small.map((_, j) => j).sort((a, b) => area[small[a]!]! - area[small[b]!]! || small[a]! - small[b]!);
  const hist = new Map<number, number>();
  const bump = (l: number): void => { hist.set(l, (hist.get(l) ?? 0) + 1); };
  let merged = 0;
  for (const j of order) {
    const runs = members[j]!;
    const own = labels[ry[runs[0]!]! * w + rs[runs[0]!]!]!;
    hist.clear();
    for (const r of runs) {
      const y = ry[r]!, x0 = rs[r]!, x1 = re[r]!;
      const row = y * w;
      if (x0 > 0) bump(labels[row + x0 - 1]!);
      if (x1 < w - 1) bump(labels[row + x1 + 1]!);
      for (let x = x0; x <= x1; x++) {
        if (y > 0 && labels[row - w + x] !== own) bump(labels[row - w + x]!);
        if (y < h - 1 && labels[row + w + x] !== own) bump(labels[row + w + x]!);
      }
    }
    let best = TRANSPARENT, bestC = 0;
    for (const [l, cnt] of hist) {
      if (l === TRANSPARENT || l === own) continue;
      if (cnt > bestC || (cnt === bestC && l < best)) { best = l; bestC = cnt; }
    }
    if (best === TRANSPARENT && hist.has(own)) continue;
    for (const r of runs) labels.fill(best, ry[r]! * w + rs[r]!, ry[r]! * w + re[r]! + 1);
    merged++;
  }
  return merged;
}
