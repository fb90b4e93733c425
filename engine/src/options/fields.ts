// Field builders of the option tables (options/table.ts): one call declares one option of one op, with its
// wire name (the contract's snake_case, as HTTP form fields and CLI flags spell it), its library name
// (camelCase, for typed callers), its kind, range or words, default, text form and one-line doc. The
// parsing itself is the shared helpers of validate.ts, so every rule and message (blank values, DECIMAL
// text, "Expected ... for <field>") stays the one written there.
import {
  isUnset, parseBool, parseEnum, parseInteger, parseIntegerChoice, parseNumber, parseText, type FieldSpec, type OptionReader,
} from './validate.js';

/** Where a field is offered besides the library: HTTP form fields and/or CLI flags. */
export type Surface = 'http' | 'cli';
/** Every surface (the default of a field). */
export const ALL_SURFACES: readonly Surface[] = Object.freeze(['http', 'cli'] as const);

/**
 * One option of one op. `In` is what a typed library caller may pass, `Out` what the resolver yields.
 * `read` parses the field from an options bag (text or typed) and throws `invalid_option` naming `wire`.
 */
export interface Field<W extends string = string, L extends string = string, In = unknown, Out = unknown> {
  /** The contract's name: HTTP form field, CLI flag (`--print-width-inches`), text forms. */
  readonly wire: W;
  /** The library's name (camelCase): typed options and the resolved value. */
  readonly lib: L;
  /** One line for the API document, `--help` and the docs' option table. */
  readonly doc: string;
  /** Surfaces besides the library; `[]` = library only (typed extras such as a resolved catalog entry). */
  readonly surfaces: readonly Surface[];
  /** Kind, default, range and words: what the API document and the docs say about the value. */
  readonly spec: FieldSpec;
  /** The value as text in `--help` and the docs, e.g. `auto|1-20|unlimited`, `0.1-500`, `true|false`. */
  readonly text: string;
  /** Parse the field from an options bag. */
  read(o: OptionReader): Out;
  /** Type-level only: what typed callers pass (never set). */
  readonly __in?: In;
}

/** The field type every table accepts (a bound for generics). */
export type AnyField = Field<string, string, unknown, unknown>;

/** What typed callers pass for a field / what the resolver yields for it. */
export type InOf<F> = F extends Field<string, string, infer I, unknown> ? I : never;
export type OutOf<F> = F extends Field<string, string, unknown, infer O> ? O : never;

/** Extras common to every builder. */
export interface FieldExtras {
  /** Surfaces besides the library (default both). */
  surfaces?: readonly Surface[];
  /** The default depends on other fields (the API document says so; the op's resolver fills it in). */
  defaultVaries?: boolean;
  /**
   * With `defaultVaries`: the default most requests get (mockup `offset_x_in`: 0, centred), stated in the
   * API document and the docs. The field's reader does not apply it; the op's resolver sets the real one.
   */
  usualDefault?: number | string | boolean;
  /** Text form shown instead of the derived one. */
  text?: string;
}

function make<W extends string, L extends string, In, Out>(
  wire: W, lib: L, doc: string, spec: Omit<FieldSpec, 'field'>, text: string, read: (o: OptionReader) => Out, x: FieldExtras = {},
): Field<W, L, In, Out> {
  return Object.freeze({
    wire, lib, doc,
    surfaces: x.surfaces ?? ALL_SURFACES,
    spec: Object.freeze({
      field: wire, ...spec,
      ...(x.usualDefault !== undefined && spec.default === undefined ? { default: x.usualDefault } : {}),
      ...(x.defaultVaries ? { defaultVaries: true } : {}),
    }),
    text: x.text ?? text,
    read,
  });
}

const range = (min: number, max: number) => `${min}-${max}`;

/** A boolean (`true`/`false` as text). */
export function bool<const W extends string, const L extends string>(wire: W, lib: L, dflt: boolean, doc: string, x?: FieldExtras): Field<W, L, boolean, boolean> {
  return make(wire, lib, doc, { kind: 'bool', default: dflt }, 'true|false', (o) => parseBool(o, wire, dflt), x);
}

