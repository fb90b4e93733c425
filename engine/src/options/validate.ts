// Validation predicates shared by every option parser (the ops' tables, options/fields.ts, and the adapter's
// query parameters). Library callers pass typed values (numbers, booleans, the documented words), checked
// as they are: a number sent as text is a mistake there. Text forms (HTTP form fields, CLI flags, which are
// strings) are accepted only when the adapter wraps them with `textOptions`, and are parsed once, here, at
// the boundary.
import { invalidOption } from '../errors.js';
import { noteField } from './describe.js';

/**
 * Option values as text, as HTTP form fields and CLI flags carry them (`'8'`, `'true'`). Only options wrapped
 * this way may spell numbers and booleans as text; a plain object is checked against the op's typed options.
 */
export class TextOptions {
  // A private brand: an object literal is never a TextOptions, so typed callers keep their literal checks.
  readonly #text = true;
  readonly fields: Readonly<Record<string, unknown>>;
  constructor(fields: Readonly<Record<string, unknown>>) {
    this.fields = Object.freeze({ ...fields });
    Object.freeze(this);
  }
  /** True for every TextOptions (reads the private brand). */
  static is(v: unknown): v is TextOptions {
    return typeof v === 'object' && v !== null && #text in v;
  }
}

/** Wrap text fields (HTTP form fields, CLI flags; typed extras such as a resolved catalog entry may ride along). */
export function textOptions(fields: Readonly<Record<string, unknown>>): TextOptions {
  return new TextOptions(fields);
}

/** How a resolver reads an options bag: field values, and whether they may be text. */
export interface OptionReader {
  /** True when the options came wrapped by `textOptions`. */
  readonly text: boolean;
  /** The value of a field as sent (undefined when absent). */
  get(field: string): unknown;
}

const own = (o: Readonly<Record<string, unknown>>, field: string): unknown => (Object.prototype.hasOwnProperty.call(o, field) ? o[field] : undefined);

/** Open an options bag: `textOptions(...)`, a plain object, or nothing; anything else is `invalid_option`. */
export function readOptions(raw: unknown): OptionReader {
  if (TextOptions.is(raw)) return { text: true, get: (f) => own(raw.fields, f) };
  if (raw === undefined || raw === null) return { text: false, get: () => undefined };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidOption('options', 'an object', raw);
  const o = raw as Record<string, unknown>;
  return { text: false, get: (f) => own(o, f) };
}

/**
 * Not given: absent or null. A field that is present must hold a value: an empty or whitespace-only string, or
 * one with leading/trailing spaces, is `invalid_option` for that field (HTTP `-F colors=`, CLI `--colors ""`,
 * `placement="full-front "`), in text form and from library callers alike. Every parser below goes through
 * here, so the rule holds for every field of every op (issue 17).
 */
export function isUnset(o: OptionReader, field: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string') {
    if (v.trim() === '') throw invalidOption(field, 'a value (the field was sent empty)', v);
    if (v.trim() !== v) throw invalidOption(field, 'a value without leading or trailing spaces', v);
  }
  return false;
}

/** A boolean (`true`/`false` as text). */
export function parseBool(o: OptionReader, field: string, dflt: boolean): boolean {
  noteField({ field, kind: 'bool', default: dflt });
  const v = o.get(field);
  if (isUnset(o, field, v)) return dflt;
  if (typeof v === 'boolean') return v;
  if (o.text && v === 'true') return true;
  if (o.text && v === 'false') return false;
  throw invalidOption(field, o.text ? 'true or false' : 'a boolean (true or false)', v);
}

const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A finite number within [min, max] (a decimal as text). */
export function parseNumber(o: OptionReader, field: string, dflt: number, min: number, max: number): number;
export function parseNumber(o: OptionReader, field: string, dflt: undefined, min: number, max: number): number | undefined;
export function parseNumber(o: OptionReader, field: string, dflt: number | undefined, min: number, max: number): number | undefined;
export function parseNumber(o: OptionReader, field: string, dflt: number | undefined, min: number, max: number): number | undefined {
  noteField({ field, kind: 'number', min, max, ...(dflt !== undefined ? { default: dflt } : {}) });
  return readNumber(o, field, dflt, min, max);
}

