// Quantize stage: traced pixels -> LabelMap with an exact palette.
// Lab conversion -> edge-aware smoothing when the art is noisy -> anti-aliasing blend detection ->
// weighted palette (variance-split seeding, k-means, Ward merging; see palette.ts) -> per-pixel labels
// (blends take the ink of the side they belong to) -> majority cleanup of isolated pixels.
// `colors`: 'auto' (criterion in AUTO_RULES), an integer 1-20 (a maximum), or 'unlimited' (up to 64 inks).
import { labToRgb } from '../../colour/convert.js';
import { TRANSPARENT, type LabelMap } from '../types.js';
import type { PreparedImage } from '../prepare/edge-cleanup.js';
import type { Scratch } from '../scratch.js';
import { bilateralLab, noiseScore, toLab } from './smooth.js';
import { labOfColours, type LabImage } from './lab-image.js';
import { blendPartner, detectBlends, NOT_BLEND, type BlendMap } from './blend.js';
import { buildSamples, kmeans, mergeClusters, nearest, nearestFrom, nearestRadii, seedCentroids, type Clusters, type MergeRules, type Samples } from './palette.js';
import { majorityCleanup } from './cleanup.js';
import { RowReader, type ColourRuns } from './runs.js';
import { dissolveEdgeClusters } from './dissolve.js';

export type ColorsOption = number | 'auto' | 'unlimited';

/** Clusters closer than this ΔE76 are one ink (about 1.3 JND) on clean art... */
export const SAME_INK_CLEAN = 3;
/** ... and on noisy (JPEG) art, where one ink spreads over a wider cloud. */
export const SAME_INK_NOISY = 6;
/**
 * `colors=auto`: start from 20 clusters and merge (cheapest Ward cost first) while more than 4 remain and the merge
 * keeps the art true: the two inks are within ΔE76 10 of each other (a shade, not a different colour), or the
 * smaller holds under 0.02 % of the ink pixels. Below 4 only same-ink merges happen.
 */
export const AUTO_RULES = { start: 20, floor: 4, trueDistance: 10, minShare: 0.0002 } as const;
/** `colors=unlimited`: up to this many inks, merged only when closer than a JND-scale ΔE76 of 4. */
export const UNLIMITED_MAX = 64;
const UNLIMITED_SAME_INK = 4;
/** Noise score above which the art is smoothed before clustering (see noiseScore). */
const NOISY_SCORE = 0.3;

export interface QuantizeResult {
  map: LabelMap;
  /** The (possibly smoothed) CIELAB image the labels were computed from. */
  lab: LabImage;
  /** The art was judged noisy (JPEG-like) and smoothed. */
  noisy: boolean;
}

/** Share of the quantize time done after each step, clean and noisy (smoothed) input; 2000 px corpus art. */
const STEP_DONE: Readonly<Record<'clean' | 'noisy', Readonly<Record<string, number>>>> = {
  clean: { lab: 0.1, smooth: 0.15, blends: 0.29, samples: 0.43, palette: 0.45, assign: 0.55, dissolve: 0.65, majority: 0.78, finish: 1 },
  noisy: { lab: 0.1, smooth: 0.45, blends: 0.61, samples: 0.7, palette: 0.71, assign: 0.81, dissolve: 0.83, majority: 0.89, finish: 1 },
};

/**
 * Quantize prepared pixels into a label map. Deterministic. `timings` (optional) collects CPU ms per step.
 * `jpegSource`: the pixels came from a JPEG (smooth before clustering); omitted, the noise score decides.
 * `onProgress` hears the share done after each step. `scratch`: the per-pixel arrays of the result (labels, colour
 * index) are views of its buffers, valid until its next user.
 */
