// An option that is a list of objects (a batch's `items`): JSON text on HTTP forms and CLI flags, an array
// from typed callers. Read here once for every op that has one: the list's shape and length, each item an
// object with known fields only; every mistake is `invalid_option` naming the list (`items`), the item
// (`items[3]`) or the item's field (`items[3].color`). What an item's fields must hold is the op's to check.
import { InkprepError, invalidOption } from '../errors.js';
import type { OptionReader } from './validate.js';

export interface ItemListSpec {
  /** What the option expects, said when it is missing (e.g. `a list of mockups [{ "style": ... }, ...]`). */
  expected: string;
  /** What one item is, said when an item is not an object (e.g. `an object { design, quantity, width_in | height_in }`). */
  item: string;
  /** The fields an item may carry: wire name (snake_case, as the JSON spells it) to library name (camelCase). */
  fields: Readonly<Record<string, string>>;
  /** Where the library names are accepted too: `always`, or only from `typed` callers (not in JSON text). */
  libNames: 'always' | 'typed';
  /** At most this many items (unset: the op bounds the list otherwise). */
  maxItems?: number;
  /** A typed caller's item taken without the field check (e.g. a mockup the caller resolved already). */
  prepared?: (raw: object) => boolean;
}

/**
 * The list of the option `wire`, each item checked as `spec` says and then made by `make` (in order; `at` is
 * the item's name for errors, `items[i]`).
 */
export function readItemList<T>(o: OptionReader, wire: string, spec: ItemListSpec, make: (raw: Record<string, unknown>, at: string) => T): T[] {
  let v = o.get(wire);
  // "Expected ... but received undefined" reads like a bug report; a missing list says so, and what to send
  if (v === undefined || v === null) throw new InkprepError('invalid_option', `Missing ${wire}: expected ${spec.expected}`, { field: wire });
  if (typeof v === 'string') {
    // JSON text is how HTTP forms and CLI flags carry the list; typed callers pass the array
    if (!o.text) throw invalidOption(wire, 'a list of items (JSON text only in textOptions)', v);
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      throw invalidOption(wire, 'a JSON list of items', v);
    }
  }
  if (!Array.isArray(v)) throw invalidOption(wire, 'a list of items', v);
  if (v.length === 0) throw invalidOption(wire, 'at least one item', '[]');
  if (spec.maxItems !== undefined && v.length > spec.maxItems) throw invalidOption(wire, `at most ${spec.maxItems} items`, `${v.length} items`);
  const libs = spec.libNames === 'always' || !o.text ? Object.values(spec.fields) : [];
  return v.map((raw: unknown, i) => {
    const at = `${wire}[${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalidOption(at, spec.item, raw);
    const r = raw as Record<string, unknown>;
    if (!(!o.text && spec.prepared?.(raw))) {
      for (const k of Object.keys(r)) {
        if (!Object.prototype.hasOwnProperty.call(spec.fields, k) && !libs.includes(k)) {
          throw unknownItemField(at, k, Object.keys(spec.fields));
        }
      }
    }
    return make(r, at);
  });
}

/** `items[0].width` is no field: the error names the fields an item takes and a close one (`width_in`). */
function unknownItemField(at: string, key: string, fields: readonly string[]): InkprepError {
  // a cut-short or over-long name (`width` for `width_in`, `design_index` for `design`) is the usual slip
  const near = key.length >= 3 ? fields.filter((f) => f.startsWith(key) || key.startsWith(f)) : [];
  const hint = near.length === 1 ? `; did you mean ${near[0]}?` : '';
  return new InkprepError('invalid_option', `${at} has no field ${JSON.stringify(key.slice(0, 60))} (an item takes ${fields.join(', ')})${hint}`, { field: `${at}.${key}` });
}
