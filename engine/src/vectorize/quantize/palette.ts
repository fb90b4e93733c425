// Palette building in CIELAB, weighted by pixel counts:
// 1. histogram of ink samples in fine Lab buckets (each bucket keeps the exact mean of its pixels);
// 2. seeding by greedy variance splits (Wu 1991 / variance-based median cut: split the box with the largest
//    weighted SSE at the position along one axis that removes the most SSE, positions on a 256-bin histogram);
// 3. weighted k-means (Lloyd) refinement over the bucket means;
// 4. agglomerative merging by Ward cost: clusters closer than `sameInk` always merge; in `auto` mode merging
//    goes on down to `floor` colours while it keeps the art true (see mergeClusters).

import { NOT_BLEND, type BlendMap } from './blend.js';
import type { LabImage } from './lab-image.js';
import { RowReader } from './runs.js';

/** Weighted colour samples: one entry per non-empty Lab bucket. */
export interface Samples {
  /** Lab of each sample (3 floats each). */
  lab: Float64Array;
  /** Weight (pixel count) of each sample. */
  weight: Float64Array;
  count: number;
  total: number;
}

const LB = 64, AB = 64;

/**
 * Bucket the pixels flagged in `mask` whose `blends` entry is NOT_BLEND (every flagged pixel when `blends` is null),
 * one sample per non-empty Lab bucket, at the exact mean of its pixels.
 * `clean`: the art is unsmoothed, `lab` computed from these packed pixels (rows of `w`) with labOfColours, and
 * `blendList` names the pixels `blends` flags, in scan order: the pixels are then walked by runs of one colour.
 */
export function buildSamples(img: LabImage, mask: Uint8Array, blends: BlendMap | null, clean?: { px: Uint32Array; w: number; blendList: readonly number[] }): Samples {
  const { index: ix, lab } = img;
  const nb = LB * AB * AB;
  sumsBuf ??= new Float64Array(nb * 4);
  const sums = sumsBuf;
  const touched: number[] = [];
  const n = mask.length;
  let prevK = -1, prevL = NaN, prevA = NaN, prevB = NaN;
  // The sums of the last bucket used live in locals (same additions in the same order) until another bucket
  // is hit: a run of pixels in one bucket would otherwise chain each add to the previous one's store.
  let oW = 0, oL = 0, oA = 0, oB = 0;
  if (clean) {
    // Runs of one packed colour are one colour of one mask value (traced pixels have alpha 255, the rest are 0;
    // see PreparedImage), minus the blends among them.
    const { px, w, blendList } = clean;
    const h = w > 0 ? n / w : 0;
    const rows = new RowReader(img.runs, px, w);
    let next = 0;
    for (let y = 0; y < h; y++) {
      rows.read(y);
      const list = rows.list;
      for (let r = rows.first, last = r + rows.count; r < last; r++) {
        const start = list[r]!, end = list[r + 1]!;
        let count = end - start;
        if (blends) while (next < blendList.length && blendList[next]! < end) { next++; count--; }
        if (!mask[start] || count === 0) continue;
        const e = ix[start]! * 3;
        const L = lab[e]!, a = lab[e + 1]!, b = lab[e + 2]!;
        const k = bucketOf(L, a, b);
        if (k !== prevK) {
          if (prevK >= 0) { sums[prevK] = oW; sums[prevK + 1] = oL; sums[prevK + 2] = oA; sums[prevK + 3] = oB; }
          oW = sums[k]!; oL = sums[k + 1]!; oA = sums[k + 2]!; oB = sums[k + 3]!;
          if (oW === 0) touched.push(k);
          prevK = k;
        }
        // One addition per pixel, as a walk by pixels does them (a product would round differently).
        oW += count;
        for (let t = 0; t < count; t++) { oL += L; oA += a; oB += b; }
      }
    }
  } else {
    for (let i = 0; i < n; i++) {
      if (!mask[i] || (blends && blends[i] !== NOT_BLEND)) continue;
      const e = ix[i]! * 3;
      const L = lab[e]!, a = lab[e + 1]!, b = lab[e + 2]!;
      // Same Lab as the previous pixel used (smoothed flat areas): same bucket.
      if (L === prevL && a === prevA && b === prevB) {
        oW += 1; oL += L; oA += a; oB += b;
        continue;
      }
      const k = bucketOf(L, a, b);
      if (k !== prevK) {
        if (prevK >= 0) { sums[prevK] = oW; sums[prevK + 1] = oL; sums[prevK + 2] = oA; sums[prevK + 3] = oB; }
        oW = sums[k]!; oL = sums[k + 1]!; oA = sums[k + 2]!; oB = sums[k + 3]!;
        if (oW === 0) touched.push(k);
        prevK = k;
      }
      oW += 1; oL += L; oA += a; oB += b;
      prevL = L; prevA = a; prevB = b;
    }
  }
  if (prevK >= 0) { sums[prevK] = oW; sums[prevK + 1] = oL; sums[prevK + 2] = oA; sums[prevK + 3] = oB; }
  // Bucket order (not discovery order) keeps the result independent of pixel order.
  touched.sort((p, q) => p - q);
  const count = touched.length;
  const out: Samples = { lab: new Float64Array(count * 3), weight: new Float64Array(count), count, total: 0 };
  for (let j = 0; j < count; j++) {
    const k = touched[j]!;
    const wt = sums[k]!;
    out.weight[j] = wt;
    out.lab[j * 3] = sums[k + 1]! / wt;
    out.lab[j * 3 + 1] = sums[k + 2]! / wt;
    out.lab[j * 3 + 2] = sums[k + 3]! / wt;
    out.total += wt;
    sums[k] = 0; sums[k + 1] = 0; sums[k + 2] = 0; sums[k + 3] = 0;
  }
  return out;
}

