// Stage 1: the background model, fitted to the image border.
// Border pixels are sampled in a thin ring; a single colour (robust mean) and a quadratic surface
// (least squares on x, y, x², xy, y² per channel, re-weighted by trimming outliers: iteratively
// re-fitted on the samples within a noise-scaled tolerance, like a trimmed IRLS / RANSAC refinement)
// are fitted in both sRGB and CIELAB. Art touching the border and JPEG noise are outliers the trimming
// ignores. The simpler model wins unless the surface explains the border clearly better.
import { rgbToLab, type Vec3 } from '../colour/convert.js';
import type { BackgroundModel } from './types.js';

const NC = 6; // coefficients per channel

interface Samples {
  n: number;
  /** 6 basis values per sample: 1, x, y, x², xy, y². */
  basis: Float64Array;
  rgb: Float64Array;
  lab: Float64Array;
}

/** Sample a ring of width `ring` along the border, at most ~`maxSamples` pixels (evenly strided). */
export function sampleBorder(data: Uint8ClampedArray, width: number, height: number, maxSamples = 4000): Samples {
  const ring = Math.max(1, Math.min(6, Math.round(Math.min(width, height) / 200)));
  const idx: number[] = [];
  const perimeter = 2 * (width + height) * ring;
  const stride = Math.max(1, Math.floor(perimeter / maxSamples));
  let k = 0;
  const push = (x: number, y: number): void => {
    if (k++ % stride === 0) idx.push(y * width + x);
  };
  const rw = Math.min(ring, height), rh = Math.min(ring, width);
  for (let r = 0; r < rw; r++) {
    for (let x = 0; x < width; x++) push(x, r);
    if (height - 1 - r > r) for (let x = 0; x < width; x++) push(x, height - 1 - r);
  }
  for (let r = 0; r < rh; r++) {
    for (let y = rw; y < height - rw; y++) push(r, y);
    if (width - 1 - r > r) for (let y = rw; y < height - rw; y++) push(width - 1 - r, y);
  }
  const n = idx.length;
  const basis = new Float64Array(n * NC);
  const rgb = new Float64Array(n * 3);
  const lab = new Float64Array(n * 3);
  const tmp: Vec3 = [0, 0, 0];
  const sx = width > 1 ? 2 / (width - 1) : 0, sy = height > 1 ? 2 / (height - 1) : 0;
  for (let s = 0; s < n; s++) {
    const i = idx[s]!;
    const x = (i % width) * sx - 1, y = Math.floor(i / width) * sy - 1;
    basisAt(x, y, basis, s * NC);
    const r = data[i * 4]!, g = data[i * 4 + 1]!, b = data[i * 4 + 2]!;
    rgb[s * 3] = r; rgb[s * 3 + 1] = g; rgb[s * 3 + 2] = b;
    rgbToLab(r, g, b, tmp);
    lab[s * 3] = tmp[0]; lab[s * 3 + 1] = tmp[1]; lab[s * 3 + 2] = tmp[2];
  }
  return { n, basis, rgb, lab };
}

function basisAt(x: number, y: number, out: Float64Array, o: number): void {
  out[o] = 1; out[o + 1] = x; out[o + 2] = y; out[o + 3] = x * x; out[o + 4] = x * y; out[o + 5] = y * y;
}

/** Evaluate channel c of a model (coefficients `coef`, 6 per channel) at normalised (x, y). */
export function evalModel(coef: Float64Array, c: number, x: number, y: number): number {
  const o = c * NC;
  return coef[o]! + coef[o + 1]! * x + coef[o + 2]! * y + coef[o + 3]! * x * x + coef[o + 4]! * x * y + coef[o + 5]! * y * y;
}

interface Fit {
  rgb: Float64Array;
  lab: Float64Array;
  inliers: Uint8Array;
  count: number;
  /** Median ΔE of the inliers. */
  medianDeltaE: number;
  medianRgb: number;
}

function median(values: Float64Array, n: number): number {
  if (n === 0) return 0;
  const a = values.slice(0, n).sort();
  return n % 2 ? a[(n - 1) >> 1]! : (a[n / 2 - 1]! + a[n / 2]!) / 2;
}

