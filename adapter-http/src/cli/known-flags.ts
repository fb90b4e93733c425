// Every verb rejects the flags it does not take (exit 2, one usage error line naming them), never ignores
// them: a misspelt `--colours 8` silently dropped would run with the default and look like a bad result.
// A close known flag is offered as `suggestion` (errors/did-you-mean.ts: edit distance, or the one flag a
// cut-short name begins).
import { nearestName } from '../errors/did-you-mean.js';
import { UsageError } from './command.js';

/** `print_width_inches` -> `--print-width-inches`; a kept short option (`-x`) as it was typed. */
export function flagText(name: string): string {
  return name.startsWith('-') ? name : `--${name.replace(/_/g, '-')}`;
}

/** The known flag `name` is most likely a typo of, or undefined when none is close. */
export function nearestFlag(name: string, known: readonly string[]): string | undefined {
  return name.startsWith('-') ? undefined : nearestName(name, known);
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
