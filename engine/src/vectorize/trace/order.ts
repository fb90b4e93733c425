// Paint order of the colour layers for stacked output: back to front by decreasing pixel count (ties by
// palette index), so each layer's extended shape (itself plus everything painted above it) is mostly the
// large, simple region it already is, and small details sit on top. Also builds the padded rank grid every
// trace stage reads: rank of the pixel's label in paint order, -1 for transparent pixels and the border.

import { TRANSPARENT, type LabelMap } from '../types.js';

export interface LayerOrder {
  /** Labels in paint order (only labels that occur). */
  labels: number[];
  /** Padded (w + 2) x (h + 2) grid of ranks; -1 = not traced. */
  rank: Int32Array;
  /** Pixel count per rank. */
  counts: Int32Array;
}

export function orderLayers(map: LabelMap): LayerOrder {
  const { width: w, height: h, labels } = map;
  const paletteSize = Math.max(1, Math.floor(map.palette.length / 3));
  let maxLabel = paletteSize - 1;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (l !== TRANSPARENT && l > maxLabel) maxLabel = l;
  }
  const count = new Int32Array(maxLabel + 1);
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (l !== TRANSPARENT) count[l]++;
  }
  const present: number[] = [];
  for (let l = 0; l <= maxLabel; l++) if (count[l]! > 0) present.push(l);
  present.sort((a, b) => count[b]! - count[a]! || a - b);
  const rankOf = new Int32Array(maxLabel + 1).fill(-1);
  present.forEach((l, r) => {
    rankOf[l] = r;
  });
  const pw = w + 2;
  const rank = new Int32Array(pw * (h + 2)).fill(-1);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const prow = (y + 1) * pw + 1;
    for (let x = 0; x < w; x++) {
      const l = labels[row + x]!;
      rank[prow + x] = l === TRANSPARENT ? -1 : rankOf[l]!;
    }
  }
  const counts = new Int32Array(present.length);
  present.forEach((l, r) => {
    counts[r] = count[l]!;
  });
  return { labels: present, rank, counts };
}
