// The option flags of a file verb, from its op's option table (engine options/table.ts): the flags accepted
// (wire names, `--print-width-inches`) and their --help lines. No verb lists its options by hand, so the
// flags, the API document and docs/reference/options.md cannot drift apart.
import type { OpName } from '@inkprep/engine';
import { OPS } from '@inkprep/engine/internals';

/** `print_width_inches` -> `--print-width-inches`. */
export function flagOf(wire: string): string {
  return `--${wire.replace(/_/g, '-')}`;
}

/** The op's fields offered as CLI flags, in table order. */
export function cliFields(op: OpName): readonly string[] {
  return (OPS[op].fields ?? []).filter((f) => f.surfaces.includes('cli')).map((f) => f.wire);
}

/** The default as --help shows it, or '' when there is none. */
function defaultText(spec: { default?: unknown; defaultVaries?: boolean }): string {
  if (spec.defaultVaries) return 'default depends on other options';
  return spec.default === undefined ? '' : `default ${String(spec.default)}`;
}

/** --help lines of the op's flags: `  --flag VALUE   doc (default X)`, aligned; `notes` adds verb-specific words per field. */
export function optionLines(op: OpName, notes: Readonly<Record<string, string>> = {}): string[] {
  const fields = (OPS[op].fields ?? []).filter((f) => f.surfaces.includes('cli'));
  const heads = fields.map((f) => `  ${flagOf(f.wire)} ${f.text}`);
  const width = Math.max(0, ...heads.map((h) => h.length)) + 2;
  return fields.map((f, i) => {
    const tail = notes[f.wire] ?? defaultText(f.spec);
    return `${heads[i]!.padEnd(width)}${f.doc}${tail ? ` (${tail})` : ''}`;
  });
}
