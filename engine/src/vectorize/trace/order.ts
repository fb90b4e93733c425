// Paint order of the colour layers for stacked output. Any order paints every pixel in its own colour
// (layer k traces the union of ranks >= k, so the top-most layer covering a pixel is its own), so the order
// only decides how much boundary gets traced: an edge between ranks a < b lies on the outline of every
// layer a+1..b, an edge against transparency on layers 0..b. We start from decreasing pixel count (big
// regions at the back, details on top) and improve it by moving single layers while the total traced
// boundary, sum(len(a, b) * |rank a - rank b|) + sum(len(c, transparent) * (rank c + 1)), decreases
// (palettes up to MAX_SEARCH colours). Fewer traced edges means fewer repeated holes, paths and bytes.
// Also builds the padded rank grid every trace stage reads: -1 for transparent pixels and the border.

import { TRANSPARENT, type LabelMap } from '../types.js';
import { labelRuns, type LabelRuns } from './runs.js';

export interface LayerOrder {
  /**
   * Boundary work of stacked tracing for this order: edge length times rank gap (edges against
   * transparency count rank + 1), and the plain boundary length (every edge once). Their ratio says how
   * many times an average edge is traced.
   */
  stackedCost: number;
  boundary: number;
  /** Labels in paint order (only labels that occur). */
  labels: number[];
  /** Padded (w + 2) x (h + 2) grid of ranks; -1 = not traced. 16-bit: 2 bytes a pixel (quantize gives <= 64 inks). */
  rank: Int16Array;
  /** Pixel count per rank. */
  counts: Int32Array;
  /** The label map's run-length rows (the scan everything above came from; later stages reuse it). */
  runs: LabelRuns;
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

/**
 * Order for large palettes (photos): colours sorted by the Fiedler vector of the colour adjacency graph
 * (power iteration on the shifted Laplacian, constant vector projected out), so colours that share long
 * boundaries get neighbouring ranks. Sparse: work is linear in the number of adjacent colour pairs.
 */
function spectralOrder(n: number, pa: Int32Array, pb: Int32Array, pw: Float64Array, areaOrder: number[]): number[] {
  const deg = new Float64Array(n);
  for (let e = 0; e < pa.length; e++) {
    deg[pa[e]!]! += pw[e]!;
    deg[pb[e]!]! += pw[e]!;
  }
  let dmax = 0;
  for (let i = 0; i < n; i++) if (deg[i]! > dmax) dmax = deg[i]!;
  if (dmax === 0) return areaOrder;
  const shift = 2 * dmax;
  let v = new Float64Array(n);
  for (let i = 0; i < n; i++) v[i] = Math.sin(i * 12.9898 + 1.7) + 0.01 * i;
  let next = new Float64Array(n);
  for (let it = 0; it < 300; it++) {
    // project out the constant vector, normalise
    let mean = 0;
    for (let i = 0; i < n; i++) mean += v[i]!;
    mean /= n;
    let norm = 0;
    for (let i = 0; i < n; i++) {
      v[i]! -= mean;
      norm += v[i]! * v[i]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < n; i++) v[i]! /= norm;
    // next = (shift I - L) v = shift v - D v + A v
    for (let i = 0; i < n; i++) next[i] = (shift - deg[i]!) * v[i]!;
    for (let e = 0; e < pa.length; e++) {
      const a = pa[e]!;
      const b = pb[e]!;
      next[a]! += pw[e]! * v[b]!;
      next[b]! += pw[e]! * v[a]!;
    }
    const t = v;
    v = next;
    next = t;
  }
  const idx = areaOrder.map((_, i) => i);
  idx.sort((a, b) => v[a]! - v[b]! || a - b);
  // put the end that touches transparency / has the largest area at the back
  const first = idx[0]!;
  const last = idx[n - 1]!;
  if (areaOrder.indexOf(last) < areaOrder.indexOf(first)) idx.reverse();
  return idx;
}

/**
 * Local refinement for large palettes: swaps neighbouring ranks while that lowers the traced boundary;
 * each swap's effect is computed from the two colours' own boundaries only (sparse adjacency lists).
 */
function refineBySwaps(n: number, pa: Int32Array, pb: Int32Array, pw: Float64Array, order: number[]): number[] {
  const deg = new Int32Array(n + 2);
  for (let e = 0; e < pa.length; e++) {
    deg[pa[e]! + 1]++;
    deg[pb[e]! + 1]++;
  }
  for (let i = 0; i <= n; i++) deg[i + 1]! += deg[i]!;
  const fill = deg.slice();
  const nb = new Int32Array(pa.length * 2);
  const nw = new Float64Array(pa.length * 2);
  for (let e = 0; e < pa.length; e++) {
    const a = pa[e]!;
    const b = pb[e]!;
    nb[fill[a]!] = b;
    nw[fill[a]!++] = pw[e]!;
    nb[fill[b]!] = a;
    nw[fill[b]!++] = pw[e]!;
  }
  const pos = new Int32Array(n + 1);
  for (let r = 0; r < n; r++) pos[order[r]!] = r;
  pos[n] = -1;
  const out = order.slice();
  for (let sweep = 0; sweep < 64; sweep++) {
    let improved = false;
    for (let r = 0; r + 1 < n; r++) {
      const u = out[r]!;
      const v = out[r + 1]!;
      let delta = 0;
      for (let k = deg[u]!; k < deg[u + 1]!; k++) {
        const x = nb[k]!;
        if (x === v) continue;
        delta += nw[k]! * (Math.abs(r + 1 - pos[x]!) - Math.abs(r - pos[x]!));
      }
      for (let k = deg[v]!; k < deg[v + 1]!; k++) {
        const x = nb[k]!;
        if (x === u) continue;
        delta += nw[k]! * (Math.abs(r - pos[x]!) - Math.abs(r + 1 - pos[x]!));
      }
      if (delta < 0) {
        out[r] = v;
        out[r + 1] = u;
        pos[v] = r;
        pos[u] = r + 1;
        improved = true;
      }
    }
    if (!improved) break;
  }
  return out;
}

/** `runs`: the map's label runs when the caller has them (mergeSpecksRuns), else they are scanned here. */
export function orderLayers(map: LabelMap, optimise = true, runs: LabelRuns = labelRuns(map)): LayerOrder {
  const { width: w, height: h } = map;
  const { rowStart, x0: runX, label: runLabel, count } = runs;
  const present: number[] = [];
  for (let l = 0; l < TRANSPARENT; l++) if (count[l]! > 0) present.push(l);
  present.sort((a, b) => count[b]! - count[a]! || a - b);
  const n = present.length;
  let stackedCost = 0;
  let boundary = 0;
  if (optimise && n > 1) {
    // adjacency lengths between colours; colour n = transparent (including the image border)
    const idx = new Int32Array(0x10000).fill(n);
    for (let r = 0; r < n; r++) idx[present[r]!] = r;
    // Edge lengths per colour pair, listed in first-seen order of a pixel scan (row by row; per pixel the
    // left edge, then the upper one), the order the pair arrays keep. A dense count matrix for palettes up to
    // 1023 colours (every quantized map).
    const dim = n + 1;
    const dense = dim * dim <= 1 << 20 ? new Int32Array(dim * dim) : null;
    const seen: number[] = [];
    const pairs = new Map<number, number>();
    const add = (a: number, b: number, len: number): void => {
      const key = a < b ? a * dim + b : b * dim + a;
      if (dense) {
        if (dense[key] === 0) seen.push(key);
        dense[key]! += len;
      } else {
        pairs.set(key, (pairs.get(key) ?? 0) + len);
      }
    };
    // Walks each row's runs against the runs of the row above (none above row 0: all transparent): every
    // stretch where both stay the same adds its length at once. Runs are maximal and labels map to colours
    // one to one, so neighbouring runs always differ.
    for (let y = 0; y < h; y++) {
      const iEnd = rowStart[y + 1]!;
      const jEnd = y > 0 ? rowStart[y]! : 0;
      let i = rowStart[y]!;
      let j = y > 0 ? rowStart[y - 1]! : 0;
      let c = idx[runLabel[i]!]!;
      let ci = i + 1 < iEnd ? runX[i + 1]! : w;
      let u = y > 0 ? idx[runLabel[j]!]! : n;
      let uj = y > 0 && j + 1 < jEnd ? runX[j + 1]! : w;
      if (c !== n) add(c, n, 1);
      let x = 0;
      while (x < w) {
        const e = ci < uj ? ci : uj;
        if (c !== u) add(c, u, e - x);
        x = e;
        if (x >= w) break;
        if (uj === x) {
          j++;
          u = idx[runLabel[j]!]!;
          uj = j + 1 < jEnd ? runX[j + 1]! : w;
        }
        if (ci === x) {
          const prev = c;
          i++;
          c = idx[runLabel[i]!]!;
          ci = i + 1 < iEnd ? runX[i + 1]! : w;
          add(c, prev, 1);
        }
      }
      if (c !== n) add(c, n, 1);
    }
    if (h > 0) {
      const end = rowStart[h]!;
      for (let i = rowStart[h - 1]!; i < end; i++) {
        const c = idx[runLabel[i]!]!;
        if (c !== n) add(c, n, (i + 1 < end ? runX[i + 1]! : w) - runX[i]!);
      }
    }
    const np = dense ? seen.length : pairs.size;
    const pa = new Int32Array(np);
    const pb = new Int32Array(np);
    const pw = new Float64Array(np);
    let e = 0;
    const list = (key: number, len: number): void => {
      pa[e] = Math.floor(key / dim);
      pb[e] = key % dim;
      pw[e] = len;
      e++;
    };
    if (dense) for (const key of seen) list(key, dense[key]!);
    else for (const [key, len] of pairs) list(key, len);
    let order = present.map((_, r) => r);
    if (n > 2 && n <= MAX_SEARCH) {
      const adj = new Float64Array((n + 1) * (n + 1));
      for (let k = 0; k < np; k++) {
        adj[pa[k]! * (n + 1) + pb[k]!] = pw[k]!;
        adj[pb[k]! * (n + 1) + pa[k]!] = pw[k]!;
      }
      order = improveOrder(adj, n, order);
    } else if (n > MAX_SEARCH) {
      // colour-colour pairs only (transparency pulls nothing apart)
      const inner: number[] = [];
      for (let k = 0; k < np; k++) if (pb[k]! < n) inner.push(k);
      const ia = Int32Array.from(inner, (k) => pa[k]!);
      const ib = Int32Array.from(inner, (k) => pb[k]!);
      const iw = Float64Array.from(inner, (k) => pw[k]!);
      order = refineBySwaps(n, pa, pb, pw, spectralOrder(n, ia, ib, iw, order));
    }
    const pos = new Int32Array(n + 1);
    for (let r = 0; r < n; r++) pos[order[r]!] = r;
    pos[n] = -1;
    for (let k = 0; k < np; k++) {
      boundary += pw[k]!;
      stackedCost += pw[k]! * Math.abs(pos[pa[k]!]! - pos[pb[k]!]!);
    }
    const reordered = order.map((r) => present[r]!);
    present.splice(0, n, ...reordered);
  }
  if (present.length > 0x7fff) throw new Error(`orderLayers: ${present.length} colours exceed the 16-bit rank grid`);
  const rankOf = new Int32Array(0x10000).fill(-1);
  for (let r = 0; r < present.length; r++) rankOf[present[r]!] = r;
  const pw = w + 2;
  const rank = new Int16Array(pw * (h + 2));
  rank.fill(-1, 0, pw);
  rank.fill(-1, (h + 1) * pw);
  for (let y = 0; y < h; y++) {
    const prow = (y + 1) * pw;
    rank[prow] = -1;
    rank[prow + w + 1] = -1;
    const end = rowStart[y + 1]!;
    for (let i = rowStart[y]!; i < end; i++) {
      const r = rankOf[runLabel[i]!]!;
      // the grid is zeroed: rank 0 (the largest colour) needs no writes, which also leaves its pages untouched
      if (r === 0) continue;
      const x0 = prow + 1 + runX[i]!;
      const x1 = prow + 1 + (i + 1 < end ? runX[i + 1]! : w);
      // fill() is a runtime call: worth it for long runs only
      if (x1 - x0 > 64) rank.fill(r, x0, x1);
      else for (let x = x0; x < x1; x++) rank[x] = r;
    }
  }
  const counts = new Int32Array(present.length);
  for (let r = 0; r < present.length; r++) counts[r] = count[present[r]!]!;
  return { labels: present, rank, counts, stackedCost, boundary, runs };
}
