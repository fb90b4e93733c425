// The fix pipeline, in the order that lets each step see what the next one needs:
//   despeckle -> alpha threshold (+ decontamination) -> trim -> resize -> halftone -> trim again
// Despeckle first, so specks never widen the trim box; the threshold before trim, so trim sees the final
// alpha (pixels the threshold removes do not count); halftone after the resize, at the final resolution
// (trim before it ignores alpha that carries no ink, and trims once more after it when no resize fixed
// the output size). When both fix_halftone and fix_alpha_threshold are asked for, halftone wins.
// Resolution: print_width_inches is the print width of the uploaded image, as in scan, so the input is
// `width / print_width_inches` DPI; trim keeps that DPI (the art keeps its printed size) and a resize
// scales it. Without a print width the output is 300 DPI.
import { invalidOption } from '../errors.js';
import { thresholdAlpha } from '../alpha/threshold.js';
import { halftoneRaster, MIN_DOT_ALPHA, type HalftoneWarning } from '../halftone/screen.js';
import { resizeDimensions, resizeRaster } from '../raster/resize.js';
import { cropRaster, opaqueBounds } from '../raster/trim.js';
import type { Raster } from '../raster/types.js';
import { despeckle } from './despeckle.js';
import { FIX_DEFAULTS, type ResolvedFix } from './options.js';
import { MAX_RESIZE_PIXELS, MAX_RESIZE_SIDE } from '../print/resolution.js';

/** Steps that ran, in order. */
export type FixStep = 'despeckle' | 'alpha_threshold' | 'trim' | 'resize' | 'halftone';

/** Something about the output the caller should know (stable code + one sentence). */
export type FixWarning = HalftoneWarning;

/** What the steps of `fix` did; a step that did not run leaves its fields out. */
export interface FixStats {
  /** despeckle: specks removed, pinholes filled, colour specks fixed. */
  specksRemoved?: number;
  pinholesFilled?: number;
  colourSpecksFixed?: number;
  /** alpha_threshold: pixels made fully transparent, semi-transparent pixels made opaque, kept pixels recoloured by decontamination. */
  alphaRemoved?: number;
  alphaKept?: number;
  alphaRecoloured?: number;
  /** halftone: cell size in px, screen ruling (lpi) and angle, pixels converted, dots drawn, smallest dot in px. */
  halftoneCellPx?: number;
  halftoneLpi?: number;
  halftoneAngle?: number;
  halftonePixels?: number;
  halftoneDots?: number;
  halftoneMinDotPx?: number;
  /** trim: px cut from the left and from the top. */
  trimX?: number;
  trimY?: number;
}

export interface FixOutcome {
  raster: Raster;
  /** DPI of the output (written into the PNG). */
  dpi: number;
  applied: FixStep[];
  /** What each step did (counts, boxes, sizes). */
  stats: FixStats;
  warnings: FixWarning[];
}

/**
 * Run the fix steps on a raster (modified in place where possible). `progress` hears each step as it starts.
 * @example const { raster, dpi } = await fixRaster(r, resolveFix({ fixHalftone: true }));
 */
export async function fixRaster(input: Raster, o: Readonly<ResolvedFix>, progress: (step: FixStep) => void = () => {}): Promise<FixOutcome> {
  let r = input;
  const applied: FixStep[] = [];
  const stats: FixStats = {};
  const warnings: FixWarning[] = [];
  // resolution of the pixels as they are now (input: from the print width; kept by trim, scaled by resize)
  let dpi = o.printWidthInches ? r.width / o.printWidthInches : FIX_DEFAULTS.dpi;
  if (o.fixDespeckle) {
    progress('despeckle');
    const d = despeckle(r, dpi);
    stats.specksRemoved = d.specksRemoved;
    stats.pinholesFilled = d.pinholesFilled;
    stats.colourSpecksFixed = d.colourSpecksFixed;
    applied.push('despeckle');
  }
  if (o.fixAlphaThreshold && !o.fixHalftone) {
    progress('alpha_threshold');
    const t = thresholdAlpha(r, o.alphaThreshold);
    stats.alphaRemoved = t.removed;
    stats.alphaKept = t.kept;
    stats.alphaRecoloured = t.recoloured;
    applied.push('alpha_threshold');
  }
  let trimX = 0;
  let trimY = 0;
  const trim = (minAlpha: number): void => {
    const b = opaqueBounds(r, minAlpha);
    if (!b || (b.width === r.width && b.height === r.height)) return;
    r = cropRaster(r, b);
    trimX += b.x;
    trimY += b.y;
  };
  if (o.fixTrim) {
    progress('trim');
    // with halftone, alpha below MIN_DOT_ALPHA will carry no ink
    trim(o.fixHalftone ? MIN_DOT_ALPHA : 1);
    applied.push('trim');
  }
  const resized = !!(o.resizeWidthPx || o.resizeHeightPx);
  if (resized) {
    const size = resizeDimensions(r.width, r.height, { width: o.resizeWidthPx, height: o.resizeHeightPx });
    if (size.width * size.height > MAX_RESIZE_PIXELS || size.width > MAX_RESIZE_SIDE || size.height > MAX_RESIZE_SIDE) {
      const [field, value] = o.resizeWidthPx ? ['resize_width_px', o.resizeWidthPx] : ['resize_height_px', o.resizeHeightPx];
      throw invalidOption(field, `a size that keeps the output within ${MAX_RESIZE_SIDE} px per side and ${MAX_RESIZE_PIXELS} pixels (would be ${size.width}x${size.height})`, value);
    }
    progress('resize');
    if (o.printWidthInches) dpi *= size.width / r.width;
    r = await resizeRaster(r, size);
    applied.push('resize');
  }
  if (!o.printWidthInches) dpi = FIX_DEFAULTS.dpi;
  if (o.fixHalftone) {
    progress('halftone');
    const h = halftoneRaster(r, { lpi: o.halftoneLpi, dpi });
    stats.halftoneCellPx = Math.round(h.cellPx * 1000) / 1000;
    stats.halftoneLpi = Math.round(h.lpi * 100) / 100;
    stats.halftoneAngle = h.angle;
    stats.halftonePixels = h.converted;
    stats.halftoneDots = h.dots;
    stats.halftoneMinDotPx = h.minDotPx;
    warnings.push(...h.warnings);
    applied.push('halftone');
    // dots dropped at the border may leave a transparent margin; the size is free unless resized
    if (o.fixTrim && !resized) trim(1);
  }
  if (o.fixTrim) {
    stats.trimX = trimX;
    stats.trimY = trimY;
  }
  return { raster: r, dpi, applied, stats, warnings };
}