/** Least squares over inliers with `terms` basis functions (1 = constant, 6 = quadratic); returns coefficients for 3 channels. */
function solve(s: Samples, values: Float64Array, inliers: Uint8Array, terms: number): Float64Array {
  const coef = new Float64Array(3 * NC);
  const A = new Float64Array(terms * terms);
  const rhs = new Float64Array(terms * 3);
  for (let k = 0; k < s.n; k++) {
    if (!inliers[k]) continue;
    const o = k * NC;
    for (let p = 0; p < terms; p++) {
      const bp = s.basis[o + p]!;
      for (let q = 0; q < terms; q++) A[p * terms + q] += bp * s.basis[o + q]!;
      for (let c = 0; c < 3; c++) rhs[p * 3 + c] += bp * values[k * 3 + c]!;
    }
  }
  // Tikhonov term keeps the system solvable on thin or one-sided borders (pulls higher terms to 0).
  for (let p = 1; p < terms; p++) A[p * terms + p] += 1e-6 * (A[0] || 1);
  const sol = gauss(A, rhs, terms, 3);
  if (!sol) return coef;
  for (let c = 0; c < 3; c++) for (let p = 0; p < terms; p++) coef[c * NC + p] = sol[p * 3 + c]!;
  return coef;
}

/** Gaussian elimination with partial pivoting for `m` right-hand sides; null if singular. */
function gauss(A: Float64Array, B: Float64Array, n: number, m: number): Float64Array | null {
  const a = Float64Array.from(A), b = Float64Array.from(B);
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r * n + col]!) > Math.abs(a[piv * n + col]!)) piv = r;
    if (Math.abs(a[piv * n + col]!) < 1e-12) return null;
    if (piv !== col) {
      for (let q = 0; q < n; q++) { const t = a[col * n + q]!; a[col * n + q] = a[piv * n + q]!; a[piv * n + q] = t; }
      for (let q = 0; q < m; q++) { const t = b[col * m + q]!; b[col * m + q] = b[piv * m + q]!; b[piv * m + q] = t; }
    }
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r * n + col]! / a[col * n + col]!;
      if (f === 0) continue;
      for (let q = col; q < n; q++) a[r * n + q] -= f * a[col * n + q]!;
      for (let q = 0; q < m; q++) b[r * m + q] -= f * b[col * m + q]!;
    }
  }
  for (let r = 0; r < n; r++) for (let q = 0; q < m; q++) b[r * m + q] /= a[r * n + r]!;
  return b;
}

function residuals(s: Samples, fit: { rgb: Float64Array; lab: Float64Array }, outDe: Float64Array, outRgb: Float64Array): void {
  for (let k = 0; k < s.n; k++) {
    const o = k * NC;
    let de = 0, dr = 0;
    for (let c = 0; c < 3; c++) {
      let vl = 0, vr = 0;
      for (let p = 0; p < NC; p++) {
        vl += fit.lab[c * NC + p]! * s.basis[o + p]!;
        vr += fit.rgb[c * NC + p]! * s.basis[o + p]!;
      }
      const dl = s.lab[k * 3 + c]! - vl;
      de += dl * dl;
      dr = Math.max(dr, Math.abs(s.rgb[k * 3 + c]! - vr));
    }
    outDe[k] = Math.sqrt(de);
    outRgb[k] = dr;
  }
}

