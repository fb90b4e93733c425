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
  const count = new Int32Array(0x10000);
  for (let i = 0; i < labels.length; i++) count[labels[i]!]++;
  count[TRANSPARENT] = 0;
  const present: number[] = [];
  for (let l = 0; l < TRANSPARENT; l++) if (count[l]! > 0) present.push(l);
  present.sort((a, b) => count[b]! - count[a]! || a - b);
  const rankOf = new Int32Array(0x10000).fill(-1);
  for (let r = 0; r < present.length; r++) rankOf[present[r]!] = r;
  const pw = w + 2;
  const rank = new Int32Array(pw * (h + 2));
  rank.fill(-1, 0, pw);
  rank.fill(-1, (h + 1) * pw);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const prow = (y + 1) * pw;
    rank[prow] = -1;
    rank[prow + w + 1] = -1;
    for (let x = 0; x < w; x++) rank[prow + 1 + x] = rankOf[labels[row + x]!]!;
  }
  const counts = new Int32Array(present.length);
  for (let r = 0; r < present.length; r++) counts[r] = count[present[r]!]!;
  return { labels: present, rank, counts };
}
