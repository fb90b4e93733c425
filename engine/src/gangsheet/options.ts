// Options of the `gangsheet` op, declared once: the table below is the resolver, the typed options, the
// POST /api/v1/gangsheet form fields, the `inkprep gangsheet` flags and the docs' option table.
// Defaults and where they come from: docs/algorithms/gangsheet.md.
import { invalidOption } from '../errors.js';
import { bool, custom, integer, number, oneOf } from '../options/fields.js';
import { readItemList } from '../options/item-list.js';
import { defineOptions, type LibOptions, type WireOptions } from '../options/table.js';
import { textOptions, type OptionReader } from '../options/validate.js';
import { UNDERBASE_GARMENT_FIELDS, UNDERBASE_OPTIONS, UNDERBASE_PLATE_FIELDS, type ResolvedUnderbase } from '../underbase/options.js';

/** How a design may be turned on the film: `any` here means the four right-angle turns 0/90/180/270. */
export type GangRotation = 'none' | '90' | 'any';

/** One line of the order: which design file, how many copies, and its print size (width or height). */
export interface GangItem {
  /** Index of the design file (the order of the `design` file parts; `packDesigns` order in the library). */
  design: number;
  quantity: number;
  /** Print width in inches (give this or heightIn). */
  widthIn?: number;
  /** Print height in inches (give this or widthIn). */
  heightIn?: number;
  /** This item's own rotation allowance (default: the sheet's `rotation`). */
  rotation?: GangRotation;
}

/** An item as typed callers give it: the library's camelCase names or the JSON's snake_case ones. */
export interface GangItemInput {
  design: number;
  /** Default 1. */
  quantity?: number;
  widthIn?: number;
  heightIn?: number;
  width_in?: number;
  height_in?: number;
  rotation?: GangRotation;
}

/** Caps on one gang-sheet request. */
export const GANGSHEET_LIMITS = Object.freeze({
  /** Design files one request may carry. */
  maxDesigns: 50,
  /** Copies over all items: a 22 x 200 in sheet of 1 in designs is about this many; more is a second order. */
  maxCopies: 500,
  /** Print sizes accepted for one design, inches. */
  minSizeIn: 0.25,
  maxSizeIn: 60,
});

/** Defaults of the sheet options (the option table states them). */
export const GANGSHEET_DEFAULTS = Object.freeze({
  sheetWidthIn: 22,
  maxLengthIn: 200,
  /**
   * 1/8 in between designs: the gap DTF gang-sheet builders and film suppliers ask for so each transfer can be
   * cut out with scissors or a trimmer without nicking its neighbour (docs/algorithms/gangsheet.md#spacing).
   */
  spacingIn: 0.125,
  marginIn: 0.25,
  rotation: 'any' as GangRotation,
  timeBudgetMs: 5000,
});

const ROTATIONS = ['none', '90', 'any'] as const;

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Parse and check the item list (JSON text on HTTP/CLI, an array in the library); errors name `items[i].field`. */
function readItems(o: OptionReader, wire: string): GangItem[] {
  let copies = 0;
  const fields = { design: 'design', quantity: 'quantity', width_in: 'widthIn', height_in: 'heightIn', rotation: 'rotation' };
  const expected = 'a list of items [{ "design": 0, "quantity": 1, "width_in": 3 }]';
  return readItemList(o, wire, { expected, item: 'an object { design, quantity, width_in | height_in }', fields, libNames: 'always' }, (r, at): GangItem => {
    const design = r.design;
    if (typeof design !== 'number' || !Number.isInteger(design) || design < 0 || design >= GANGSHEET_LIMITS.maxDesigns) {
      throw invalidOption(`${at}.design`, `a design file index 0-${GANGSHEET_LIMITS.maxDesigns - 1}`, design);
    }
    const quantity = r.quantity ?? 1;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1) throw invalidOption(`${at}.quantity`, 'an integer >= 1', quantity);
    copies += quantity;
    if (copies > GANGSHEET_LIMITS.maxCopies) {
      throw invalidOption(`${at}.quantity`, `at most ${GANGSHEET_LIMITS.maxCopies} copies over all items (this item brings the total to ${copies})`, quantity);
    }
    const w = r.width_in ?? r.widthIn;
    const h = r.height_in ?? r.heightIn;
    if ((w === undefined) === (h === undefined)) throw invalidOption(`${at}.width_in`, 'exactly one of width_in and height_in', w ?? h ?? 'neither');
    const sizeField = w !== undefined ? 'width_in' : 'height_in';
    const size = num(w ?? h);
    const { minSizeIn, maxSizeIn } = GANGSHEET_LIMITS;
    if (size === undefined || size < minSizeIn || size > maxSizeIn) throw invalidOption(`${at}.${sizeField}`, `inches ${minSizeIn}-${maxSizeIn}`, w ?? h);
    const rotation = r.rotation;
    if (rotation !== undefined && !ROTATIONS.includes(rotation as GangRotation)) throw invalidOption(`${at}.rotation`, ROTATIONS.join(', '), rotation);
    return {
      design, quantity,
      ...(w !== undefined ? { widthIn: size } : { heightIn: size }),
      ...(rotation !== undefined ? { rotation: rotation as GangRotation } : {}),
    };
  });
}

