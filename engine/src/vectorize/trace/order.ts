// Paint order of the colour layers for stacked output. Any order paints every pixel in its own colour
// (layer k traces the union of ranks >= k, so the top-most layer covering a pixel is its own), so the order
// only decides how much boundary gets traced: an edge between ranks a < b lies on the outline of every
// layer a+1..b, an edge against transparency on layers 0..b. We start from decreasing pixel count (big
// regions at the back, details on top) and improve it by moving single layers while the total traced
// boundary, sum(len(a, b) * |rank a - rank b|) + sum(len(c, transparent) * (rank c + 1)), decreases
// (palettes up to MAX_SEARCH colours). Fewer traced edges means fewer repeated holes, paths and bytes.
// Also builds the padded rank grid every trace stage reads: -1 for transparent pixels and the border.

import { TRANSPARENT, type LabelMap } from '../types.js';

export interface LayerOrder {
  /** Labels in paint order (only labels that occur). */
  labels: number[];
  /** Padded (w + 2) x (h + 2) grid of ranks; -1 = not traced. */
  rank: Int32Array;
  /** Pixel count per rank. */
  counts: Int32Array;
}

const MAX_SEARCH = 40;

/** Total boundary traced by the stacked layers for a given order (pos[c] = rank of colour c). */
function stackCost(adj: Float64Array, n: number, pos: Int32Array): number {
  let cost = 0;
  for (let a = 0; a < n; a++) {
    cost += adj[a * (n + 1) + n]! * (pos[a]! + 1);
    for (let b = a + 1; b < n; b++) {
      const w = adj[a * (n + 1) + b]!;
      if (w) cost += w * Math.abs(pos[a]! - pos[b]!);
    }
  }
  return cost;
}

/** Improves `order` (colour indices back to front) by single-layer moves while the cost decreases. */
function improveOrder(adj: Float64Array, n: number, order: number[]): number[] {
  const pos = new Int32Array(n);
  const place = (o: number[]): void => {
    for (let r = 0; r < n; r++) pos[o[r]!] = r;
  };
  place(order);
  let best = stackCost(adj, n, pos);
  for (let sweep = 0; sweep < 8; sweep++) {
    let improved = false;
    for (let from = 0; from < n; from++) {
      for (let to = 0; to < n; to++) {
        if (to === from) continue;
        const cand = order.slice();
        const [c] = cand.splice(from, 1);
        cand.splice(to, 0, c!);
        place(cand);
        const cost = stackCost(adj, n, pos);
        if (cost < best - 1e-9) {
          best = cost;
          order = cand;
          improved = true;
        }
      }
      place(order);
    }
    if (!improved) break;
  }
  return order;
}

export function orderLayers(map: LabelMap, optimise = true): LayerOrder {
  const { width: w, height: h, labels } = map;
  const count = new Int32Array(0x10000);
  for (let i = 0; i < labels.length; i++) count[labels[i]!]++;
  count[TRANSPARENT] = 0;
  const present: number[] = [];
  for (let l = 0; l < TRANSPARENT; l++) if (count[l]! > 0) present.push(l);
  present.sort((a, b) => count[b]! - count[a]! || a - b);
  const n = present.length;
  if (optimise && n > 2 && n <= MAX_SEARCH) {
    // adjacency lengths between colours (index n = transparent, including the image border)
    const idx = new Int32Array(0x10000).fill(n);
    for (let r = 0; r < n; r++) idx[present[r]!] = r;
    const adj = new Float64Array((n + 1) * (n + 1));
    for (let y = 0; y < h; y++) {
      const row = y * w;
      let prev = n;
      for (let x = 0; x < w; x++) {
        const c = idx[labels[row + x]!]!;
        if (c !== prev) adj[c * (n + 1) + prev]++;
        if (y > 0) {
          const up = idx[labels[row - w + x]!]!;
          if (up !== c) adj[c * (n + 1) + up]++;
        } else if (c !== n) adj[c * (n + 1) + n]++;
        prev = c;
      }
      if (prev !== n) adj[prev * (n + 1) + n]++;
    }
    if (h > 0) for (let x = 0; x < w; x++) {
      const c = idx[labels[(h - 1) * w + x]!]!;
      if (c !== n) adj[c * (n + 1) + n]++;
    }
    // symmetrise into the upper triangle / transparent column
    for (let a = 0; a <= n; a++) {
      for (let b = a + 1; b <= n; b++) {
        const s = adj[a * (n + 1) + b]! + adj[b * (n + 1) + a]!;
        adj[a * (n + 1) + b] = s;
        adj[b * (n + 1) + a] = s;
      }
    }
    const order = improveOrder(adj, n, present.map((_, r) => r));
    const reordered = order.map((r) => present[r]!);
    present.splice(0, n, ...reordered);
  }
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