/** Offset in the bucket sums of the bucket of (L, a, b). */
function bucketOf(L: number, a: number, b: number): number {
  let li = (L * (LB / 100.5)) | 0;
  let ai = ((a + 128) * (AB / 256)) | 0;
  let bi = ((b + 128) * (AB / 256)) | 0;
  if (li < 0) li = 0; else if (li >= LB) li = LB - 1;
  if (ai < 0) ai = 0; else if (ai >= AB) ai = AB - 1;
  if (bi < 0) bi = 0; else if (bi >= AB) bi = AB - 1;
  return ((li * AB + ai) * AB + bi) * 4;
}

/** Reused bucket sums (one per thread); every touched entry is zeroed after use. */
let sumsBuf: Float64Array | null = null;

interface Box { idx: Int32Array; sse: number }

function boxStats(s: Samples, idx: Int32Array): number {
  let w = 0, m0 = 0, m1 = 0, m2 = 0, q = 0;
  for (const i of idx) {
    const wt = s.weight[i]!;
    const L = s.lab[i * 3]!, a = s.lab[i * 3 + 1]!, b = s.lab[i * 3 + 2]!;
    w += wt; m0 += wt * L; m1 += wt * a; m2 += wt * b; q += wt * (L * L + a * a + b * b);
  }
  return w > 0 ? q - (m0 * m0 + m1 * m1 + m2 * m2) / w : 0;
}

const SPLIT_BINS = 256;

/**
 * Split a box at the SSE-optimal position along its best axis (positions on a 256-bin histogram of the box's
 * range per axis, so a split costs O(samples) rather than a sort); null when it cannot be split.
 */
