// Options of the `fix` op (spec 4.2), declared once: the table below is the resolver, the typed options,
// the POST /api/v1/fix form fields, the `inkprep fix` flags and the docs' option table.
import { invalidOption } from '../errors.js';
import { bool, integer, number } from '../options/fields.js';
import { defineOptions, type FieldValues, type LibOptions, type WireOptions } from '../options/table.js';
import { IDEAL_DPI, MAX_RESIZE_PIXELS, MAX_RESIZE_SIDE, PRINT_WIDTH_RANGE } from '../print/resolution.js';

export const FIX_DEFAULTS = Object.freeze({ alpha_threshold: 144, halftone_lpi: 35, dpi: IDEAL_DPI });

const FIELDS = [
  bool('fix_alpha_threshold', 'fixAlphaThreshold', false, '`true` cuts semi-transparent edge fringe'),
  number('alpha_threshold', 'alphaThreshold', { min: 0, max: 255, default: FIX_DEFAULTS.alpha_threshold }, 'lower is more aggressive'),
  bool('fix_halftone', 'fixHalftone', false, '`true` converts soft fades and glows to fully opaque halftone dots (wins over fix_alpha_threshold); dots are made after any resize'),
  number('halftone_lpi', 'halftoneLpi', { min: 15, max: 65, default: FIX_DEFAULTS.halftone_lpi }, 'dot frequency in lines per inch; lower means bigger dots'),
  number('print_width_inches', 'printWidthInches', { min: PRINT_WIDTH_RANGE[0], max: PRINT_WIDTH_RANGE[1] }, 'target print width in inches; sizes halftone dots for the physical print; omitted: 300 DPI artwork'),
  bool('fix_trim', 'fixTrim', false, '`true` trims transparent border pixels'),
  bool('fix_despeckle', 'fixDespeckle', false, '`true` removes isolated noise pixels'),
  integer('resize_width_px', 'resizeWidthPx', { min: 1, max: MAX_RESIZE_SIDE }, 'output width in pixels; keeps aspect ratio'),
  integer('resize_height_px', 'resizeHeightPx', { min: 1, max: MAX_RESIZE_SIDE }, 'output height in pixels; with both, exact dimensions'),
] as const;

/** Resolved `fix` options (library names). */
export type ResolvedFix = FieldValues<typeof FIELDS>;

/** The `fix` option table; its resolver throws `invalid_option` naming the field. */
export const FIX_OPTIONS = defineOptions(FIELDS, ({ field }): ResolvedFix => {
  const out = {} as Record<string, unknown>;
  for (const f of FIELDS) out[f.lib] = field(f.lib);
  const o = out as ResolvedFix;
  if (o.resizeWidthPx && o.resizeHeightPx && o.resizeWidthPx * o.resizeHeightPx > MAX_RESIZE_PIXELS) {
    throw invalidOption('resize_height_px', `a size of at most ${MAX_RESIZE_PIXELS} pixels with resize_width_px ${o.resizeWidthPx}`, o.resizeHeightPx);
  }
  return o;
});

/** Options of `fix` (camelCase; the contract's snake_case names are accepted during the transition). */
export type FixOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;

/** Validate fix options; throws `invalid_option` naming the field. */
export const resolveFix = FIX_OPTIONS.resolve;
