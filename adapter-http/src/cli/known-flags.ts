// Every verb rejects the flags it does not take (exit 2, one usage error line naming them), never ignores
// them: a misspelt `--colours 8` silently dropped would run with the default and look like a bad result.
// A close known flag is offered as `suggestion` (edit distance, or the one flag a cut-short name begins).
import { UsageError } from './command.js';

/** `print_width_inches` -> `--print-width-inches`; a kept short option (`-x`) as it was typed. */
export function flagText(name: string): string {
  return name.startsWith('-') ? name : `--${name.replace(/_/g, '-')}`;
}

/** Levenshtein distance (insert, delete, substitute), with a swap of two neighbours counting as one edit. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known flag `name` is most likely a typo of, or undefined when none is close. */
export function nearestFlag(name: string, known: readonly string[]): string | undefined {
  if (name.startsWith('-')) return undefined;
  // a few edits, more for longer names: `colours` -> `colors` (1), `fix_despekle` -> `fix_despeckle` (1)
  const limit = name.length <= 3 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const dist = editDistance(name, k);
    if (dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  // cut short: `print_width` -> `print_width_inches` (only when exactly one flag begins so)
  const longer = name.length >= 3 ? known.filter((k) => k.startsWith(name)) : [];
  return longer.length === 1 ? longer[0] : undefined;
}

/**
 * Throw a UsageError naming every flag of `flags` not in `known` (`where`: the verb, for the message), with
 * a did-you-mean for each close one; the error line carries the first as `option` (and `suggestion`).
 */
export function rejectUnknownFlags(flags: Readonly<Record<string, string | true>>, known: readonly string[], where: string, usage?: string): void {
  const unknown = Object.keys(flags).filter((f) => !known.includes(f));
  if (unknown.length === 0) return;
  const parts = unknown.map((f) => {
    const near = nearestFlag(f, known);
    return { flag: flagText(f), near: near === undefined ? undefined : flagText(near) };
  });
  const first = parts[0]!;
  const message = parts.length === 1
    ? `unknown option ${first.flag} for ${where}${first.near ? `; did you mean ${first.near}?` : ''}`
    : `unknown options ${parts.map((p) => (p.near ? `${p.flag} (did you mean ${p.near}?)` : p.flag)).join(', ')} for ${where}`;
  throw new UsageError(message, usage, { option: first.flag, ...(first.near ? { suggestion: first.near } : {}) });
}
