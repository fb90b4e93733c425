// The private mark of a resolved options value. The adapter resolves a request's options once, at the
// boundary (`resolveOptions` in ops/registry.ts), and hands the engine the result; `engine.run` recognises the
// mark and does not resolve again. The mark is a module-private WeakMap: an object literal, a structured
// clone or a spread copy is never marked, so anything else is validated as before.
const marks = new WeakMap<object, string>();

/** Mark `value` as op `op`'s resolved options (the value is frozen by its resolver). */
export function markResolved<T extends object>(op: string, value: T): T {
  marks.set(value, op);
  return value;
}

/** True when `value` was marked by `markResolved(op, ...)` in this thread. */
export function isMarkedResolved(op: string, value: unknown): boolean {
  return typeof value === 'object' && value !== null && marks.get(value) === op;
}
