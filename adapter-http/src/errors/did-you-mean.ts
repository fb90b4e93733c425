// The known name a mistyped one most likely meant, for "did you mean ...?" in error messages: the CLI's
// unknown flags and commands, and the HTTP API's unknown fields under `Prefer: handling=strict`.

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

/** Names longer than this are never matched (the distance table is quadratic in the name's length). */
const MAX_COMPARED = 64;

/** The known name `name` is most likely a typo of, or undefined when none is close. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  if (name.length > MAX_COMPARED) return undefined;
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
  // cut short: `print_width` -> `print_width_inches` (only when exactly one name begins so)
  const longer = name.length >= 3 ? known.filter((k) => k.startsWith(name)) : [];
  return longer.length === 1 ? longer[0] : undefined;
}
