// Options of the `vectorize` op (spec 4.8), declared once: the resolver, the typed options, the POST
// /api/v1/vectorize form fields, the `inkprep vectorize` flags and the docs' option table. The resolver maps
// the user-facing fields (human units) onto the pipeline's settings (settings.ts) once.
import { invalidOption } from '../errors.js';
import { bool, custom, number, oneOf } from '../options/fields.js';
import { defineOptions, type LibOptions, type WireOptions } from '../options/table.js';
import { isUnset, type OptionReader } from '../options/validate.js';
import { DEFAULT_SPECK_SIZE } from './clean/specks.js';
import { DXF_UNITS, VECTOR_FORMATS } from './formats/index.js';
import type { ColorsOption } from './quantize/index.js';
import { DETAIL_PARAMS, type ResolvedVectorize } from './settings.js';
import type { TraceParams } from './types.js';

/** `colors`: `auto`, `unlimited`, or an integer 1-20 (digits only as text: "8", not "8.0"). */
function readColors(o: OptionReader): ColorsOption {
  const v = o.get('colors');
  if (isUnset(o, 'colors', v) || v === 'auto') return 'auto';
  if (v === 'unlimited') return 'unlimited';
  const n = typeof v === 'number' ? v : o.text && typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 20) throw invalidOption('colors', 'auto, unlimited or an integer from 1 to 20', v);
  return n;
}

const FIELDS = [
  custom<'auto' | 'unlimited' | number, ColorsOption>()('colors', 'colors', {
    spec: { kind: 'integer', min: 1, max: 20, words: ['auto', 'unlimited'], default: 'auto' }, text: 'auto|1-20|unlimited', read: readColors,
  }, '`auto` (the smallest palette that keeps the art true, 4 to 20), an integer 1 to 20 (1 gives a single-colour silhouette), or `unlimited`'),
  oneOf('detail', 'detail', ['smoother', 'balanced', 'precise'] as const, 'balanced', '`precise` keeps sharp corners on small lettering'),
  oneOf('shape_style', 'shapeStyle', ['stacked', 'cutout'] as const, 'stacked', '`stacked`: overlapping colour layers; `cutout`: flat pieces that never overlap'),
  number('speck_size', 'speckSize', { min: 0, max: 16, default: DEFAULT_SPECK_SIZE }, 'drops blobs smaller than this many pixels across'),
  bool('edge_cleanup', 'edgeCleanup', true, 'cleans semi-transparent edge pixels; `false` keeps them'),
  bool('smooth_bands', 'smoothBands', true, 'smooths staircase edges where colour bands meet; affects only colors=unlimited'),
  bool('gradients', 'gradients', false, '`true` allows smooth gradient fills for shaded or painted art'),
  number('print_width_inches', 'printWidthInches', { min: 0.1, max: 500 }, 'writes the document at a physical width in inches (SVG width/height, PDF/EPS page, DXF coordinates; else 72 px per inch)'),
  oneOf('output_format', 'outputFormat', VECTOR_FORMATS, 'svg', 'the document returned: SVG, PDF, EPS, or DXF (cutters); the same shapes, with its own Content-Type'),
  oneOf('dxf_units', 'dxfUnits', DXF_UNITS, 'in', 'units of the DXF drawing (output_format=dxf)'),
  bool('primitives', 'primitives', true, 'outlines that are circles, ellipses, rectangles or rounded rectangles are written as those exact shapes; `false` keeps every outline as traced'),
] as const;

/** The `vectorize` option table; its resolver throws `invalid_option` naming the field. */
export const VECTORIZE_OPTIONS = defineOptions(FIELDS, ({ field }): ResolvedVectorize => {
  const colors = field('colors');
  const detail = field('detail');
  const shapeStyle = field('shapeStyle');
  const speckSize = field('speckSize');
  const edgeCleanup = field('edgeCleanup');
  const smoothBands = field('smoothBands');
  const gradients = field('gradients');
  const printWidthInches = field('printWidthInches') ?? null;
  const outputFormat = field('outputFormat');
  const dxfUnits = field('dxfUnits');
  const primitives = field('primitives');
  const trace: TraceParams = Object.freeze({
    ...DETAIL_PARAMS[detail],
    turdSize: 0,
    shapeStyle,
    smooth: colors === 'unlimited' ? smoothBands : true,
  });
  return { colors, detail, shapeStyle, speckSize, edgeCleanup, smoothBands, gradients, printWidthInches, outputFormat, dxfUnits, primitives, trace };
});

/** Options of `vectorize` (camelCase; the contract's snake_case names are accepted during the transition). */
export type VectorizeOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;

/** Validate `vectorize` options; throws `invalid_option` naming the field. */
export const resolveVectorize = VECTORIZE_OPTIONS.resolve;
