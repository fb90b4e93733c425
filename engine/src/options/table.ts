// An op's option table: its fields (options/fields.ts) in one list, and the generic resolver built from it.
// The table is the one declaration of an op's options: the resolver, the typed option types, the OpenAPI
// request schemas, the CLI flags and their --help, and docs/reference/options.md all read it.
//
// Names: text forms (HTTP form fields, CLI flags: `textOptions`) use the wire names (snake_case). Typed
// library callers use the library names (camelCase); during a transition the wire names are accepted in
// typed objects too (see CHANGELOG.md), and giving one field under both names is `invalid_option`.
import { invalidOption } from '../errors.js';
import type { AnyField, InOf, OutOf, Surface } from './fields.js';
import { readOptions, TextOptions, type OptionReader } from './validate.js';

/** Typed options of a table by library name (camelCase). */
export type LibOptions<Fs extends readonly AnyField[]> = { [F in Fs[number] as F['lib']]?: InOf<F> };
/**
 * Typed options of a table by wire name (snake_case).
 * @deprecated for typed callers: use the camelCase names; accepted during the transition (CHANGELOG.md).
 */
export type WireOptions<Fs extends readonly AnyField[]> = { [F in Fs[number] as F['wire']]?: InOf<F> };
/** What the generic resolver yields: every field by library name. */
export type FieldValues<Fs extends readonly AnyField[]> = { [F in Fs[number] as F['lib']]: OutOf<F> };

/** Reads one field by library name (parsed once, on first read). */
export type FieldGetter<Fs extends readonly AnyField[]> = <L extends Fs[number]['lib']>(lib: L) => OutOf<Extract<Fs[number], { lib: L }>>;

/** What an op's cross-field step receives: parsed fields on demand and the raw bag (`get` by wire name). */
export interface TableReader<Fs extends readonly AnyField[]> {
  /** A field's value, parsed by its table entry (once). */
  field: FieldGetter<Fs>;
  /** The bag itself, by wire name (for lookups that read a value as sent). */
  raw: OptionReader;
}

export interface OptionTable<Fs extends readonly AnyField[], R> {
  readonly fields: Fs;
  /** Validate options (typed or `textOptions`) into the frozen resolved value; throws `invalid_option`. */
  resolve(raw: LibOptions<Fs> | WireOptions<Fs> | TextOptions | undefined): Readonly<R>;
  /** The fields offered on a surface, in table order. */
  on(surface: Surface): readonly Fs[number][];
}

/**
 * Open an options bag with the table's names: text forms by wire name only; typed objects by library name
 * or (transition) by wire name.
 */
function openBag(raw: unknown, fields: readonly AnyField[]): OptionReader {
  const base = readOptions(raw);
  if (base.text || raw === undefined || raw === null) return base;
  const libOf = new Map(fields.map((f) => [f.wire, f.lib]));
  return {
    text: false,
    get(wire) {
      const lib = libOf.get(wire);
      const b = base.get(wire);
      if (lib === undefined || lib === wire) return b;
      const a = base.get(lib);
      if (a != null && b != null) throw invalidOption(wire, `${lib} or ${wire}, not both`, b);
      return a != null ? a : b != null ? b : (a ?? b);
    },
  };
}

/**
 * Declare an op's options. Without `finish`, the resolver reads every field in table order and returns them
 * by library name; with it, `finish` reads the fields it needs (in its own order, e.g. mode-dependent
 * fields) and builds the resolved value (cross-field defaults, lookups). The result is frozen.
 */
export function defineOptions<const Fs extends readonly AnyField[]>(fields: Fs): OptionTable<Fs, FieldValues<Fs>>;
export function defineOptions<const Fs extends readonly AnyField[], R>(fields: Fs, finish: (t: TableReader<Fs>) => R): OptionTable<Fs, R>;
export function defineOptions<const Fs extends readonly AnyField[], R>(fields: Fs, finish?: (t: TableReader<Fs>) => R): OptionTable<Fs, R> {
  const byLib = new Map<string, AnyField>(fields.map((f) => [f.lib, f]));
  const wires = new Set(fields.map((f) => f.wire));
  if (byLib.size !== fields.length || wires.size !== fields.length) throw new Error('option table: duplicate field name');
  const all = (t: TableReader<Fs>): R => {
    const out: Record<string, unknown> = {};
    for (const f of fields) out[f.lib] = t.field(f.lib as Fs[number]['lib']);
    return out as R;
  };
  const step = finish ?? all;
  return Object.freeze({
    fields,
    resolve(raw: unknown): Readonly<R> {
      const o = openBag(raw, fields);
      const seen = new Map<string, unknown>();
      const field = ((lib: string) => {
        if (seen.has(lib)) return seen.get(lib);
        const f = byLib.get(lib);
        if (!f) throw new Error(`option table: no field ${lib}`);
        const v = f.read(o);
        seen.set(lib, v);
        return v;
      }) as FieldGetter<Fs>;
      return Object.freeze(step({ field, raw: o }));
    },
    on: (surface: Surface) => fields.filter((f) => f.surfaces.includes(surface)),
  });
}

export { TextOptions };