export function quantize(prep: PreparedImage, colors: ColorsOption, timings?: Record<string, number>, jpegSource?: boolean, onProgress?: (done: number) => void, scratch?: Scratch): QuantizeResult {
  const { width: w, height: h, mask } = prep;
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let tick = timings ? cpuMs() : 0;
  let noisy = false;
  const lap = (name: string): void => {
    onProgress?.(STEP_DONE[noisy ? 'noisy' : 'clean'][name] ?? 0);
    if (!timings) return;
    const now = cpuMs();
    timings[name] = (timings[name] ?? 0) + (now - tick);
    tick = now;
  };
  const n = w * h;
  // Noisy art is smoothed per pixel; clean art keeps one Lab entry per distinct colour (see lab-image.ts).
  noisy = jpegSource ?? noiseScore(prep.rgba, mask, w, h) > NOISY_SCORE;
  const lab = noisy ? null : labOfColours(prep.rgba, w, scratch);
  const smoothLab = noisy ? toLab(prep.rgba, scratch) : null;
  lap('lab');
  const labImg: LabImage = lab ?? bilateralLab(smoothLab!, mask, w, h, 7, 2, prep.rgba, scratch);
  lap('smooth');
  // Clean art: its packed pixels and its blends in scan order (few), for the steps that walk runs of one colour.
  const clean = noisy ? undefined : { px: new Uint32Array(prep.rgba.buffer, prep.rgba.byteOffset, n), w, blendList: [] as number[] };
  const blends = detectBlends(labImg, mask, w, h, noisy ? undefined : prep.rgba, scratch, clean?.blendList);
  lap('blends');
  // Ink samples: traced pixels that are not blends (all traced pixels when every one is a blend).
  let samples = buildSamples(labImg, mask, blends, clean);
  if (samples.count === 0) samples = buildSamples(labImg, mask, null, clean);
  lap('samples');
  // Every element is written by assignLabels (clean art) or here.
  const labels = scratch ? scratch.uint16('quantize.labels', n) : new Uint16Array(n);
  if (noisy || samples.count === 0) labels.fill(TRANSPARENT);
  if (samples.count === 0) return { map: { width: w, height: h, labels, palette: new Uint8Array(0) }, lab: labImg, noisy };

  const sameInk = noisy ? SAME_INK_NOISY : SAME_INK_CLEAN;
  let cl: Clusters;
  let paperLabel = -1;
  if (colors === 1) {
    cl = kmeans(samples, seedCentroids(samples, prep.fullyOpaque ? 2 : 4), 12);
    if (prep.fullyOpaque && cl.k === 2) {
      paperLabel = borderMajority(labImg, w, h, cl);
    } else {
      // Everything non-transparent is one silhouette painted with the dominant ink.
      let top = 0;
      for (let j = 1; j < cl.k; j++) if (cl.weights[j]! > cl.weights[top]!) top = j;
      cl = { centroids: cl.centroids.slice(top * 3, top * 3 + 3), weights: Float64Array.of(samples.total), k: 1 };
    }
  } else {
    let rules: MergeRules;
    let start: number;
    if (colors === 'auto') {
      start = AUTO_RULES.start;
      rules = { sameInk, auto: { floor: AUTO_RULES.floor, trueDistance: AUTO_RULES.trueDistance, minShare: AUTO_RULES.minShare } };
    } else if (colors === 'unlimited') {
      start = UNLIMITED_MAX;
      rules = { sameInk: Math.min(sameInk, UNLIMITED_SAME_INK) };
    } else {
      start = colors;
      rules = { sameInk };
    }
    cl = kmeans(samples, seedCentroids(samples, start), 12);
    cl = mergeClusters(cl, samples.total, rules);
    cl = kmeans(samples, cl.centroids, 6);
    cl = mergeClusters(cl, samples.total, { sameInk });
  }

  lap('palette');
  // Pixels per label, when the labelling counts them on the way (clean art).
  let labelCounts: Float64Array | undefined;
  if (clean) labelCounts = assignCleanLabels(prep, labImg, blends, clean.blendList, cl, labels);
  else assignLabels(prep, labImg, blends, cl, labels);
  lap('assign');
  if (paperLabel >= 0) {
    for (let i = 0; i < n; i++) if (labels[i] === paperLabel) labels[i] = TRANSPARENT;
  }
  if (colors !== 1) {
    dissolveEdgeClusters(labels, labImg, w, h, cl, paperLabel < 0 ? labelCounts : undefined);
    lap('dissolve');
    majorityCleanup(labels, w, h, 2);
    lap('majority');
  }
  const map = finishPalette(prep, labels, blends, cl, w, h, noisy ? samples : null, clean && { runs: labImg.runs, blendList: clean.blendList });
  lap('finish');
  return { map, lab: labImg, noisy };
}

