// Options of the `underbase` op, declared once: the table below is the resolver, the typed options, the
// POST /api/v1/underbase form fields, the `inkprep underbase` flags and the docs' option table.
// Defaults and where they come from are in docs/algorithms/underbase.md.
import { invalidOption } from '../errors.js';
import { bool, custom, integer, number, oneOf, text } from '../options/fields.js';
import { defineOptions, type LibOptions, type WireOptions } from '../options/table.js';
import { PRINT_WIDTH_RANGE } from '../print/resolution.js';
import { findColor, findOwnStyle, defaultColor, type SupplierGarment } from '../garments/specs.js';

export const UNDERBASE_DEFAULTS = Object.freeze({
  /** 0.1 mm: about one pixel at 300 DPI, the choke RIPs start from for DTF white (one to two pixels). */
  chokeMm: 0.1,
  /** CIEDE2000 distance within which an art colour counts as the garment's (or black) and is knocked out. */
  knockoutTolerance: 10,
  alphaThreshold: 144,
  halftoneLpi: 35,
  spotName: 'White',
  /** Resolution when no print width is given, as fix. */
  dpi: 300,
});

/**
 * The garment: its hex colour, or a catalog style and its colour (shared with gangsheet's white layer, whose
 * white is resolved by this table, so both endpoints take the same shirt with the same rules and errors).
 */
export const UNDERBASE_GARMENT_FIELDS = [
  text('garment_color', 'garmentColor', 'garment colour as hex (`#1b1b1d`): what knockout=garment knocks out'),
  text('style', 'style', 'catalog style key (own or supplier) whose `color` is the garment, as mockup takes them (instead of garment_color)'),
  text('color', 'color', 'colour id or name of `style`; default black, else the style\'s first colour'),
  // A supplier style resolved by the adapter's catalog (library only, never a form field or flag).
  custom<SupplierGarment, unknown>()('supplier_style', 'supplierStyle', { spec: { kind: 'text' }, text: 'object', read: (o, w) => o.get(w) },
    'a supplier style resolved by the catalog (required when `style` is not an own style)', { surfaces: [] }),
] as const;

/**
 * How the plates are made from the art, whatever the print size: the fields gangsheet's white layer shares
 * (its items carry their own print sizes, its answer its own format).
 */
export const UNDERBASE_PLATE_FIELDS = [
  number('choke_mm', 'chokeMm', { min: 0, max: 2, default: UNDERBASE_DEFAULTS.chokeMm },
    'how far the white stops short of the colour\'s edge, in millimetres; never applied where the art is white ink alone'),
  oneOf('knockout', 'knockout', ['none', 'black', 'garment'] as const, undefined,
    '`garment`: art within `knockout_tolerance` of the garment colour gets no ink (the shirt shows through); `black`: the same for black; default `garment` when a garment colour is given, else `none`',
    { defaultVaries: true, usualDefault: 'none' }),
  number('knockout_tolerance', 'knockoutTolerance', { min: 0, max: 50, default: UNDERBASE_DEFAULTS.knockoutTolerance },
    'CIEDE2000 colour difference within which an art pixel is knocked out'),
  integer('white_density', 'whiteDensity', { min: 0, max: 100, default: 100 }, 'white ink under colour, percent'),
  integer('highlight_white', 'highlightWhite', { min: 0, max: 100, default: 0 },
    'raises the white under light colours toward 100 % by this share (only where white_density is below 100)'),
  text('spot_name', 'spotName', 'name of the white separation in the PDF (RIPs differ: `White`, `W1`, `Spot_White`); default `White`'),
  bool('fix_alpha_threshold', 'fixAlphaThreshold', false, '`true` cuts semi-transparent pixels first, as POST /fix'),
  number('alpha_threshold', 'alphaThreshold', { min: 0, max: 255, default: UNDERBASE_DEFAULTS.alphaThreshold }, 'with fix_alpha_threshold, as POST /fix'),
  bool('fix_halftone', 'fixHalftone', false, '`true` turns soft fades into opaque halftone dots first, as POST /fix (wins over fix_alpha_threshold)'),
  number('halftone_lpi', 'halftoneLpi', { min: 15, max: 65, default: UNDERBASE_DEFAULTS.halftoneLpi }, 'with fix_halftone, as POST /fix'),
] as const;

