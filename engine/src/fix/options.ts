// Options of the `fix` op (spec 4.2): user-facing field names exactly as POST /api/v1/fix sends them
// (text or typed values), resolved once into a frozen struct.
import { invalidOption } from '../errors.js';
import { parseBool, parseInteger, parseNumber, readOptions, type TextOptions } from '../options/validate.js';

/** Options of `fix` (the text forms of HTTP form fields and CLI flags go through `textOptions`). */
export interface FixOptions {
  /** `true` cuts semi-transparent edge pixels at alpha_threshold. Default false. */
  fix_alpha_threshold?: boolean;
  /** 0..255, default 144: alpha below -> transparent, at or above -> opaque. */
  alpha_threshold?: number;
  /** `true` converts semi-transparent pixels to halftone dots (wins over fix_alpha_threshold). Default false. */
  fix_halftone?: boolean;
  /** Halftone lines per inch, 15..65, default 35. */
  halftone_lpi?: number;
  /** Print width in inches (0.1..500); sets output DPI = width px / inches. Default: 300 DPI. */
  print_width_inches?: number;
  /** `true` crops fully transparent borders. Default false. */
  fix_trim?: boolean;
  /** `true` removes specks, pinholes and single-pixel colour noise. Default false. */
  fix_despeckle?: boolean;
  /** Output width in px (1..20000); aspect kept when height is not given. */
  resize_width_px?: number;
  /** Output height in px (1..20000); exact size when both are given. */
  resize_height_px?: number;
}

export interface ResolvedFix {
  fix_alpha_threshold: boolean;
  alpha_threshold: number;
  fix_halftone: boolean;
  halftone_lpi: number;
  print_width_inches: number | undefined;
  fix_trim: boolean;
  fix_despeckle: boolean;
  resize_width_px: number | undefined;
  resize_height_px: number | undefined;
}

export const FIX_DEFAULTS = Object.freeze({ alpha_threshold: 144, halftone_lpi: 35, dpi: 300 });
/** Largest side and largest pixel count of a resize target. */
export const MAX_RESIZE_SIDE = 20_000;
export const MAX_RESIZE_PIXELS = 100_000_000;
/** Allowed print widths, inches. */
export const PRINT_WIDTH_RANGE = Object.freeze([0.1, 500] as const);

/** Validate fix options; throws `invalid_option` naming the field. */
export function resolveFix(raw: FixOptions | TextOptions | undefined): Readonly<ResolvedFix> {
  const o = readOptions(raw);
  const out: ResolvedFix = {
    fix_alpha_threshold: parseBool(o, 'fix_alpha_threshold', false),
    alpha_threshold: parseNumber(o, 'alpha_threshold', FIX_DEFAULTS.alpha_threshold, 0, 255),
    fix_halftone: parseBool(o, 'fix_halftone', false),
    halftone_lpi: parseNumber(o, 'halftone_lpi', FIX_DEFAULTS.halftone_lpi, 15, 65),
    print_width_inches: parseNumber(o, 'print_width_inches', undefined, PRINT_WIDTH_RANGE[0], PRINT_WIDTH_RANGE[1]),
    fix_trim: parseBool(o, 'fix_trim', false),
    fix_despeckle: parseBool(o, 'fix_despeckle', false),
    resize_width_px: parseInteger(o, 'resize_width_px', undefined, 1, MAX_RESIZE_SIDE),
    resize_height_px: parseInteger(o, 'resize_height_px', undefined, 1, MAX_RESIZE_SIDE),
  };
  if (out.resize_width_px && out.resize_height_px && out.resize_width_px * out.resize_height_px > MAX_RESIZE_PIXELS) {
    throw invalidOption('resize_height_px', `a size of at most ${MAX_RESIZE_PIXELS} pixels with resize_width_px ${out.resize_width_px}`, out.resize_height_px);
  }
  return Object.freeze(out);
}