/** A finite number in [min, max] (a decimal as text); without a default, undefined when not given. */
export function number<const W extends string, const L extends string>(wire: W, lib: L, r: { min: number; max: number; default: number }, doc: string, x?: FieldExtras): Field<W, L, number, number>;
export function number<const W extends string, const L extends string>(wire: W, lib: L, r: { min: number; max: number; default?: undefined }, doc: string, x?: FieldExtras): Field<W, L, number, number | undefined>;
export function number<const W extends string, const L extends string>(wire: W, lib: L, r: { min: number; max: number; default?: number }, doc: string, x?: FieldExtras): Field<W, L, number, number | undefined> {
  const spec = { kind: 'number' as const, min: r.min, max: r.max, ...(r.default !== undefined ? { default: r.default } : {}) };
  return make(wire, lib, doc, spec, range(r.min, r.max), (o) => parseNumber(o, wire, r.default, r.min, r.max), x);
}

/** An integer in [min, max]; without a default, undefined when not given. */
export function integer<const W extends string, const L extends string>(wire: W, lib: L, r: { min: number; max: number; default: number }, doc: string, x?: FieldExtras): Field<W, L, number, number>;
export function integer<const W extends string, const L extends string>(wire: W, lib: L, r: { min: number; max: number; default?: undefined }, doc: string, x?: FieldExtras): Field<W, L, number, number | undefined>;
export function integer<const W extends string, const L extends string>(wire: W, lib: L, r: { min: number; max: number; default?: number }, doc: string, x?: FieldExtras): Field<W, L, number, number | undefined> {
  const spec = { kind: 'integer' as const, min: r.min, max: r.max, ...(r.default !== undefined ? { default: r.default } : {}) };
  return make(wire, lib, doc, spec, range(r.min, r.max), (o) => parseInteger(o, wire, r.default, r.min, r.max), x);
}

/** One of a fixed set of integers (`scale`: 2 or 4), as a number or its decimal text. */
export function integerChoice<const W extends string, const L extends string, const V extends number>(wire: W, lib: L, values: readonly V[], dflt: V, doc: string, x?: FieldExtras): Field<W, L, V, V> {
  return make(wire, lib, doc, { kind: 'integer', values, default: dflt }, values.join('|'), (o) => parseIntegerChoice(o, wire, dflt, values), x);
}

/** One of a fixed set of words (case-sensitive); without a default, undefined when not given. */
export function oneOf<const W extends string, const L extends string, const V extends string>(wire: W, lib: L, values: readonly V[], dflt: V, doc: string, x?: FieldExtras): Field<W, L, V, V>;
export function oneOf<const W extends string, const L extends string, const V extends string>(wire: W, lib: L, values: readonly V[], dflt: undefined, doc: string, x?: FieldExtras): Field<W, L, V, V | undefined>;
export function oneOf<const W extends string, const L extends string, const V extends string>(wire: W, lib: L, values: readonly V[], dflt: V | undefined, doc: string, x?: FieldExtras): Field<W, L, V, V | undefined> {
  const read = (o: OptionReader): V | undefined => {
    if (dflt === undefined && isUnset(o, wire, o.get(wire))) return undefined;
    return parseEnum(o, wire, (dflt ?? values[0]) as V, values);
  };
  return make(wire, lib, doc, { kind: 'enum', values, ...(dflt !== undefined ? { default: dflt } : {}) }, values.join('|'), read, x);
}

/** A string exactly as sent (never blank, no surrounding spaces), undefined when not given. */
export function text<const W extends string, const L extends string, const V extends string = string>(wire: W, lib: L, doc: string, x?: FieldExtras): Field<W, L, V, string | undefined> {
  return make(wire, lib, doc, { kind: 'text' }, 'TEXT', (o) => parseText(o, wire), x);
}

/**
 * A field with its own parser (vectorize `colors`: a number or a word; mockup `fabric`: a number or false;
 * removeBg `model`: a path or a model description). `spec` says how the API document describes it.
 */
export function custom<In, Out>() {
  return <const W extends string, const L extends string>(
    wire: W, lib: L, d: { spec: Omit<FieldSpec, 'field'>; text: string; read: (o: OptionReader, wire: W) => Out }, doc: string, x?: FieldExtras,
  ): Field<W, L, In, Out> => make<W, L, In, Out>(wire, lib, doc, d.spec, d.text, (o) => d.read(o, wire), x);
}