/** The cluster that holds most border pixels (the paper of an opaque upload). */
function borderMajority(img: LabImage, w: number, h: number, cl: Clusters): number {
  const counts = new Float64Array(cl.k);
  const { index: ix, lab } = img;
  const add = (i: number): void => { const e = ix[i]! * 3; counts[nearest(cl.centroids, cl.k, lab[e]!, lab[e + 1]!, lab[e + 2]!)]! += 1; };
  for (let x = 0; x < w; x++) { add(x); add((h - 1) * w + x); }
  for (let y = 1; y < h - 1; y++) { add(y * w); add(y * w + w - 1); }
  let best = 0;
  for (let j = 1; j < cl.k; j++) if (counts[j]! > counts[best]!) best = j;
  return best;
}

/** Labels of noisy (smoothed) art, one Lab per pixel: the nearest ink; blends take their side's (assignBlend). */
function assignLabels(prep: PreparedImage, img: LabImage, blends: BlendMap, cl: Clusters, labels: Uint16Array): void {
  const { mask } = prep;
  const { index: ix, lab } = img;
  const n = mask.length;
  const c = cl.centroids, k = cl.k;
  // Neighbouring pixels mostly share a label: the last label assigned is tried first (exact, see nearestFrom).
  const r2 = nearestRadii(c, k);
  let guess = -1;
  // The Lab and label of the previous pixel when it was an ink pixel labelled here (else prevOk false).
  // Smoothed flat areas (paper) repeat the exact same Lab value, and the same Lab has the same nearest ink.
  let prevOk = false, prevL = 0, prevA = 0, prevB = 0, prevLabel = 0;
  for (let i = 0; i < n; i++) {
    if (!mask[i] || blends[i] !== NOT_BLEND) { prevOk = false; continue; }
    const o = ix[i]! * 3;
    const L = lab[o]!, A = lab[o + 1]!, B = lab[o + 2]!;
    if (prevOk && L === prevL && A === prevA && B === prevB) {
      labels[i] = prevLabel;
      continue;
    }
    guess = nearestFrom(c, k, r2, guess, L, A, B);
    labels[i] = guess;
    prevOk = true; prevL = L; prevA = A; prevB = B; prevLabel = guess;
  }
  // Noisy art has many blends: a second scan of the blend map costs less than listing them.
  for (let i = 0; i < n; i++) if (blends[i] !== NOT_BLEND && mask[i]) assignBlend(img, blends, cl, labels, prep.width, i);
}

/**
 * Labels of clean art (see labOfColours), by runs of one colour: every pixel of a distinct colour has the same
 * nearest ink, looked up once; untraced runs are TRANSPARENT. Then the listed blends take their side's ink.
 * Returns the pixel count of each label.
 */
function assignCleanLabels(prep: PreparedImage, img: LabImage, blends: BlendMap, blendList: readonly number[], cl: Clusters, labels: Uint16Array): Float64Array {
  const counts = new Float64Array(cl.k);
  const { mask, width: w, height: h } = prep;
  const { index: ix, lab } = img;
  const px = new Uint32Array(prep.rgba.buffer, prep.rgba.byteOffset, w * h);
  const c = cl.centroids, k = cl.k;
  const r2 = nearestRadii(c, k);
  let guess = -1;
  // Nearest ink per Lab entry, -1 until needed.
  const inkOf = new Int32Array(lab.length / 3).fill(-1);
  const rows = new RowReader(img.runs, px, w);
  for (let y = 0; y < h; y++) {
    rows.read(y);
    const list = rows.list;
    for (let r = rows.first, last = r + rows.count; r < last; r++) {
      const start = list[r]!, end = list[r + 1]!;
      let l = TRANSPARENT;
      // A run is one mask value (traced pixels have alpha 255, the rest are 0; see PreparedImage).
      if (mask[start]) {
        const e = ix[start]!;
        l = inkOf[e]!;
        if (l < 0) {
          guess = nearestFrom(c, k, r2, guess, lab[e * 3]!, lab[e * 3 + 1]!, lab[e * 3 + 2]!);
          l = inkOf[e] = guess;
        }
        counts[l]! += end - start;
      }
      if (end - start > 16) labels.fill(l, start, end);
      else for (let t = start; t < end; t++) labels[t] = l;
    }
  }
  // Blends (labelled as their run above) take the ink of the side they lean to.
  for (const i of blendList) {
    counts[labels[i]!]! -= 1;
    assignBlend(img, blends, cl, labels, w, i);
    counts[labels[i]!]! += 1;
  }
  return counts;
}

