// Options of the `upscale` op (spec 4.5), declared once. POST /api/v1/upscale takes only `scale` (the
// budgets are operator settings the route passes itself); the CLI offers the rest for operators and benches.
import { integer, integerChoice, oneOf } from '../options/fields.js';
import { defineOptions, type FieldValues, type LibOptions, type WireOptions } from '../options/table.js';
import { DEFAULT_BUDGET, DEFAULT_BUDGET_4X } from './budget.js';

const MAX_BUDGET = 100_000_000;

const FIELDS = [
  integerChoice('scale', 'scale', [2, 4] as const, 4, 'enlargement factor'),
  integer('budget', 'budget', { min: 1, max: MAX_BUDGET, default: DEFAULT_BUDGET }, 'input pixels the 2x upscaler runs at; larger input (up to 4x) is shrunk first', { surfaces: ['cli'] }),
  integer('budget4x', 'budget4x', { min: 1, max: MAX_BUDGET, default: DEFAULT_BUDGET_4X }, 'input pixels the 4x upscaler runs at', { surfaces: ['cli'] }),
  oneOf('route', 'route', ['auto', 'vector', 'model', 'resample'] as const, 'auto', '`auto` picks by art class; the others force that path', { surfaces: ['cli'] }),
] as const;

/** The `upscale` option table. */
export const UPSCALE_OPTIONS = defineOptions(FIELDS);
/** Options of `upscale`. */
export type UpscaleOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;
export type ResolvedUpscale = FieldValues<typeof FIELDS>;