const FIELDS = [
  number('print_width_inches', 'printWidthInches', { min: PRINT_WIDTH_RANGE[0], max: PRINT_WIDTH_RANGE[1] },
    'print width of the artwork in inches; sets the resolution the millimetre and point rules are measured at; omitted: 300 DPI artwork'),
  ...UNDERBASE_GARMENT_FIELDS,
  ...UNDERBASE_PLATE_FIELDS,
  oneOf('format', 'format', ['pdf', 'png', 'json'] as const, 'pdf',
    '`pdf`: the print-size page with the colour image and the white as a spot colour; `png`: the white plate as grey; `json`: both plates in base64 and the numbers'),
] as const;

/** A garment colour as 8-bit sRGB, with where it came from (for the answer). */
export interface GarmentColour {
  rgb: readonly [number, number, number];
  hex: string;
  /** `style:color` when it came from the catalog. */
  source?: string;
}

/** Resolved `underbase` options (library names). */
export interface ResolvedUnderbase {
  printWidthInches: number | undefined;
  garment: GarmentColour | undefined;
  chokeMm: number;
  knockout: 'none' | 'black' | 'garment';
  knockoutTolerance: number;
  whiteDensity: number;
  highlightWhite: number;
  spotName: string;
  fixAlphaThreshold: boolean;
  alphaThreshold: number;
  fixHalftone: boolean;
  halftoneLpi: number;
  format: 'pdf' | 'png' | 'json';
}

const HEX = /^#?([0-9a-f]{6})$/i;

function parseHex(field: string, value: string): GarmentColour {
  const m = HEX.exec(value.trim());
  if (!m) throw invalidOption(field, 'a hex colour such as #1b1b1d', value);
  const n = parseInt(m[1]!, 16);
  const rgb = [(n >> 16) & 255, (n >> 8) & 255, n & 255] as const;
  return { rgb, hex: `#${m[1]!.toLowerCase()}` };
}

function isSupplierStyle(s: unknown): s is SupplierGarment {
  return !!s && typeof s === 'object' && Array.isArray((s as SupplierGarment).colors);
}

/** The `underbase` option table; its resolver throws `invalid_option` naming the field. */
export const UNDERBASE_OPTIONS = defineOptions(FIELDS, ({ field }): ResolvedUnderbase => {
  const hex = field('garmentColor');
  const style = field('style');
  const colour = field('color');
  let garment: GarmentColour | undefined;
  if (hex !== undefined && style !== undefined) throw invalidOption('garment_color', 'either garment_color or style (with color), not both', hex);
  if (hex !== undefined) garment = parseHex('garment_color', hex);
  else if (style !== undefined) {
    const supplier = field('supplierStyle');
    const colors = findOwnStyle(style)?.colors ?? (isSupplierStyle(supplier) ? supplier.colors : undefined);
    if (!colors) throw invalidOption('style', 'a style key from GET /api/v1/garments', style);
    const c = colour !== undefined ? findColor(colors, colour) : (findColor(colors, 'black') ?? defaultColor(colors));
    if (!c) throw invalidOption('color', `a colour of ${style} (${colors.map((k) => k.id).join(', ')})`, colour);
    garment = { ...parseHex('color', c.hex), source: `${style}:${c.id}` };
  } else if (colour !== undefined) {
    throw invalidOption('color', 'a style to take the colour from (or garment_color)', colour);
  }
  const knockout = field('knockout') ?? (garment ? 'garment' : 'none');
  if (knockout === 'garment' && !garment) throw invalidOption('knockout', 'garment_color or style when knockout is garment', knockout);
  const spotName = field('spotName') ?? UNDERBASE_DEFAULTS.spotName;
  // a PDF name of printable ASCII (RIPs match the separation by this name)
  if (!/^[\x21-\x7e]{1,63}$/.test(spotName) || /[()<>[\]{}/%#]/.test(spotName)) {
    throw invalidOption('spot_name', '1-63 printable ASCII characters without spaces or ()<>[]{}/%#', spotName);
  }
  return {
    printWidthInches: field('printWidthInches'),
    garment,
    chokeMm: field('chokeMm'),
    knockout,
    knockoutTolerance: field('knockoutTolerance'),
    whiteDensity: field('whiteDensity'),
    highlightWhite: field('highlightWhite'),
    spotName,
    fixAlphaThreshold: field('fixAlphaThreshold'),
    alphaThreshold: field('alphaThreshold'),
    fixHalftone: field('fixHalftone'),
    halftoneLpi: field('halftoneLpi'),
    format: field('format'),
  };
});

/** Options of `underbase` (camelCase; snake_case wire names accepted as for the other ops). */
export type UnderbaseOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;

/** Validate underbase options; throws `invalid_option` naming the field. */
export const resolveUnderbase = UNDERBASE_OPTIONS.resolve;