/** Blend i takes the ink of the side it leans to, labelled already; chains of blends fall back to the nearest ink. */
function assignBlend(img: LabImage, blends: BlendMap, cl: Clusters, labels: Uint16Array, w: number, i: number): void {
  const p = blendPartner(i, blends[i]!, w);
  const e = img.index[i]! * 3;
  labels[i] = blends[p] === NOT_BLEND && labels[p] !== TRANSPARENT ? labels[p]! : nearest(cl.centroids, cl.k, img.lab[e]!, img.lab[e + 1]!, img.lab[e + 2]!);
}

/**
 * Drop unused clusters, order inks by pixel count (largest first) and fix each ink's exact colour: the source
 * RGB held by the majority of its ink pixels when there is one (flat art keeps its exact colours); on noisy
 * (JPEG) art the mean of the cluster's heaviest Lab bucket when it holds >= 20 % of the cluster (the ink as
 * printed, not pulled by ringing or by noise clipped at black/white); else the cluster's Lab mean.
 */
function finishPalette(prep: PreparedImage, labels: Uint16Array, blends: BlendMap, cl: Clusters, w: number, h: number, samples: Samples | null,
  clean?: { runs: ColourRuns | undefined; blendList: readonly number[] }): LabelMap {
  const n = w * h;
  const k = cl.k;
  const counts = new Float64Array(k);
  const cand = new Uint32Array(k);
  const votes = new Float64Array(k);
  const inkPx = new Float64Array(k);
  const px = new Uint32Array(prep.rgba.buffer, prep.rgba.byteOffset, n);
  // A run of m ink pixels of one colour v and one label is m steps of that label's majority vote (Boyer-Moore) at
  // once, with the same outcome (`vote`); blends count for the label but do not vote.
  const rows = clean ? new RowReader(clean.runs, px, w) : null;
  if (clean && rows) {
    // Clean art: the runs of one colour (untraced ones skipped) split where the label changes; blends are listed.
    const list = clean.blendList;
    let next = 0;
    for (let y = 0; y < h; y++) {
      rows.read(y);
      const runList = rows.list;
      for (let r = rows.first, last = r + rows.count; r < last; r++) {
        let i = runList[r]!;
        const end = runList[r + 1]!;
        // Untraced (see PreparedImage): TRANSPARENT since assignCleanLabels, never filled later.
        if (!prep.mask[i]) continue;
        const v = px[i]!;
        while (i < end) {
          const l = labels[i]!;
          let j = i + 1;
          while (j < end && labels[j] === l) j++;
          let ink = j - i;
          while (next < list.length && list[next]! < j) { next++; ink--; }
          if (l !== TRANSPARENT) {
            counts[l]! += j - i;
            if (ink > 0) vote(cand, votes, inkPx, l, v, ink);
          }
          i = j;
        }
      }
    }
  } else {
    // Runs of one label, colour and blend status.
    for (let i = 0; i < n;) {
      const l = labels[i]!;
      if (l === TRANSPARENT) { i++; continue; }
      const v = px[i]!;
      const ink = blends[i] === NOT_BLEND;
      let j = i + 1;
      if (ink) while (j < n && labels[j] === l && px[j] === v && blends[j] === NOT_BLEND) j++;
      else while (j < n && labels[j] === l && px[j] === v && blends[j] !== NOT_BLEND) j++;
      counts[l]! += j - i;
      if (ink) vote(cand, votes, inkPx, l, v, j - i);
      i = j;
    }
  }
  const order = Array.from({ length: k }, (_, j) => j).filter((j) => counts[j]! > 0).sort((a, b) => counts[b]! - counts[a]! || a - b);
  const remap = new Uint16Array(k).fill(TRANSPARENT);
  order.forEach((j, m) => { remap[j] = m; });
  // Whether the majority candidate holds at least half of its cluster's ink pixels. The votes left to the
  // candidate are a lower bound of its count, so half of them settles it; otherwise its pixels are counted.
  const candCount = new Float64Array(k);
  const undecided = new Uint8Array(k);
  let counting = false;
  for (let j = 0; j < k; j++) {
    if (inkPx[j]! > 0 && 2 * votes[j]! < inkPx[j]!) { undecided[j] = 1; counting = true; } else candCount[j] = votes[j]!;
  }
  let relabel = false;
  for (let j = 0; j < k; j++) if (remap[j] !== j && counts[j]! > 0) relabel = true;
  // One pass when needed: relabel in palette order and count the undecided candidates (runs of one label).
  if (clean && rows && (relabel || counting)) {
    const list = clean.blendList;
    let next = 0;
    for (let y = 0; y < h; y++) {
      rows.read(y);
      const runList = rows.list;
      for (let r = rows.first, last = r + rows.count; r < last; r++) {
        let i = runList[r]!;
        const end = runList[r + 1]!;
        if (!prep.mask[i]) continue;
        const v = px[i]!;
        while (i < end) {
          const l = labels[i]!;
          let j = i + 1;
          while (j < end && labels[j] === l) j++;
          let ink = j - i;
          while (next < list.length && list[next]! < j) { next++; ink--; }
          if (l !== TRANSPARENT) {
            const to = remap[l]!;
            if (to !== l) for (let t = i; t < j; t++) labels[t] = to;
            if (undecided[l] && v === cand[l]) candCount[l]! += ink;
          }
          i = j;
        }
      }
    }
  } else if (relabel || counting) {
    for (let i = 0; i < n;) {
      const l = labels[i]!;
      if (l === TRANSPARENT) { i++; continue; }
      let j = i + 1;
      while (j < n && labels[j] === l) j++;
      const to = remap[l]!;
      if (to !== l) for (let t = i; t < j; t++) labels[t] = to;
      if (undecided[l]) {
        const want = cand[l]!;
        let hits = 0;
        for (let t = i; t < j; t++) if (px[t] === want && blends[t] === NOT_BLEND) hits++;
        candCount[l]! += hits;
      }
      i = j;
    }
  }
  const palette = new Uint8Array(order.length * 3);
  const rgb: [number, number, number] = [0, 0, 0];
  let sampleLabels: Int32Array | null = null;
  order.forEach((j, m) => {
    if (inkPx[j]! > 0 && candCount[j]! >= 0.5 * inkPx[j]!) {
      const v = cand[j]!;
      // Little-endian RGBA packed in a Uint32.
      palette[m * 3] = v & 255; palette[m * 3 + 1] = (v >>> 8) & 255; palette[m * 3 + 2] = (v >>> 16) & 255;
    } else {
      if (samples && !sampleLabels) sampleLabels = labelSamples(samples, cl);
      const c = (samples && sampleLabels ? modeColour(samples, sampleLabels, j) : null) ?? cl.centroids.subarray(j * 3, j * 3 + 3);
      labToRgb(c[0]!, c[1]!, c[2]!, rgb);
      palette[m * 3] = rgb[0]; palette[m * 3 + 1] = rgb[1]; palette[m * 3 + 2] = rgb[2];
    }
  });
  return { width: w, height: h, labels, palette };
}

