// Shaded-region merging for gradients=true: quantization cuts a smooth shade into bands; neighbouring bands
// whose union a single linear colour ramp explains (RMS residual of a least-squares plane per Lab channel,
// computed from running moments, under RAMP_RMS) are merged into one region, cheapest first, so the gradient
// fitter (fit.ts) sees the whole shade. Only bands that are themselves shaded (their own plane leaves an
// interior error, or their pixels spread around their mean by >= FLAT_SPREAD) take part: flat inks never merge.
import { TRANSPARENT, type LabelMap } from '../types.js';
import type { LabImage } from '../quantize/lab-image.js';

/** Largest RMS ΔE76 of the plane fit of a merged region. */
const RAMP_RMS = 2.5;
/** A band whose pixels spread around their mean by less than this (RMS ΔE76) is a flat ink. */
const FLAT_SPREAD = 1.5;
/** Only neighbours this close (ΔE76 of their means) are considered. */
const MAX_STEP = 25;

/**
 * Moments per region, S floats: 0 n, 1 Σx, 2 Σy, 3 Σxx, 4 Σxy, 5 Σyy, 6-8 Σc (L, a, b), 9-11 Σxc,
 * 12 Σ|c|², 13-15 Σyc.
 */
const S = 16;

/** Residual sum of squares (Lab) of the best plane c = c0 + gx x + gy y through a region's pixels. */
function planeSse(m: Float64Array): number {
  const n = m[0]!;
  if (n < 6) return Infinity;
  // Centre the normal equations for stability.
  const mx = m[1]! / n, my = m[2]! / n;
  const sxx = m[3]! - n * mx * mx, sxy = m[4]! - n * mx * my, syy = m[5]! - n * my * my;
  const det = sxx * syy - sxy * sxy;
  let sse = m[12]!;
  for (let ch = 0; ch < 3; ch++) {
    const sc = m[6 + ch]!;
    const mc = sc / n;
    sse -= n * mc * mc;
    if (det > 1e-9) {
      const sxc = m[9 + ch]! - n * mx * mc;
      const syc = m[13 + ch]! - n * my * mc;
      const gx = (syy * sxc - sxy * syc) / det;
      const gy = (sxx * syc - sxy * sxc) / det;
      sse -= gx * sxc + gy * syc;
    }
  }
  return Math.max(0, sse);
}

/**
 * Merge neighbouring shaded bands of `map` (in place) where one linear ramp explains them.
 * `img`: the CIELAB image the labels came from. Returns the number of merges.
 */
export function mergeShadedBands(map: LabelMap, img: LabImage): number {
  const { index: ix, lab } = img;
  const { width: w, height: h, labels } = map;
  const k = map.palette.length / 3;
  if (k < 2) return 0;
  const mom = new Float64Array(k * S);
  const adj = new Map<number, number>();
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const l = labels[i]!;
      if (l === TRANSPARENT) continue;
      if (x < w - 1) { const r = labels[i + 1]!; if (r !== l && r !== TRANSPARENT) adj.set(l < r ? l * k + r : r * k + l, 1); }
      if (y < h - 1) { const d = labels[i + w]!; if (d !== l && d !== TRANSPARENT) adj.set(l < d ? l * k + d : d * k + l, 1); }
      // Interior pixels only: edges carry anti-aliasing.
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1 || labels[i - 1] !== l || labels[i + 1] !== l || labels[i - w] !== l || labels[i + w] !== l) continue;
      const b = l * S;
      const e = ix[i]! * 3;
      const L = lab[e]!, A = lab[e + 1]!, B = lab[e + 2]!;
      mom[b] += 1; mom[b + 1] += x; mom[b + 2] += y; mom[b + 3] += x * x; mom[b + 4] += x * y; mom[b + 5] += y * y;
      mom[b + 6] += L; mom[b + 7] += A; mom[b + 8] += B;
      mom[b + 9] += x * L; mom[b + 10] += x * A; mom[b + 11] += x * B;
      mom[b + 12] += L * L + A * A + B * B;
      mom[b + 13] += y * L; mom[b + 14] += y * A; mom[b + 15] += y * B;
    }
  }
  const get = (l: number): Float64Array => mom.subarray(l * S, l * S + S);
  const spread = (m: Float64Array): number => {
    const n = m[0]!;
    if (n < 1) return 0;
    const mean2 = (m[6]! ** 2 + m[7]! ** 2 + m[8]! ** 2) / (n * n);
    return Math.sqrt(Math.max(0, m[12]! / n - mean2));
  };
  const shaded = new Uint8Array(k);
  for (let l = 0; l < k; l++) shaded[l] = get(l)[0]! >= 20 && spread(get(l)) >= FLAT_SPREAD ? 1 : 0;
  const parent = Int32Array.from({ length: k }, (_, i) => i);
  const find = (a: number): number => { while (parent[a] !== a) a = parent[a] = parent[parent[a]!]!; return a; };
  const pairs = [...adj.keys()].map((key) => [Math.floor(key / k), key % k] as [number, number]);
  let merges = 0;
  const tmp = new Float64Array(S);
  for (;;) {
    let best: [number, number] | null = null;
    let bestRms = RAMP_RMS;
    for (const [p, q] of pairs) {
      const a = find(p), b = find(q);
      if (a === b || !shaded[a] || !shaded[b]) continue;
      const ma = get(a), mb = get(b);
      const dm = Math.hypot(ma[6]! / ma[0]! - mb[6]! / mb[0]!, ma[7]! / ma[0]! - mb[7]! / mb[0]!, ma[8]! / ma[0]! - mb[8]! / mb[0]!);
      if (!(dm < MAX_STEP)) continue;
      for (let s = 0; s < S; s++) tmp[s] = ma[s]! + mb[s]!;
      const rms = Math.sqrt(planeSse(tmp) / tmp[0]!);
      if (rms < bestRms) { bestRms = rms; best = [a, b]; }
    }
    if (!best) break;
    const [a, b] = best;
    const keep = get(a)[0]! >= get(b)[0]! ? a : b;
    const drop = keep === a ? b : a;
    const mk = get(keep), md = get(drop);
    for (let s = 0; s < S; s++) mk[s] = mk[s]! + md[s]!;
    parent[drop] = keep;
    merges++;
  }
  if (!merges) return 0;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    if (l !== TRANSPARENT) labels[i] = find(l);
  }
  return merges;
}