/** Trimmed iterative fit: start from `start` inliers, refit on samples within a noise-scaled tolerance. */
function trimmedFit(s: Samples, terms: number, start: Uint8Array): Fit {
  let inliers: Uint8Array = start;
  const de = new Float64Array(s.n), dr = new Float64Array(s.n), tmp = new Float64Array(s.n), tmpR = new Float64Array(s.n);
  let rgb: Float64Array = new Float64Array(3 * NC), lab: Float64Array = new Float64Array(3 * NC);
  let med = 0, medR = 0, count = 0;
  for (let iter = 0; iter < 3; iter++) {
    rgb = solve(s, s.rgb, inliers, terms);
    lab = solve(s, s.lab, inliers, terms);
    residuals(s, { rgb, lab }, de, dr);
    let m = 0;
    for (let k = 0; k < s.n; k++) if (inliers[k]) { tmp[m] = de[k]!; tmpR[m] = dr[k]!; m++; }
    med = median(tmp, m);
    medR = median(tmpR, m);
    const tol = Math.max(3, 4 * med);
    const next = new Uint8Array(s.n);
    count = 0;
    for (let k = 0; k < s.n; k++) if (de[k]! <= tol) { next[k] = 1; count++; }
    if (count === 0) break;
    inliers = next;
  }
  return { rgb, lab, inliers, count, medianDeltaE: med, medianRgb: medR };
}

/**
 * Fit the background model to the border of an RGBA image.
 * Returns the chosen model with its inlier share and noise, which later stages turn into tolerances.
 */
export function fitBackground(data: Uint8ClampedArray, width: number, height: number): BackgroundModel {
  const s = sampleBorder(data, width, height);
  // Start: distance to the per-channel median colour; generous so a gradient's far end still counts.
  const med = new Float64Array(3);
  const col = new Float64Array(s.n);
  for (let c = 0; c < 3; c++) {
    for (let k = 0; k < s.n; k++) col[k] = s.lab[k * 3 + c]!;
    med[c] = median(col, s.n);
  }
  const d0 = new Float64Array(s.n);
  for (let k = 0; k < s.n; k++) d0[k] = Math.hypot(s.lab[k * 3]! - med[0]!, s.lab[k * 3 + 1]! - med[1]!, s.lab[k * 3 + 2]! - med[2]!);
  const tol0 = Math.max(10, 3 * median(d0, s.n));
  const start = new Uint8Array(s.n);
  for (let k = 0; k < s.n; k++) if (d0[k]! <= tol0) start[k] = 1;

  const flat = trimmedFit(s, 1, start);
  const quad = trimmedFit(s, NC, flat.count > s.n * 0.2 ? mergeInliers(flat.inliers, start) : start);
  const fFlat = flat.count / Math.max(1, s.n), fQuad = quad.count / Math.max(1, s.n);
  const useQuad = fQuad > fFlat + 0.03 || (quad.medianDeltaE < 0.7 * flat.medianDeltaE && flat.medianDeltaE > 0.8);
  const fit = useQuad ? quad : flat;
  const model: BackgroundModel = {
    kind: useQuad ? 'quadratic' : 'constant',
    rgb: fit.rgb,
    lab: fit.lab,
    width,
    height,
    inlierFraction: fit.count / Math.max(1, s.n),
    noiseDeltaE: fit.medianDeltaE,
    noiseRgb: fit.medianRgb,
    spreadDeltaE: 0,
  };
  if (useQuad) {
    const c: Vec3 = [evalModel(fit.lab, 0, 0, 0), evalModel(fit.lab, 1, 0, 0), evalModel(fit.lab, 2, 0, 0)];
    let spread = 0;
    for (const [x, y] of [[-1, -1], [1, -1], [-1, 1], [1, 1]] as const) {
      spread = Math.max(spread, Math.hypot(evalModel(fit.lab, 0, x, y) - c[0], evalModel(fit.lab, 1, x, y) - c[1], evalModel(fit.lab, 2, x, y) - c[2]));
    }
    model.spreadDeltaE = spread;
  }
  return model;
}

function mergeInliers(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length);
  for (let k = 0; k < a.length; k++) out[k] = a[k]! | b[k]!;
  return out;
}

/** The model's sRGB colour at pixel (px, py), written into out. */
export function backgroundRgbAt(m: BackgroundModel, px: number, py: number, out: Float64Array | number[], o = 0): void {
  const x = m.width > 1 ? (px * 2) / (m.width - 1) - 1 : 0;
  const y = m.height > 1 ? (py * 2) / (m.height - 1) - 1 : 0;
  for (let c = 0; c < 3; c++) out[o + c] = Math.min(255, Math.max(0, evalModel(m.rgb, c, x, y)));
}
