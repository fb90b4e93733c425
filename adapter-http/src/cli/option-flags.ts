// The option flags of a file verb, from its op's option table (engine options/table.ts): the flags accepted
// (wire names, `--print-width-inches`) and their --help lines. No verb lists its options by hand, so the
// flags, the API document and docs/reference/options.md cannot drift apart.
import type { OpName } from '@inkprep/engine';
// Internal: the op registry holds each op's option table, from which the flags and their --help come.
import { OPS } from '@inkprep/engine/internals';

/** `print_width_inches` -> `--print-width-inches`. */
export function flagOf(wire: string): string {
  return `--${wire.replace(/_/g, '-')}`;
}

/** The op's fields offered as CLI flags, in table order. */
export function cliFields(op: OpName): readonly string[] {
  return OPS[op].fields.filter((f) => f.surfaces.includes('cli')).map((f) => f.wire);
}

/** The default as --help shows it, or '' when there is none or it follows other options (the doc says how). */
function defaultText(spec: { default?: unknown; defaultVaries?: boolean }): string {
  return spec.defaultVaries || spec.default === undefined ? '' : `default ${String(spec.default)}`;
}

/**
 * --help lines of the op's flags, `  --flag VALUE   doc (default X)`, aligned with the verb's own flags
 * (`verbFlags`: -o, --json, ...) listed after them; `notes` replaces the default shown for a field.
 */
export function optionLines(op: OpName, notes: Readonly<Record<string, string>> = {}, verbFlags: readonly (readonly [string, string])[] = []): string[] {
  const fields = OPS[op].fields.filter((f) => f.surfaces.includes('cli'));
  const rows: [string, string][] = fields.map((f) => {
    const tail = notes[f.wire] ?? defaultText(f.spec);
    return [`  ${flagOf(f.wire)} ${f.text}`, `${f.doc}${tail ? ` (${tail})` : ''}`];
  });
  for (const [flag, doc] of verbFlags) rows.push([`  ${flag}`, doc]);
  const width = Math.max(0, ...rows.map(([head]) => head.length)) + 2;
  return rows.map(([head, doc]) => `${head.padEnd(width)}${doc}`);
}

/** The formats an op writes, from its format option's values (the default first), e.g. vectorize `output_format`. */
export function formatsOf(op: OpName, field: string): { field: string; values: readonly string[] } {
  const f = OPS[op].fields.find((x) => x.wire === field);
  const values = f?.spec.kind === 'enum' ? f.spec.values?.map(String) : undefined;
  const dflt = f?.spec.default;
  if (!values || typeof dflt !== 'string') throw new Error(`${op} has no format option ${field} with values and a default`);
  return { field, values: [dflt, ...values.filter((v) => v !== dflt)] };
}
