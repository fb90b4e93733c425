// The fix pipeline in its documented order: despeckle -> trim -> resize -> alpha threshold or halftone
// (halftone wins when both are asked for; dots are made after the resize, at the final resolution).
// The output DPI is width px / print_width_inches, or 300 when no print width is given.
import { invalidOption } from '../errors.js';
import { thresholdAlpha } from '../alpha/threshold.js';
import { halftoneDpi, halftoneRaster } from '../halftone/screen.js';
import { resizeDimensions, resizeRaster } from '../raster/resize.js';
import { trimTransparent } from '../raster/trim.js';
import type { Raster } from '../raster/types.js';
import { despeckle } from './despeckle.js';
import { MAX_RESIZE_PIXELS, MAX_RESIZE_SIDE, type ResolvedFix } from './options.js';

/** Steps that ran, in order. */
export type FixStep = 'despeckle' | 'trim' | 'resize' | 'alpha_threshold' | 'halftone';

export interface FixOutcome {
  raster: Raster;
  /** DPI of the output (written into the PNG). */
  dpi: number;
  applied: FixStep[];
  /** What each step did (counts, boxes, sizes). */
  stats: Record<string, number>;
}

/**
 * Run the fix steps on a raster (modified in place where possible). `progress` hears each step as it starts.
 * @example const { raster, dpi } = await fixRaster(r, resolveFix({ fix_halftone: 'true' }));
 */
export async function fixRaster(input: Raster, o: Readonly<ResolvedFix>, progress: (step: FixStep) => void = () => {}): Promise<FixOutcome> {
  let r = input;
  const applied: FixStep[] = [];
  const stats: Record<string, number> = {};
  // Despeckle judges speck size at the print resolution of the input.
  if (o.fix_despeckle) {
    progress('despeckle');
    const d = despeckle(r, halftoneDpi(r.width, o.print_width_inches));
    stats.specks_removed = d.specksRemoved;
    stats.pinholes_filled = d.pinholesFilled;
    stats.colour_specks_fixed = d.colourSpecksFixed;
    applied.push('despeckle');
  }
  if (o.fix_trim) {
    progress('trim');
    const t = trimTransparent(r);
    r = t.raster;
    stats.trim_x = t.box.x;
    stats.trim_y = t.box.y;
    applied.push('trim');
  }
  if (o.resize_width_px || o.resize_height_px) {
    const size = resizeDimensions(r.width, r.height, { width: o.resize_width_px, height: o.resize_height_px });
    if (size.width * size.height > MAX_RESIZE_PIXELS || size.width > MAX_RESIZE_SIDE || size.height > MAX_RESIZE_SIDE) {
      const field = o.resize_width_px ? 'resize_width_px' : 'resize_height_px';
      throw invalidOption(field, `a size that keeps the output within ${MAX_RESIZE_SIDE} px per side and ${MAX_RESIZE_PIXELS} pixels (would be ${size.width}x${size.height})`, o[field]);
    }
    progress('resize');
    r = await resizeRaster(r, size);
    applied.push('resize');
  }
  const dpi = halftoneDpi(r.width, o.print_width_inches);
  if (o.fix_halftone) {
    progress('halftone');
    const h = halftoneRaster(r, { lpi: o.halftone_lpi, dpi });
    stats.halftone_cell_px = Math.round(h.cellPx * 1000) / 1000;
    stats.halftone_angle = h.angle;
    stats.halftone_pixels = h.converted;
    applied.push('halftone');
  } else if (o.fix_alpha_threshold) {
    progress('alpha_threshold');
    const t = thresholdAlpha(r, o.alpha_threshold);
    stats.alpha_removed = t.removed;
    stats.alpha_kept = t.kept;
    stats.alpha_recoloured = t.recoloured;
    applied.push('alpha_threshold');
  }
  return { raster: r, dpi, applied, stats };
}