function readNumber(o: OptionReader, field: string, dflt: number | undefined, min: number, max: number): number | undefined {
  const v = o.get(field);
  if (isUnset(o, field, v)) return dflt;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (o.text && typeof v === 'string' && DECIMAL.test(v)) n = Number(v);
  else throw invalidOption(field, `a number from ${min} to ${max}`, v);
  if (!Number.isFinite(n) || n < min || n > max) throw invalidOption(field, `a number from ${min} to ${max}`, v);
  return n;
}

/** An integer within [min, max]. */
export function parseInteger(o: OptionReader, field: string, dflt: number, min: number, max: number): number;
export function parseInteger(o: OptionReader, field: string, dflt: undefined, min: number, max: number): number | undefined;
export function parseInteger(o: OptionReader, field: string, dflt: number | undefined, min: number, max: number): number | undefined;
export function parseInteger(o: OptionReader, field: string, dflt: number | undefined, min: number, max: number): number | undefined {
  noteField({ field, kind: 'integer', min, max, ...(dflt !== undefined ? { default: dflt } : {}) });
  const n = readNumber(o, field, dflt, min, max);
  if (n !== undefined && !Number.isInteger(n)) throw invalidOption(field, `an integer from ${min} to ${max}`, o.get(field));
  return n;
}

/** One of a fixed set of words (case-sensitive, as documented). */
export function parseEnum<T extends string>(o: OptionReader, field: string, dflt: T, allowed: readonly T[]): T {
  noteField({ field, kind: 'enum', values: allowed, default: dflt });
  const v = o.get(field);
  if (isUnset(o, field, v)) return dflt;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw invalidOption(field, `one of ${allowed.join(', ')}`, v);
}

/** A string exactly as sent (never blank, no surrounding spaces: see isUnset), or undefined when not given. */
export function parseText(o: OptionReader, field: string): string | undefined {
  noteField({ field, kind: 'text' });
  return parseTextUnnoted(o, field);
}

/**
 * One of a fixed set of integers (`scale`: 2 or 4), as a number or its decimal text ("4.0" is 4).
 * @throws `invalid_option` naming the field, e.g. "Expected 2 or 4 for scale".
 */
export function parseIntegerChoice<T extends number>(o: OptionReader, field: string, dflt: T, allowed: readonly T[]): T {
  noteField({ field, kind: 'integer', values: allowed, default: dflt });
  const lo = Math.min(...allowed);
  const hi = Math.max(...allowed);
  const n = readNumber(o, field, dflt, lo, hi);
  if ((allowed as readonly number[]).includes(n as number)) return n as T;
  throw invalidOption(field, allowed.join(' or '), o.get(field));
}

/** A required string (`key` of GET /garments/style): `invalid_option` naming the field when absent. */
export function requireText(o: OptionReader, field: string, expected: string): string {
  noteField({ field, kind: 'text', required: true });
  const v = parseTextUnnoted(o, field);
  if (v === undefined) throw invalidOption(field, `${expected} (required)`, '');
  return v;
}

function parseTextUnnoted(o: OptionReader, field: string): string | undefined {
  const v = o.get(field);
  if (isUnset(o, field, v)) return undefined;
  if (typeof v !== 'string') throw invalidOption(field, 'a string', v);
  return v;
}

/**
 * Query parameters (URLSearchParams) as a text options bag: parsed by the same helpers as form fields.
 * @throws `invalid_option` naming a parameter sent more than once (`?q=a&q=b` has no one value; neither the
 * first nor the last is guessed), whatever its name, as for form fields.
 */
export function queryOptions(query: URLSearchParams): OptionReader {
  const fields: Record<string, string> = {};
  for (const [k, v] of query) {
    if (Object.prototype.hasOwnProperty.call(fields, k)) throw invalidOption(k, 'one value (the parameter was sent more than once)', v);
    fields[k] = v;
  }
  return readOptions(textOptions(fields));
}

export { noteField, describeFields, type FieldSpec, type FieldKind } from './describe.js';

/** One text value outside an options bag (an HTTP query parameter), by the same rule as parseText. */
export function textValue(field: string, v: string | null | undefined): string | undefined {
  return parseText(readOptions(textOptions({ [field]: v })), field);
}