/** Label l's majority vote over m more ink pixels of colour v (m Boyer-Moore steps). */
function vote(cand: Uint32Array, votes: Float64Array, inkPx: Float64Array, l: number, v: number, m: number): void {
  inkPx[l]! += m;
  const c = votes[l]!;
  if (c === 0 || cand[l] === v) { cand[l] = v; votes[l] = c + m; } else if (m <= c) votes[l] = c - m; else { cand[l] = v; votes[l] = m - c; }
}

/** Nearest cluster of every sample (computed once for all inks). */
function labelSamples(samples: Samples, cl: Clusters): Int32Array {
  const out = new Int32Array(samples.count);
  const r2 = nearestRadii(cl.centroids, cl.k);
  let guess = -1;
  for (let i = 0; i < samples.count; i++) {
    guess = nearestFrom(cl.centroids, cl.k, r2, guess, samples.lab[i * 3]!, samples.lab[i * 3 + 1]!, samples.lab[i * 3 + 2]!);
    out[i] = guess;
  }
  return out;
}

/** Lab of the heaviest sample bucket of cluster j, when it holds >= 20 % of the cluster's weight. */
function modeColour(samples: Samples, sampleLabels: Int32Array, j: number): Float64Array | null {
  let best = -1, bestW = 0, total = 0;
  for (let i = 0; i < samples.count; i++) {
    if (sampleLabels[i] !== j) continue;
    const wt = samples.weight[i]!;
    total += wt;
    if (wt > bestW) { bestW = wt; best = i; }
  }
  if (best < 0 || bestW < 0.2 * total) return null;
  return samples.lab.subarray(best * 3, best * 3 + 3);
}
