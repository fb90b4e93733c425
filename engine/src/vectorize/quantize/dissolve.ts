// Edge-cluster dissolving: a cluster that has almost no interior pixels (it only lives along boundaries),
// covers little of the art, and whose colour lies near the segment between the two inks it sits between,
// is an anti-aliasing blend or JPEG ringing band, not an ink. Each of its pixels takes the closest-coloured
// real ink among its 8-neighbours (the nearest remaining ink when none touches it). A thin ink line between
// two other inks (e.g. a black outline between yellow and white) is far from that segment and stays.
import { TRANSPARENT } from '../types.js';
import { nearest, type Clusters } from './palette.js';
import type { LabImage } from './lab-image.js';

const MAX_INTERIOR = 0.15;
const MAX_SHARE = 0.03;

/**
 * Dissolve edge clusters in place; returns the number of clusters dissolved. `counts`: the pixels of each label in
 * `labels`, when known (saves a walk over the map).
 */
export function dissolveEdgeClusters(labels: Uint16Array, img: LabImage, w: number, h: number, cl: Clusters, counts?: Float64Array): number {
  const { index: ix, lab } = img;
  const k = cl.k;
  if (k < 3) return 0;
  const count = new Float64Array(k);
  const interior = new Float64Array(k);
  const adj = new Float64Array(k * k);
  let total = 0;
  // Only a cluster with at most MAX_SHARE of the traced pixels can dissolve: the pixels are counted (given, or a
  // walk by runs of one label), and the walk below looks around the pixels of those clusters only.
  if (counts) {
    count.set(counts);
    for (let j = 0; j < k; j++) total += counts[j]!;
  } else {
    for (let i = 0, n = w * h; i < n;) {
      const l = labels[i]!;
      let e = i + 1;
      while (e < n && labels[e] === l) e++;
      if (l !== TRANSPARENT) { count[l]! += e - i; total += e - i; }
      i = e;
    }
  }
  const small = new Uint8Array(k);
  let any = false;
  for (let j = 0; j < k; j++) if (count[j]! > 0 && count[j]! <= MAX_SHARE * total) { small[j] = 1; any = true; }
  if (!any) return 0;
  // A run's end pixels border another label or the image side, and its pixels are compared with the rows above and
  // below one by one.
  for (let y = 0; y < h; y++) {
    const row = y * w, rowEnd = row + w;
    const up = y > 0, down = y < h - 1;
    for (let s = row; s < rowEnd;) {
      const l = labels[s]!;
      let e = s + 1;
      while (e < rowEnd && labels[e] === l) e++;
      if (l === TRANSPARENT || !small[l]) { s = e; continue; }
      const base = l * k;
      if (s > row) { const v = labels[s - 1]!; if (v !== TRANSPARENT) adj[base + v]! += 1; }
      if (e < rowEnd) { const v = labels[e]!; if (v !== TRANSPARENT) adj[base + v]! += 1; }
      // Interior: not a run end (left and right neighbours are l) and the pixels above and below are l.
      let inside = 0;
      for (let i = s; i < e; i++) {
        let same = true;
        if (up) { const v = labels[i - w]!; if (v !== l) { same = false; if (v !== TRANSPARENT) adj[base + v]! += 1; } } else same = false;
        if (down) { const v = labels[i + w]!; if (v !== l) { same = false; if (v !== TRANSPARENT) adj[base + v]! += 1; } } else same = false;
        if (same && i !== s && i !== e - 1) inside++;
      }
      interior[l]! += inside;
      s = e;
    }
  }
  const c = cl.centroids;
  const dissolve = new Uint8Array(k);
  let nd = 0;
  for (let j = 0; j < k; j++) {
    if (!small[j] || interior[j]! > MAX_INTERIOR * count[j]!) continue;
    // The two inks it borders most.
    let a = -1, b = -1;
    for (let v = 0; v < k; v++) {
      if (v === j) continue;
      const s = adj[j * k + v]!;
      if (s <= 0) continue;
      if (a < 0 || s > adj[j * k + a]!) { b = a; a = v; } else if (b < 0 || s > adj[j * k + b]!) b = v;
    }
    if (a < 0) continue;
    const dist = b < 0 ? pointDist(c, j, a) : segmentDist(c, j, a, b);
    const span = b < 0 ? 0 : pointDist(c, a, b);
    if (dist < Math.max(12, 0.35 * span)) { dissolve[j] = 1; nd++; }
  }
  if (!nd) return 0;
  const keep: number[] = [];
  for (let j = 0; j < k; j++) if (!dissolve[j] && count[j]! > 0) keep.push(j);
  if (!keep.length) return 0;
  const kc = new Float64Array(keep.length * 3);
  keep.forEach((j, m) => { kc[m * 3] = c[j * 3]!; kc[m * 3 + 1] = c[j * 3 + 1]!; kc[m * 3 + 2] = c[j * 3 + 2]!; });
  // New labels are decided from the old map and written afterwards (few pixels: no copy of the whole map).
  const moved: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const l = labels[i]!;
      if (l === TRANSPARENT || !dissolve[l]) {
        // Skip the rest of the run in a tight scan.
        while (x + 1 < w && labels[y * w + x + 1] === l) x++;
        continue;
      }
      const e = ix[i]! * 3;
      const L = lab[e]!, A = lab[e + 1]!, B = lab[e + 2]!;
      let best = -1, bd = Infinity;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const v = labels[yy * w + xx]!;
          if (v === TRANSPARENT || dissolve[v]) continue;
          const d = (c[v * 3]! - L) ** 2 + (c[v * 3 + 1]! - A) ** 2 + (c[v * 3 + 2]! - B) ** 2;
          if (d < bd) { bd = d; best = v; }
        }
      }
      moved.push(i, best >= 0 ? best : keep[nearest(kc, keep.length, L, A, B)]!);
    }
  }
  for (let t = 0; t < moved.length; t += 2) labels[moved[t]!] = moved[t + 1]!;
  return nd;
}

function pointDist(c: Float64Array, p: number, q: number): number {
  return Math.hypot(c[p * 3]! - c[q * 3]!, c[p * 3 + 1]! - c[q * 3 + 1]!, c[p * 3 + 2]! - c[q * 3 + 2]!);
}

/** Distance from centroid p to the segment between centroids a and b. */
function segmentDist(c: Float64Array, p: number, a: number, b: number): number {
  const e0 = c[b * 3]! - c[a * 3]!, e1 = c[b * 3 + 1]! - c[a * 3 + 1]!, e2 = c[b * 3 + 2]! - c[a * 3 + 2]!;
  const v0 = c[p * 3]! - c[a * 3]!, v1 = c[p * 3 + 1]! - c[a * 3 + 1]!, v2 = c[p * 3 + 2]! - c[a * 3 + 2]!;
  const L2 = e0 * e0 + e1 * e1 + e2 * e2;
  let t = L2 > 0 ? (v0 * e0 + v1 * e1 + v2 * e2) / L2 : 0;
  if (t < 0) t = 0; else if (t > 1) t = 1;
  return Math.hypot(v0 - t * e0, v1 - t * e1, v2 - t * e2);
}
