// Majority (mode) cleanup of a label map: a pixel with at most one 8-neighbour of its own label is a stray
// (noise, an unresolved blend) and takes the most frequent traced label around it. Thin lines survive
// (each line pixel has two neighbours of its own), transparency is never created or filled here.
import { TRANSPARENT } from '../types.js';

/** Relabel stray pixels in place, `passes` times. */
export function majorityCleanup(labels: Uint16Array, w: number, h: number, passes: number): number {
  let changedTotal = 0;
  const cnt = new Map<number, number>();
  const nb = new Int32Array(8);
  for (let pass = 0; pass < passes; pass++) {
    let changed = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const l = labels[i]!;
        if (l === TRANSPARENT) continue;
        // Fast path: two same-label neighbours on a row or column means not a stray.
        if (x > 0 && x < w - 1 && labels[i - 1] === l && labels[i + 1] === l) continue;
        if (y > 0 && y < h - 1 && labels[i - w] === l && labels[i + w] === l) continue;
        let same = 0;
        let m = 0;
        for (let dy = -1; dy <= 1; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= h) continue;
          for (let dx = -1; dx <= 1; dx++) {
            if (dx === 0 && dy === 0) continue;
            const xx = x + dx;
            if (xx < 0 || xx >= w) continue;
            const v = labels[yy * w + xx]!;
            if (v === l) same++;
            else if (v !== TRANSPARENT) nb[m++] = v;
          }
        }
        if (same > 1 || m < 3) continue;
        cnt.clear();
        let best = -1, bestC = 0;
        for (let q = 0; q < m; q++) {
          const v = nb[q]!;
          const c = (cnt.get(v) ?? 0) + 1;
          cnt.set(v, c);
          if (c > bestC || (c === bestC && v < best)) { bestC = c; best = v; }
        }
        if (bestC >= 3) {
          labels[i] = best;
          changed++;
        }
      }
    }
    changedTotal += changed;
    if (!changed) break;
  }
  return changedTotal;
}
