// Stage 0/6: is this "art on a separable background"? Decided from the border fit and the result of
// classification. A busy photo background fails at least one test: few border samples fit one smooth
// model, the fitting samples are noisy (texture), or the background found by the flood fill covers
// little of the border. The thresholds are documented in README "Background removal".
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
