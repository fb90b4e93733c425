// Options of the `fix` op (spec 4.2): user-facing field names exactly as POST /api/v1/fix sends them
// (text or typed values), resolved once into a frozen struct.
import { invalidOption } from '../errors.js';
import { asRecord, parseBool, parseInteger, parseNumber } from '../options/validate.js';

/** Fix options as a caller sends them (HTTP form fields, CLI flags or typed values). */
export interface FixOptions {
  /** `true` cuts semi-transparent edge pixels at alpha_threshold. Default false. */
  fix_alpha_threshold?: boolean | string;
  /** 0..255, default 144: alpha below -> transparent, at or above -> opaque. */
  alpha_threshold?: number | string;
  /** `true` converts semi-transparent pixels to halftone dots (wins over fix_alpha_threshold). Default false. */
  fix_halftone?: boolean | string;
  /** Halftone lines per inch, 15..65, default 35. */
  halftone_lpi?: number | string;
  /** Print width in inches (0.1..500); sets output DPI = width px / inches. Default: 300 DPI. */
  print_width_inches?: number | string;
  /** `true` crops fully transparent borders. Default false. */
  fix_trim?: boolean | string;
  /** `true` removes specks, pinholes and single-pixel colour noise. Default false. */
  fix_despeckle?: boolean | string;
  /** Output width in px (1..20000); aspect kept when height is not given. */
  resize_width_px?: number | string;
  /** Output height in px (1..20000); exact size when both are given. */
  resize_height_px?: number | string;
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
export function resolveFix(raw: unknown): Readonly<ResolvedFix> {
  const o = asRecord(raw);
  const out: ResolvedFix = {
    fix_alpha_threshold: parseBool('fix_alpha_threshold', o.fix_alpha_threshold, false),
    alpha_threshold: parseNumber('alpha_threshold', o.alpha_threshold, FIX_DEFAULTS.alpha_threshold, 0, 255),
    fix_halftone: parseBool('fix_halftone', o.fix_halftone, false),
    halftone_lpi: parseNumber('halftone_lpi', o.halftone_lpi, FIX_DEFAULTS.halftone_lpi, 15, 65),
    print_width_inches: parseNumber('print_width_inches', o.print_width_inches, undefined, PRINT_WIDTH_RANGE[0], PRINT_WIDTH_RANGE[1]),
    fix_trim: parseBool('fix_trim', o.fix_trim, false),
    fix_despeckle: parseBool('fix_despeckle', o.fix_despeckle, false),
    resize_width_px: parseInteger('resize_width_px', o.resize_width_px, undefined, 1, MAX_RESIZE_SIDE),
    resize_height_px: parseInteger('resize_height_px', o.resize_height_px, undefined, 1, MAX_RESIZE_SIDE),
  };
  if (out.resize_width_px && out.resize_height_px && out.resize_width_px * out.resize_height_px > MAX_RESIZE_PIXELS) {
    throw invalidOption('resize_height_px', `a size of at most ${MAX_RESIZE_PIXELS} pixels with resize_width_px ${out.resize_width_px}`, out.resize_height_px);
  }
  return Object.freeze(out);
}
