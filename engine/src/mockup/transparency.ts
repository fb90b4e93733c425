// What the print shop's scan would say about the artwork's transparency, for the mockup's warnings, and
// the preview of the fix it recommends. DTF film cannot print partial transparency: semi-transparent
// glows, shadows and fades either become halftone dots (fix_halftone) or are cut (fix_alpha_threshold).
// The judgement is the scan's own (alpha stats, fringe test, recommend()), run on a copy of the artwork at
// most ANALYSIS_PX wide with the soft-rim width scaled back to the artwork's pixels. It is only run when
// the print-size design shows semi-transparency wider than anti-aliasing (a cheap pre-check), so crisp
// art costs nothing extra.
import { alphaStats } from '../alpha/stats.js';
import { detectFringe } from '../alpha/fringe.js';
import { thresholdAlpha } from '../alpha/threshold.js';
import { halftoneRaster } from '../halftone/screen.js';
import type { Raster } from '../raster/types.js';
import { RIM_AA_PX } from '../alpha/rim.js';
import { recommend } from '../scan/recommend.js';
import type { Recommendation } from '../scan/types.js';

/** Width of the copy the scan's judgement runs on. */
export const ANALYSIS_PX = 1024;

export interface TransparencyVerdict {
  recommended: Recommendation;
  /** The scan's plain-English reason. */
  reason: string;
  /** Soft rim in the artwork's own pixels. */
  soft_rim_px: number;
  /** Share of the visible pixels that are semi-transparent, percent. */
  semi_transparent_percent: number;
}

/**
 * Whether the design at print size has semi-transparency beyond anti-aliasing (soft rim wider than
 * RIM_AA_PX there, or semi-transparent pixels with no edge at all).
 */
export function looksSemiTransparent(sized: Raster): boolean {
  const s = alphaStats(sized);
  if (s.semi === 0) return false;
  return s.edgeLength === 0 || s.softRimPx > RIM_AA_PX;
}

/** The scan's transparency judgement of `r`, a copy of an artwork `artWidth` px wide. */
export function judgeTransparency(r: Raster, artWidth: number): TransparencyVerdict {
  const s = alphaStats(r);
  const scale = artWidth / r.width;
  const scaled = { ...s, softRimPx: s.softRimPx * scale };
  const fringe = s.semi > 0 ? detectFringe(r, s.plane, s.edgeSemi) : { edgePixels: 0, offPixels: 0, offShare: 0, matteSpread: 0, hasHalo: false, matte: null };
  const fix = recommend(scaled, fringe);
  const visible = Math.max(1, s.pixels - s.transparent);
  return { recommended: fix.recommended, reason: fix.reason, soft_rim_px: Math.round(scaled.softRimPx * 10) / 10, semi_transparent_percent: Math.round((1000 * s.semi) / visible) / 10 };
}

/** The fix a preview applies. */
export type PreviewFix = 'alpha_threshold' | 'halftone';

/** Resolution the fix is previewed at before the result is resampled to the mockup (a print's DPI). */
export const PREVIEW_DPI = 300;

/**
 * A copy of the design (`hi`, at `dpi` px per print inch, ideally PREVIEW_DPI) with the fix applied as
 * POST /fix applies it at that resolution: the alpha threshold, or halftone dots at `lpi`. The caller
 * resamples it to the mockup's size, so dots average to the tone the eye sees at that scale instead of
 * being drawn with cells a few screen pixels wide.
 */
export function previewFixed(hi: Raster, fix: PreviewFix, opts: { alpha_threshold: number; halftone_lpi: number; dpi: number }): Raster {
  const copy: Raster = { width: hi.width, height: hi.height, data: new Uint8ClampedArray(hi.data) };
  if (fix === 'halftone') halftoneRaster(copy, { lpi: opts.halftone_lpi, dpi: opts.dpi });
  else thresholdAlpha(copy, opts.alpha_threshold);
  return copy;
}