function splitBox(s: Samples, box: Box): [Box, Box] | null {
  if (box.idx.length < 2) return null;
  let best: { axis: number; cut: number; lo: number; scale: number; gain: number } | null = null;
  const bw = new Float64Array(SPLIT_BINS), b0 = new Float64Array(SPLIT_BINS), b1 = new Float64Array(SPLIT_BINS), b2 = new Float64Array(SPLIT_BINS);
  for (let axis = 0; axis < 3; axis++) {
    let lo = Infinity, hi = -Infinity;
    for (const i of box.idx) {
      const v = s.lab[i * 3 + axis]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (hi - lo < 1e-6) continue;
    const scale = (SPLIT_BINS - 1e-6) / (hi - lo);
    bw.fill(0); b0.fill(0); b1.fill(0); b2.fill(0);
    let tw = 0, t0 = 0, t1 = 0, t2 = 0;
    for (const i of box.idx) {
      const b = ((s.lab[i * 3 + axis]! - lo) * scale) | 0;
      const wt = s.weight[i]!;
      const L = wt * s.lab[i * 3]!, A = wt * s.lab[i * 3 + 1]!, B = wt * s.lab[i * 3 + 2]!;
      bw[b] += wt; b0[b] += L; b1[b] += A; b2[b] += B;
      tw += wt; t0 += L; t1 += A; t2 += B;
    }
    const base = (t0 * t0 + t1 * t1 + t2 * t2) / tw;
    let w = 0, m0 = 0, m1 = 0, m2 = 0;
    for (let b = 0; b < SPLIT_BINS - 1; b++) {
      w += bw[b]!; m0 += b0[b]!; m1 += b1[b]!; m2 += b2[b]!;
      const rw = tw - w;
      if (w <= 0 || rw <= 0 || bw[b] === 0) continue;
      const gain = (m0 * m0 + m1 * m1 + m2 * m2) / w + ((t0 - m0) ** 2 + (t1 - m1) ** 2 + (t2 - m2) ** 2) / rw - base;
      if (!best || gain > best.gain) best = { axis, cut: b, lo, scale, gain };
    }
  }
  if (!best) return null;
  const left: number[] = [], right: number[] = [];
  for (const i of box.idx) {
    const b = ((s.lab[i * 3 + best.axis]! - best.lo) * best.scale) | 0;
    (b <= best.cut ? left : right).push(i);
  }
  if (!left.length || !right.length) return null;
  const a = Int32Array.from(left), b = Int32Array.from(right);
  return [{ idx: a, sse: boxStats(s, a) }, { idx: b, sse: boxStats(s, b) }];
}

/** Greedy variance-split seeding: up to k centroids (fewer when the samples cannot be split further). */
export function seedCentroids(s: Samples, k: number): Float64Array {
  const all = new Int32Array(s.count);
  for (let i = 0; i < s.count; i++) all[i] = i;
  const boxes: Box[] = [{ idx: all, sse: boxStats(s, all) }];
  while (boxes.length < k) {
    let bi = -1;
    for (let i = 0; i < boxes.length; i++) if (boxes[i]!.sse > 1e-9 && (bi < 0 || boxes[i]!.sse > boxes[bi]!.sse)) bi = i;
    if (bi < 0) break;
    const parts = splitBox(s, boxes[bi]!);
    if (!parts) {
      boxes[bi]!.sse = 0;
      continue;
    }
    boxes.splice(bi, 1, parts[0], parts[1]);
  }
  const c = new Float64Array(boxes.length * 3);
  boxes.forEach((box, j) => {
    let w = 0, m0 = 0, m1 = 0, m2 = 0;
    for (const i of box.idx) {
      const wt = s.weight[i]!;
      w += wt; m0 += wt * s.lab[i * 3]!; m1 += wt * s.lab[i * 3 + 1]!; m2 += wt * s.lab[i * 3 + 2]!;
    }
    c[j * 3] = m0 / w; c[j * 3 + 1] = m1 / w; c[j * 3 + 2] = m2 / w;
  });
  return c;
}

/** Index of the nearest centroid to (L, a, b). */
export function nearest(c: Float64Array, k: number, L: number, a: number, b: number): number {
  let best = 0, bd = Infinity;
  for (let j = 0; j < k; j++) {
    const dL = c[j * 3]! - L, dA = c[j * 3 + 1]! - a, dB = c[j * 3 + 2]! - b;
    const d = dL * dL + dA * dA + dB * dB;
    if (d < bd) { bd = d; best = j; }
  }
  return best;
}

/**
 * Per centroid j: (1 - 1e-9) / 4 of the squared distance to its closest other centroid. A colour closer than that
 * to centroid j has j as its unique nearest centroid (triangle inequality), so `nearestFrom` can skip the search.
 */
export function nearestRadii(c: Float64Array, k: number): Float64Array {
  const r2 = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    let m = Infinity;
    for (let i = 0; i < k; i++) {
      if (i === j) continue;
      const dL = c[j * 3]! - c[i * 3]!, dA = c[j * 3 + 1]! - c[i * 3 + 1]!, dB = c[j * 3 + 2]! - c[i * 3 + 2]!;
      const d = dL * dL + dA * dA + dB * dB;
      if (d < m) m = d;
    }
    r2[j] = m === Infinity ? Infinity : 0.25 * (1 - 1e-9) * m;
  }
  return r2;
}

/** Same result as `nearest`, trying `guess` (e.g. a neighbour's label) first: inside its radius it is the answer. */
export function nearestFrom(c: Float64Array, k: number, r2: Float64Array, guess: number, L: number, a: number, b: number): number {
  if (guess >= 0 && guess < k) {
    const dL = c[guess * 3]! - L, dA = c[guess * 3 + 1]! - a, dB = c[guess * 3 + 2]! - b;
    if (dL * dL + dA * dA + dB * dB < r2[guess]!) return guess;
  }
  return nearest(c, k, L, a, b);
}

/** A clustering of the samples. */
export interface Clusters {
  /** Centroids in Lab (3 floats each). */
  centroids: Float64Array;
  /** Weight of each cluster. */
  weights: Float64Array;
  k: number;
}