const FIELDS = [
  custom<readonly GangItemInput[], GangItem[]>()('items', 'items', { spec: { kind: 'text' }, text: 'JSON', read: readItems },
    'the order as JSON: `[{"design": 0, "quantity": 10, "width_in": 3}, ...]`; `design` is the index of the design file, `height_in` may replace `width_in`, `rotation` (none|90|any) overrides the sheet\'s'),
  number('sheet_width_in', 'sheetWidthIn', { min: 11, max: 60, default: GANGSHEET_DEFAULTS.sheetWidthIn }, 'film roll width in inches (DTF rolls: 11, 13, 22, 24, 30 ...)'),
  number('max_length_in', 'maxLengthIn', { min: 1, max: 1200, default: GANGSHEET_DEFAULTS.maxLengthIn }, 'longest sheet in inches; a longer job is split into several sheets'),
  number('spacing_in', 'spacingIn', { min: 0, max: 2, default: GANGSHEET_DEFAULTS.spacingIn }, 'least gap between two designs\' ink, inches (1/8 in: room to cut them apart)'),
  number('margin_in', 'marginIn', { min: 0, max: 3, default: GANGSHEET_DEFAULTS.marginIn }, 'least gap between ink and the sheet\'s edges, inches'),
  oneOf('rotation', 'rotation', ROTATIONS, GANGSHEET_DEFAULTS.rotation,
    'turns allowed when nesting: `none`, `90` (0 or 90 degrees), `any` (0, 90, 180 or 270 degrees; no free angles)'),
  oneOf('format', 'format', ['pdf', 'png', 'json'] as const, 'pdf',
    '`pdf`: one page per sheet at its exact size, each design embedded once; `png`: the first sheet at the art\'s resolution (with `underbase`: a zip of the colour PNG and the white plate PNG); `json`: the manifest alone'),
  integer('time_budget_ms', 'timeBudgetMs', { min: 100, max: 60000, default: GANGSHEET_DEFAULTS.timeBudgetMs },
    'nesting search budget: the search spends `time_budget_ms` x 400 outline probes (a count, so the same request gives the same layout on any machine) and this many milliseconds of wall-clock time cap it (`search_capped` says when the cap cut it; copies not yet placed then go in rows below the rest, never dropped)'),
  bool('underbase', 'underbase', false,
    '`true` adds the white layer: each design\'s white plate made as POST /underbase makes it (the options below), as a White spot-colour separation in the PDF or a white plate PNG'),
  // the white layer's options are underbase's own declarations (same names, ranges, defaults and rules)
  ...UNDERBASE_GARMENT_FIELDS,
  ...UNDERBASE_PLATE_FIELDS,
] as const;

/** The wire names of the white layer's options: read by underbase's own resolver. */
const WHITE_WIRES = [...UNDERBASE_GARMENT_FIELDS, ...UNDERBASE_PLATE_FIELDS].map((f) => f.wire);

/**
 * The white layer's options resolved by the underbase table itself (its cross-field rules: knockout=garment
 * needs a garment colour, the spot name's characters), so a gang sheet's white is the underbase op's.
 * They are checked even when `underbase` is off, so a mistake is a 400 whatever the switch.
 */
function resolveWhite(raw: OptionReader): Readonly<ResolvedUnderbase> {
  const bag: Record<string, unknown> = {};
  for (const w of WHITE_WIRES) {
    const v = raw.get(w);
    if (v !== undefined) bag[w] = v;
  }
  return UNDERBASE_OPTIONS.resolve(raw.text ? textOptions(bag) : bag);
}

/** Resolved `gangsheet` options (library names). */
export interface ResolvedGangsheet {
  items: readonly GangItem[];
  sheetWidthIn: number;
  maxLengthIn: number;
  spacingIn: number;
  marginIn: number;
  rotation: GangRotation;
  format: 'pdf' | 'png' | 'json';
  timeBudgetMs: number;
  /** The white layer's options (underbase's, print size and format aside); null without `underbase`. */
  white: Readonly<ResolvedUnderbase> | null;
}

/** The `gangsheet` option table; its resolver throws `invalid_option` naming the field (`items[3].width_in`). */
export const GANGSHEET_OPTIONS = defineOptions(FIELDS, ({ field, raw }): ResolvedGangsheet => {
  const sheetWidthIn = field('sheetWidthIn');
  const marginIn = field('marginIn');
  const maxLengthIn = field('maxLengthIn');
  if (2 * marginIn >= sheetWidthIn - GANGSHEET_LIMITS.minSizeIn) throw invalidOption('margin_in', 'margins leaving room for a design across the sheet', marginIn);
  if (2 * marginIn >= maxLengthIn - GANGSHEET_LIMITS.minSizeIn) throw invalidOption('max_length_in', 'a length leaving room for a design inside the margins', maxLengthIn);
  return Object.freeze({
    items: Object.freeze(field('items').map((it) => Object.freeze(it))),
    sheetWidthIn,
    maxLengthIn,
    spacingIn: field('spacingIn'),
    marginIn,
    rotation: field('rotation'),
    format: field('format'),
    timeBudgetMs: field('timeBudgetMs'),
    white: (() => {
      const white = resolveWhite(raw);
      return field('underbase') ? white : null;
    })(),
  });
});

/** Options of `gangsheet` (camelCase; snake_case wire names accepted as for the other ops). */
export type GangsheetOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;

/** Validate gangsheet options; throws `invalid_option` naming the field. */
export const resolveGangsheet = GANGSHEET_OPTIONS.resolve;
