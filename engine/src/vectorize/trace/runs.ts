// Run-length rows of a label map, built in one scan and shared by the stacked trace stages that only need
// where labels change: pixel counts, colour adjacency and the rank grid (order.ts), the vertical boundary
// edges (index.ts) and the 4-connected region seeds (islands.ts). Flat art has ~150x fewer runs than pixels
// (1024 px corpus: ~7000 runs a map), so those stages cost a pass over runs instead of one over pixels each.
// Memory: 6 bytes a run (a noisy photo can approach one run a pixel; flat art stays tiny).

import type { LabelMap } from '../types.js';

export interface LabelRuns {
  width: number;
  height: number;
  /** Runs of row y are rowStart[y] .. rowStart[y + 1] - 1 (h + 1 entries). */
  rowStart: Int32Array;
  /** First x of each run; a run ends where the next run of its row starts, the last one at `width`. */
  x0: Int32Array;
  /** Label of each run; runs are maximal, so neighbouring runs of a row have different labels. */
  label: Uint16Array;
  /** Pixel count per label (0x10000 entries, TRANSPARENT included). */
  count: Int32Array;
}

/** One scan of `map.labels` into maximal same-label runs per row, and the pixel count per label. */
export function labelRuns(map: LabelMap): LabelRuns {
  const { width: w, height: h, labels } = map;
  const count = new Int32Array(0x10000);
  const rowStart = new Int32Array(h + 1);
  // start at a few runs a row and double: flat art never grows, noisy maps grow a handful of times
  let cap = Math.max(1024, 4 * h);
  let x0 = new Int32Array(cap);
  let label = new Uint16Array(cap);
  let n = 0;
  // Inside long runs compare two labels at a time (one 32-bit load against the run's label doubled); the
  // view needs a 4-byte-aligned buffer, else every comparison is a 16-bit one.
  const pairs = labels.byteOffset % 4 === 0 ? new Uint32Array(labels.buffer, labels.byteOffset, labels.length >> 1) : null;
  for (let y = 0; y < h; y++) {
    rowStart[y] = n;
    const row = y * w;
    const rowEnd = row + w;
    let x = row;
    while (x < rowEnd) {
      const l = labels[x]!;
      let e = x + 1;
      if (pairs) {
        if (e & 1 && e < rowEnd && labels[e] === l) e++;
        if (!(e & 1)) {
          const pair = (l | (l << 16)) >>> 0;
          const last = rowEnd - 1;
          while (e < last && pairs[e >> 1] === pair) e += 2;
        }
      }
      while (e < rowEnd && labels[e] === l) e++;
      if (n === cap) {
        cap *= 2;
        const nx = new Int32Array(cap);
        nx.set(x0);
        x0 = nx;
        const nl = new Uint16Array(cap);
        nl.set(label);
        label = nl;
      }
      x0[n] = x - row;
      label[n] = l;
      n++;
      count[l]! += e - x;
      x = e;
    }
  }
  rowStart[h] = n;
  return { width: w, height: h, rowStart, x0: x0.subarray(0, n), label: label.subarray(0, n), count };
}

/** Exclusive end x of run `i` of row `y`. */
export function runEnd(runs: LabelRuns, y: number, i: number): number {
  return i + 1 < runs.rowStart[y + 1]! ? runs.x0[i + 1]! : runs.width;
}