/** Weighted Lloyd iterations; empty clusters are dropped. */
export function kmeans(s: Samples, seeds: Float64Array, iterations: number): Clusters {
  let c = seeds.slice();
  let k = c.length / 3;
  const assign = new Int32Array(s.count).fill(-1);
  let weights = new Float64Array(k);
  for (let it = 0; it < iterations; it++) {
    const sums = new Float64Array(k * 4);
    let changed = 0;
    for (let i = 0; i < s.count; i++) {
      const j = nearest(c, k, s.lab[i * 3]!, s.lab[i * 3 + 1]!, s.lab[i * 3 + 2]!);
      if (assign[i] !== j) { changed++; assign[i] = j; }
      const wt = s.weight[i]!;
      sums[j * 4] += wt; sums[j * 4 + 1] += wt * s.lab[i * 3]!; sums[j * 4 + 2] += wt * s.lab[i * 3 + 1]!; sums[j * 4 + 3] += wt * s.lab[i * 3 + 2]!;
    }
    const keep: number[] = [];
    for (let j = 0; j < k; j++) if (sums[j * 4]! > 0) keep.push(j);
    const nc = new Float64Array(keep.length * 3);
    weights = new Float64Array(keep.length);
    keep.forEach((j, m) => {
      const wt = sums[j * 4]!;
      weights[m] = wt;
      nc[m * 3] = sums[j * 4 + 1]! / wt; nc[m * 3 + 1] = sums[j * 4 + 2]! / wt; nc[m * 3 + 2] = sums[j * 4 + 3]! / wt;
    });
    const stable = changed === 0 && keep.length === k;
    c = nc;
    k = keep.length;
    if (stable) break;
    if (keep.length !== sums.length / 4) assign.fill(-1);
  }
  return { centroids: c, weights, k };
}

/** Rules for agglomerative merging. */
export interface MergeRules {
  /** Clusters closer than this (ΔE76) are one ink and always merge. */
  sameInk: number;
  /** When set (auto), merging continues while above `floor` colours and the merge keeps the art true. */
  auto?: {
    floor: number;
    /** A merge keeps the art true when the centroids are closer than this ΔE76 ... */
    trueDistance: number;
    /** ... or when the smaller cluster holds less than this share of the ink pixels. */
    minShare: number;
  };
}

/**
 * Merge clusters (cheapest Ward cost w_i w_j / (w_i + w_j) |c_i - c_j|^2 first) while a rule allows it.
 * Returns the merged clustering (centroids are weighted means).
 */
export function mergeClusters(cl: Clusters, total: number, rules: MergeRules): Clusters {
  const c = Array.from({ length: cl.k }, (_, j) => [cl.centroids[j * 3]!, cl.centroids[j * 3 + 1]!, cl.centroids[j * 3 + 2]!]);
  const w = Array.from(cl.weights);
  for (;;) {
    const k = c.length;
    if (k <= 1) break;
    let bi = -1, bj = -1, bestCost = Infinity;
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) {
        const d2 = (c[i]![0]! - c[j]![0]!) ** 2 + (c[i]![1]! - c[j]![1]!) ** 2 + (c[i]![2]! - c[j]![2]!) ** 2;
        const d = Math.sqrt(d2);
        let ok = d < rules.sameInk;
        if (!ok && rules.auto && k > rules.auto.floor) {
          ok = d < rules.auto.trueDistance || Math.min(w[i]!, w[j]!) < rules.auto.minShare * total;
        }
        if (!ok) continue;
        const cost = ((w[i]! * w[j]!) / (w[i]! + w[j]!)) * d2;
        if (cost < bestCost) { bestCost = cost; bi = i; bj = j; }
      }
    }
    if (bi < 0) break;
    const wi = w[bi]!, wj = w[bj]!, ws = wi + wj;
    c[bi] = [(c[bi]![0]! * wi + c[bj]![0]! * wj) / ws, (c[bi]![1]! * wi + c[bj]![1]! * wj) / ws, (c[bi]![2]! * wi + c[bj]![2]! * wj) / ws];
    w[bi] = ws;
    c.splice(bj, 1);
    w.splice(bj, 1);
  }
  const centroids = new Float64Array(c.length * 3);
  c.forEach((v, j) => { centroids[j * 3] = v[0]!; centroids[j * 3 + 1] = v[1]!; centroids[j * 3 + 2] = v[2]!; });
  return { centroids, weights: Float64Array.from(w), k: c.length };
}
