// Clean stage: merge specks. A 4-connected component of one ink whose bounding box is smaller than
// `speckSize` px in both directions takes the ink that borders it most (merging, not deleting, so no hole
// appears). A speck floating on transparency, with no ink around it, is dropped. Transparent pixels are
// never filled. Specks are processed smallest first, so clusters of specks resolve into their surroundings.
// Components are found on row runs with union-find (cost follows the number of runs, not pixels). The runs
// are the trace's own (trace/runs.ts), kept up to date through the merges and handed on, so the trace does
// not scan the map again.
import { TRANSPARENT, type LabelMap } from '../types.js';
import { labelRuns, type LabelRuns } from '../trace/runs.js';

/** Default `speck_size` (px across). */
export const DEFAULT_SPECK_SIZE = 4;

/** Merge specks of `map` in place; returns how many components were merged. */
export function mergeSpecks(map: LabelMap, speckSize: number): number {
  return mergeSpecksRuns(map, speckSize).merged;
}

/**
 * `mergeSpecks`, also returning the label runs of the map as it is afterwards (for `traceLabelMap`; valid
 * until the labels change again).
 */
export function mergeSpecksRuns(map: LabelMap, speckSize: number): { merged: number; runs: LabelRuns } {
  const runs = labelRuns(map);
  if (speckSize <= 1) return { merged: 0, runs };
  const { width: w, height: h, labels } = map;
  // 1. Row runs: start, inclusive end and row of each.
  const { rowStart, x0: rs, label: runLabel, count } = runs;
  const nr = rs.length;
  const re = new Int32Array(nr), ry = new Int32Array(nr);
  for (let y = 0; y < h; y++) {
    const end = rowStart[y + 1]!;
    for (let i = rowStart[y]!; i < end; i++) {
      re[i] = (i + 1 < end ? rs[i + 1]! : w) - 1;
      ry[i] = y;
    }
  }
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
        if (runLabel[k] !== runLabel[b]) continue;
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
    if (runLabel[i] === TRANSPARENT) continue;
    if (maxX[i]! - minX[i]! + 1 < speckSize && maxY[i]! - minY[i]! + 1 < speckSize) small.push(i);
  }
  if (!small.length) return { merged: 0, runs };
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
    const own = runLabel[members[j]![0]!]!;
    hist.clear();
    for (const r of members[j]!) {
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
    for (const r of members[j]!) {
      labels.fill(best, ry[r]! * w + rs[r]!, ry[r]! * w + re[r]! + 1);
      runLabel[r] = best;
    }
    count[own]! -= area[small[j]!]!;
    count[best]! += area[small[j]!]!;
    merged++;
  }
  return { merged, runs: merged ? coalesce(runs) : runs };
}

/** Runs made maximal again after relabelling: a run with the label of the run before it in its row joins it. */
function coalesce(runs: LabelRuns): LabelRuns {
  const { height: h, rowStart, x0, label } = runs;
  let n = 0;
  for (let y = 0, i = 0; y < h; y++) {
    const end = rowStart[y + 1]!;
    rowStart[y] = n;
    for (; i < end; i++) {
      if (n > rowStart[y]! && label[i] === label[n - 1]) continue;
      x0[n] = x0[i]!;
      label[n] = label[i]!;
      n++;
    }
  }
  rowStart[h] = n;
  return { ...runs, x0: x0.subarray(0, n), label: label.subarray(0, n) };
}
