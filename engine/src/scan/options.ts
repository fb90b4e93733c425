// Options of the `scan` op (spec 4.1), declared once: resolver, typed options, POST /api/v1/scan form
// fields, `inkprep scan` flags and the docs' option table.
import { number } from '../options/fields.js';
import { defineOptions, type FieldValues, type LibOptions, type WireOptions } from '../options/table.js';
import { DEFAULT_PRINT_WIDTH_IN, PRINT_WIDTH_RANGE } from '../print/resolution.js';

const FIELDS = [
  number('print_width_inches', 'printWidthInches', { min: PRINT_WIDTH_RANGE[0], max: PRINT_WIDTH_RANGE[1], default: DEFAULT_PRINT_WIDTH_IN }, 'target print width in inches'),
] as const;

/** The `scan` option table. */
export const SCAN_OPTIONS = defineOptions(FIELDS);
/** Scan options (camelCase; `print_width_inches` accepted during the transition). */
export type ScanOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;
export type ResolvedScan = FieldValues<typeof FIELDS>;
