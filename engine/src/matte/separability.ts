// Stage 0/6: is this "art on a separable background"? Decided from the border fit and the result of
// classification. A busy photo background fails at least one test: few border samples fit one smooth
// model, the fitting samples are noisy (texture), or the background found by the flood fill covers
// little of the border. The thresholds are documented in docs/algorithms/remove-bg.md.
import type { BackgroundModel } from './types.js';

export interface Separability {
  separable: boolean;
  /** Why not, in words (empty when separable). */
  reason: string;
}

/** Minimum share of border samples that must fit the background model. */
export const MIN_INLIER_FRACTION = 0.6;
/** Largest median ΔE of the fitting border samples (texture/noise). */
export const MAX_NOISE_DELTA_E = 4;
/** Minimum share of border pixels that must end up background. */
export const MIN_BORDER_BACKGROUND = 0.5;

/** Judge from the border fit alone (before classification). */
export function judgeBorder(m: BackgroundModel): Separability {
  if (m.inlierFraction < MIN_INLIER_FRACTION) {
    return { separable: false, reason: `only ${pct(m.inlierFraction)} of the border fits one background colour or smooth gradient` };
  }
  if (m.noiseDeltaE > MAX_NOISE_DELTA_E) {
    return { separable: false, reason: `the border is textured (median dE ${m.noiseDeltaE.toFixed(1)} from the fitted background)` };
  }
  return { separable: true, reason: '' };
}

/** Judge after classification: the flood fill must reach most of the border. */
export function judgeClassification(borderBackground: number): Separability {
  if (borderBackground < MIN_BORDER_BACKGROUND) {
    return { separable: false, reason: `only ${pct(borderBackground)} of the border was found to be background` };
  }
  return { separable: true, reason: '' };
}

function pct(v: number): string {
  return `${Math.round(v * 100)}%`;
}

/** Share of the pixels near the background (2 to 12 px from it) that lie on soft ramps, above which the
 * image is shaded (a photo, a product shot with a soft shadow or a highlight, a sky), not flat art. */
export const MAX_SOFT_FRACTION = 0.12;
/** ... and the ramps must cover at least this share of the image (a few soft pixels decide nothing). */
export const MIN_SOFT_AREA = 0.002;

export interface SoftTransitions {
  /** Soft-ramp pixels / pixels 2..12 px from the background. */
  fraction: number;
  /** Soft-ramp pixels / all pixels. */
  area: number;
  /** Share of the pixels 2-4 px from the background still within twice the match tolerance of it and on a gentle
   * steady slope (>= 0.08 ΔE/px): the cut runs along a tolerance line in a smooth field (a sky, a shadow), not
   * along an edge of the image (a pale flat plateau of art has no slope). */
  faint: number;
}

/**
 * Flat art meets its background with a step (1-2 px of anti-aliasing, then a plateau); a photo meets it with
 * ramps: soft shadows, shading rolling into a highlight of the backdrop's colour, clouds. On the ΔE-to-background
 * map (quarter units, blurred 5x5 against codec noise), a pixel lies on a ramp when the blurred map rises
 * by similar amounts (within 3x, each at least 0.35 ΔE per pixel) over three consecutive 4-px spans across it
 * (a blurred step rises in one span only) and the unblurred map rises at the pixel itself (a staircase of
 * flat layers does not). Counted over the non-background pixels 2 to 12 px (chessboard) from the background.
 */
