// The store as the server uses it: every call that fails because the database is away (store/unavailable.ts)
// rejects with 503 `store_unavailable` (Retry-After) instead of the driver's error, which the error map would
// answer as 500 `internal_error`. Other failures pass through unchanged: they are bugs and stay 500.
import { asStoreError } from './unavailable.js';
import type { Store } from './types.js';

/**
 * Wrap a store so outage errors become ServiceError `store_unavailable`; `close` and non-function fields pass
 * through, except the idempotency keys', jobs' and webhooks' methods (`store.idempotency`, `store.jobs`, `store.webhooks`), which are guarded the same way.
 */
export function guardStore<S extends Store>(store: S): S {
  return guardMethods(store, (prop, v) => ((prop === 'idempotency' || prop === 'jobs' || prop === 'webhooks') && typeof v === 'object' && v !== null ? guardMethods(v, () => undefined) : undefined));
}

/** The proxy of guardStore; `nested(prop, value)` may return a guarded stand-in for a non-function field. */
function guardMethods<T extends object>(store: T, nested: (prop: PropertyKey, value: unknown) => unknown): T {
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') {
        if (v === null || typeof v !== 'object') return v;
        if (!cache.has(prop)) cache.set(prop, nested(prop, v) ?? v);
        return cache.get(prop);
      }
      const fn = v as (...a: unknown[]) => unknown;
      if (prop === 'close') return fn.bind(target);
      let w = cache.get(prop);
      if (!w) {
        w = (...args: unknown[]): unknown => {
          let out: unknown;
          try {
            out = fn.apply(target, args);
          } catch (err) {
            throw asStoreError(err); // synchronous stores (SQLite busy past busy_timeout)
          }
          return out instanceof Promise ? out.catch((err: unknown) => Promise.reject(asStoreError(err))) : out;
        };
        cache.set(prop, w);
      }
      return w;
    },
  });
}
