// Validation predicates shared by every op's option resolver. Values may arrive as typed JS values
// (library callers) or as text (HTTP form fields, CLI flags); both are accepted here, once, at the boundary.
import { invalidOption } from '../errors.js';

/** A raw option value as a caller may send it. */
export type RawValue = string | number | boolean | null | undefined;

/** Parse a boolean sent as `true`/`false` (text or boolean). */
export function parseBool(field: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null || v === '') return dflt;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalidOption(field, 'true or false', v);
}

/** Parse a finite decimal number within [min, max]. */
export function parseNumber(field: string, v: unknown, dflt: number, min: number, max: number): number;
export function parseNumber(field: string, v: unknown, dflt: undefined, min: number, max: number): number | undefined;
export function parseNumber(field: string, v: unknown, dflt: number | undefined, min: number, max: number): number | undefined {
  if (v === undefined || v === null || v === '') return dflt;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) n = Number(v);
  else throw invalidOption(field, `a number from ${min} to ${max}`, v);
  if (!Number.isFinite(n) || n < min || n > max) throw invalidOption(field, `a number from ${min} to ${max}`, v);
  return n;
}

/** Parse an integer within [min, max]. */
export function parseInteger(field: string, v: unknown, dflt: number, min: number, max: number): number;
export function parseInteger(field: string, v: unknown, dflt: undefined, min: number, max: number): number | undefined;
export function parseInteger(field: string, v: unknown, dflt: number | undefined, min: number, max: number): number | undefined {
  const n = parseNumber(field, v, dflt as number, min, max);
  if (n !== undefined && !Number.isInteger(n)) throw invalidOption(field, `an integer from ${min} to ${max}`, v);
  return n;
}

/** Parse one of a fixed set of words (case-sensitive, as documented). */
export function parseEnum<T extends string>(field: string, v: unknown, dflt: T, allowed: readonly T[]): T {
  if (v === undefined || v === null || v === '') return dflt;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw invalidOption(field, `one of ${allowed.join(', ')}`, v);
}

/** Reject a non-object options bag from a library caller. */
export function asRecord(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidOption('options', 'an object', v);
  return v as Record<string, unknown>;
}
