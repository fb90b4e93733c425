// Self-description of parsing that has no option table: every parse helper (options/validate.ts) notes the
// field it reads (name, kind, default, range, allowed values) before reading it. `describeFields(run)` runs a
// validation with a recorder switched on and returns what it read, so the query parameters of the GET routes
// are documented by the code that validates them (adapter-http/src/openapi). The ops' options are declared in
// tables instead (options/table.ts), whose `FieldSpec`s say the same without running anything. Parsers are
// synchronous, so one module-level recorder is enough; outside describeFields noting costs one null check.

/** How a field's value is parsed. */
export type FieldKind = 'number' | 'integer' | 'enum' | 'bool' | 'text';

/** One field as a parse helper read it. */
export interface FieldSpec {
  field: string;
  kind: FieldKind;
  /** The value used when the field is not sent (absent: no default, or one that depends on other fields). */
  default?: number | string | boolean;
  /** Inclusive range of `number` / `integer`. */
  min?: number;
  max?: number;
  /** Allowed words (`enum`), or allowed numbers (`integer` choices such as scale 2 or 4). */
  values?: readonly (string | number)[];
  /** Words accepted besides a number (vectorize `colors`: auto, unlimited; mockup `fabric`: false). */
  words?: readonly string[];
  /** The request fails without it. */
  required?: boolean;
  /** Defaults seen differ between the described runs: the default depends on other fields. */
  defaultVaries?: boolean;
}

let recorder: ((spec: FieldSpec) => void) | null = null;

/** Called by the parse helpers (and custom parsers) before they read `spec.field`. */
export function noteField(spec: FieldSpec): void {
  recorder?.(spec);
}

/**
 * Run `run` once per probe with the recorder on and return the fields read, in first-read order. The first
 * note of a field within a run wins (a custom parser notes before delegating to a helper). Across probes
 * fields are merged; a default that differs between probes is dropped and flagged `defaultVaries`. A probe
 * that throws (a branch needing fields the probe lacks) still contributes what it read before throwing.
 */
export function describeFields<P>(run: (probe: P) => unknown, probes: readonly P[]): FieldSpec[] {
  const merged = new Map<string, FieldSpec>();
  for (const probe of probes) {
    const seen = new Map<string, FieldSpec>();
    const outer = recorder;
    recorder = (s) => {
      if (!seen.has(s.field)) seen.set(s.field, s);
    };
    try {
      run(probe);
    } catch {
      // described as far as it ran
    } finally {
      recorder = outer;
    }
    for (const [field, s] of seen) {
      const prev = merged.get(field);
      if (!prev) merged.set(field, { ...s });
      else if (prev.default !== s.default || prev.defaultVaries) {
        const { default: _d, ...rest } = prev;
        merged.set(field, { ...rest, defaultVaries: true, ...(prev.required && s.required ? { required: true } : {}) });
      } else if (prev.required && !s.required) {
        const { required: _r, ...rest } = prev;
        merged.set(field, rest);
      }
    }
  }
  return [...merged.values()];
}
