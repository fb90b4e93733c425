// Minimal argv parser for the inkprep CLI: positionals, `--flag value`, `--flag=value`, boolean flags.
// Flag names are normalised to the API's snake_case field names (`--print-width-inches` -> print_width_inches).
// A one-letter option other than -o, -h, -q is kept as `-x` (never a positional), so verbs reject it by name.

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
}

const SHORT: Record<string, string> = { o: 'output', h: 'help', q: 'quiet' };

/** Flags every file verb takes besides its op's fields. */
export const FILE_VERB_FLAGS = ['output', 'help', 'json', 'quiet', 'progress'] as const;

/** Parse argv. `booleans` lists flags that never take a value. */
export function parseArgs(argv: readonly string[], booleans: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  const isBool = new Set(['help', 'json', 'quiet', 'progress', 'admin', ...booleans]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string | null = null;
    let value: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) value = a.slice(eq + 1);
    } else if (a.length === 2 && a[0] === '-' && SHORT[a[1]!]) {
      name = SHORT[a[1]!]!;
    } else if (/^-[A-Za-z]$/.test(a)) {
      flags[a] = true;
      continue;
    }
    if (name === null) {
      positionals.push(a);
      continue;
    }
    name = name.replace(/-/g, '_');
    if (value === undefined) {
      const next = argv[i + 1];
      if (!isBool.has(name) && next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
    }
    flags[name] = value ?? true;
  }
  return { positionals, flags };
}

/** Flags as an options bag for an engine op (drops CLI-only flags). */
export function opOptions(flags: Record<string, string | true>, cliOnly: readonly string[] = []): Record<string, string> {
  const skip = new Set<string>([...FILE_VERB_FLAGS, ...cliOnly]);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(flags)) if (!skip.has(k)) out[k] = v === true ? 'true' : v;
  return out;
}
