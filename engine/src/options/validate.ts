// Validation predicates shared by every op's option resolver. Library callers pass typed values (numbers,
// booleans, the documented words), checked as they are: a number sent as text is a mistake there. Text
// forms (HTTP form fields, CLI flags, which are strings) are accepted only when the adapter wraps them with
// `textOptions`, and are parsed once, here, at the boundary.
import { invalidOption } from '../errors.js';

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

/** Not given: absent or null, and in text form also the empty string (an empty form field). */
export function isUnset(o: OptionReader, v: unknown): boolean {
  return v === undefined || v === null || (o.text && v === '');
}

/** A boolean (`true`/`false` as text). */
export function parseBool(o: OptionReader, field: string, dflt: boolean): boolean {
  const v = o.get(field);
  if (isUnset(o, v)) return dflt;
  if (typeof v === 'boolean') return v;
  if (o.text && v === 'true') return true;
  if (o.text && v === 'false') return false;
  throw invalidOption(field, o.text ? 'true or false' : 'a boolean (true or false)', v);
}

const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A finite number within [min, max] (a decimal as text). */
export function parseNumber(o: OptionReader, field: string, dflt: number, min: number, max: number): number;
export function parseNumber(o: OptionReader, field: string, dflt: undefined, min: number, max: number): number | undefined;
export function parseNumber(o: OptionReader, field: string, dflt: number | undefined, min: number, max: number): number | undefined {
  const v = o.get(field);
  if (isUnset(o, v)) return dflt;
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
export function parseInteger(o: OptionReader, field: string, dflt: number | undefined, min: number, max: number): number | undefined {
  const n = parseNumber(o, field, dflt as number, min, max);
  if (n !== undefined && !Number.isInteger(n)) throw invalidOption(field, `an integer from ${min} to ${max}`, o.get(field));
  return n;
}

/** One of a fixed set of words (case-sensitive, as documented). */
export function parseEnum<T extends string>(o: OptionReader, field: string, dflt: T, allowed: readonly T[]): T {
  const v = o.get(field);
  if (isUnset(o, v)) return dflt;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw invalidOption(field, `one of ${allowed.join(', ')}`, v);
}

/** A non-empty string (trimmed), or undefined when not given. */
export function parseText(o: OptionReader, field: string): string | undefined {
  const v = o.get(field);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidOption(field, 'a string', v);
  const t = v.trim();
  return t === '' ? undefined : t;
}
