// Majority (mode) cleanup of a label map: a pixel with at most one 8-neighbour of its own label is a stray
// (noise, an unresolved blend) and takes the most frequent traced label around it. Thin lines survive
// (each line pixel has two neighbours of its own), transparency is never created or filled here.
// Passes after the first revisit only blocks of pixels near a change: a pixel whose 3x3 neighbourhood is
// unchanged since it was last judged would be judged the same again, so skipping it gives the same labels as
// rescanning the whole map.
import { TRANSPARENT } from '../types.js';

/** Dirty tracking granularity: one flag per row and 64 columns. */
const BLOCK_SHIFT = 6;

/** Relabel stray pixels in place, `passes` times (fewer when a pass changes nothing). */
export function majorityCleanup(labels: Uint16Array, w: number, h: number, passes: number): number {
  let changedTotal = 0;
  const nb = new Int32Array(8);
  const bw = (w + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
  // Blocks to judge in this pass (null: all, the first pass) and in the next one.
  let now: Uint8Array | null = null;
  let next: Uint8Array = new Uint8Array(bw * h);
  for (let pass = 0; pass < passes; pass++) {
    let changed = 0;
    // The first pass judges whole rows (one span a row, so its skips run across block borders).
    const spans = now ? bw : 1;
    for (let y = 0; y < h; y++) {
      for (let bx = 0; bx < spans; bx++) {
        if (now && !now[y * bw + bx]) continue;
        const xEnd = now ? Math.min(w, (bx + 1) << BLOCK_SHIFT) : w;
        // Last column whose right neighbour a row fast path may read (the span's, short of the image's last).
        const xStop = Math.min(xEnd, w - 1) - 1;
        for (let x = bx << BLOCK_SHIFT; x < xEnd; x++) {
          const i = y * w + x;
          const l = labels[i]!;
          if (l === TRANSPARENT) {
            // Never changed here: skip the block's run of them.
            while (x + 1 < xEnd && labels[y * w + x + 1] === TRANSPARENT) x++;
            continue;
          }
          // Fast path: two same-label neighbours on a row or column means not a stray.
          if (x > 0 && x < w - 1 && labels[i - 1] === l && labels[i + 1] === l) {
            // So is every next pixel of the run whose right neighbour is l too (nothing before it changes): skip
            // them in one tight scan.
            while (x < xStop && labels[y * w + x + 2] === l) x++;
            continue;
          }
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
          // The most frequent label around (ties: the smallest label).
          let best = -1, bestC = 0;
          for (let q = 0; q < m; q++) {
            const v = nb[q]!;
            let c = 0;
            for (let t = 0; t < m; t++) if (nb[t] === v) c++;
            if (c > bestC || (c === bestC && v < best)) { bestC = c; best = v; }
          }
          if (bestC >= 3) {
            labels[i] = best;
            changed++;
            // Its neighbours must be judged again: later in this pass and in the next.
            mark(next, y, x, w, h, bw);
            if (now) mark(now, y, x, w, h, bw);
          }
        }
      }
    }
    changedTotal += changed;
    if (!changed) break;
    if (now) now.fill(0); else now = new Uint8Array(bw * h);
    [now, next] = [next, now];
  }
  return changedTotal;
}

/** Flag the blocks holding the 3x3 neighbourhood of (x, y). */
function mark(flags: Uint8Array, y: number, x: number, w: number, h: number, bw: number): void {
  const b0 = x > 0 ? (x - 1) >> BLOCK_SHIFT : 0, b1 = x < w - 1 ? (x + 1) >> BLOCK_SHIFT : x >> BLOCK_SHIFT;
  for (let yy = y > 0 ? y - 1 : 0; yy <= y + 1 && yy < h; yy++) {
    flags[yy * bw + b0] = 1;
    flags[yy * bw + b1] = 1;
  }
}