export function softTransitions(dist0: Uint8Array, isBackground: (i: number) => boolean, width0: number, height0: number, bgDeltaE: number): SoftTransitions {
  // Ramps are judged at about 512 px (a shadow twice as wide in pixels is the same shadow): larger images are
  // box-averaged by an integer factor first; a cell is background when most of its pixels are.
  const f = Math.max(1, Math.round(Math.max(width0, height0) / 512));
  const width = Math.floor(width0 / f), height = Math.floor(height0 / f);
  const n = width * height;
  if (width < 16 || height < 16) return { fraction: 0, area: 0, faint: 0 };
  let dist = dist0;
  const bgCell = new Uint8Array(n);
  if (f === 1) {
    for (let i = 0; i < n; i++) bgCell[i] = isBackground(i) ? 1 : 0;
  } else {
    dist = new Uint8Array(n);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let s = 0, b = 0;
        for (let yy = y * f; yy < y * f + f; yy++) for (let xx = x * f; xx < x * f + f; xx++) { const j = yy * width0 + xx; s += dist0[j]!; if (isBackground(j)) b++; }
        dist[y * width + x] = Math.round(s / (f * f));
        bgCell[y * width + x] = 2 * b > f * f ? 1 : 0;
      }
    }
  }
  // Chessboard distance to the background, capped at 13.
  const CAP = 13;
  const d = new Uint8Array(n);
  for (let i = 0; i < n; i++) d[i] = bgCell[i] ? 0 : CAP;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!d[i]) continue;
      let m = d[i]!;
      if (x > 0) m = Math.min(m, d[i - 1]! + 1);
      if (y > 0) {
        m = Math.min(m, d[i - width]! + 1);
        if (x > 0) m = Math.min(m, d[i - width - 1]! + 1);
        if (x < width - 1) m = Math.min(m, d[i - width + 1]! + 1);
      }
      d[i] = m;
    }
  }
  for (let y = height - 1; y >= 0; y--) {
    for (let x = width - 1; x >= 0; x--) {
      const i = y * width + x;
      if (!d[i]) continue;
      let m = d[i]!;
      if (x < width - 1) m = Math.min(m, d[i + 1]! + 1);
      if (y < height - 1) {
        m = Math.min(m, d[i + width]! + 1);
        if (x < width - 1) m = Math.min(m, d[i + width + 1]! + 1);
        if (x > 0) m = Math.min(m, d[i + width - 1]! + 1);
      }
      d[i] = m;
    }
  }
  // 5x5 box blur of the distance map (separable, running sums).
  const tmp = new Float32Array(n), blur = new Float32Array(n);
  for (let y = 0; y < height; y++) {
    const o = y * width;
    for (let x = 0; x < width; x++) {
      let s = 0, c = 0;
      for (let k = Math.max(0, x - 2); k <= Math.min(width - 1, x + 2); k++) { s += dist[o + k]!; c++; }
      tmp[o + x] = s / c;
    }
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0, c = 0;
      for (let k = Math.max(0, y - 2); k <= Math.min(height - 1, y + 2); k++) { s += tmp[k * width + x]!; c++; }
      blur[y * width + x] = s / c;
    }
  }
  const MIN_STEP = 0.35 * 4 * 4; // 0.35 ΔE/px over 4 px, in quarter units
  const MIN_FAINT_STEP = 0.08 * 4 * 4;
  let ring = 0, soft = 0, near = 0, faint = 0;
  const faintLimit = 2 * bgDeltaE * 4;
  for (let y = 6; y < height - 6; y++) {
    for (let x = 6; x < width - 6; x++) {
      const i = y * width + x;
      const di = d[i]!;
      if (di < 2 || di > 12) continue;
      ring++;
      const gx = blur[i + 2]! - blur[i - 2]!, gy = blur[i + 2 * width]! - blur[i - 2 * width]!;
      const s = Math.abs(gx) >= Math.abs(gy) ? 1 : width;
      // Three consecutive 4-px rises of the blurred map, same sign, alike in size (within 3x).
      const i1 = blur[i - 2 * s]! - blur[i - 6 * s]!, i2 = blur[i + 2 * s]! - blur[i - 2 * s]!, i3 = blur[i + 6 * s]! - blur[i + 2 * s]!;
      const sg = Math.sign(i2);
      const a1 = i1 * sg, a2 = i2 * sg, a3 = i3 * sg;
      const lo = Math.min(a1, a2, a3);
      const steady = lo > 0 && Math.max(a1, a2, a3) <= 3 * lo;
      if (di <= 4) {
        near++;
        // Faint: still close to the background colour, on a gentle slope (a flat pale plateau is art).
        if (dist[i]! < faintLimit && steady && lo >= MIN_FAINT_STEP) faint++;
      }
      if (!steady || lo < MIN_STEP) continue;
      // The unblurred map rises at the pixel itself too (a staircase has flat treads and steep risers).
      const local = ((dist[i + s]! - dist[i - s]!) * sg) / 2;
      const slope = (a1 + a2 + a3) / 12;
      if (local >= 0.25 * slope && local <= 4 * slope) soft++;
    }
  }
  return { fraction: ring ? soft / ring : 0, area: soft / Math.max(1, n), faint: near ? faint / near : 0 };
}

/** Largest share of the pixels 2-4 px from the background that may be faint ramps (see SoftTransitions.faint). */
export const MAX_FAINT_FRACTION = 0.1;

/** Judge the soft transitions: shaded images go to the segmentation model, never to the artwork matte. */
export function judgeSoftness(s: SoftTransitions): Separability {
  if (s.fraction > MAX_SOFT_FRACTION && s.area >= MIN_SOFT_AREA) {
    return { separable: false, reason: `${pct(s.fraction)} of the edge around the background is a soft ramp (shading, soft shadow or highlight: a photo, not flat art)` };
  }
  if (s.faint > MAX_FAINT_FRACTION) {
    return { separable: false, reason: `${pct(s.faint)} of the cut would follow a colour tolerance line through smooth shading (a sky, a shadow), not an edge of the image` };
  }
  return { separable: true, reason: '' };
}
