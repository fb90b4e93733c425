// The one in-memory cache of a thread (an engine worker, or the calling thread of an in-thread engine): blank
// renders, coloured and resampled blanks, prepared garment photos and resampled designs share one byte budget
// and one least-recently-used order, so what a thread pins is bounded by one number (EngineOptions.memoryCacheMb
// split between the pool's threads, see engine.ts) whatever mix of requests it serves. One budget instead of one
// per kind: a thread serving only photo mockups gives the photos the whole budget, and an operator sizes one
// figure. Entries are read-only values shared with their callers; evicting one only drops our reference.

const MB = 1024 * 1024;

/** Budget of a thread that was told none (pure op functions called directly, benches): the engine's default. */
export const DEFAULT_MEMORY_CACHE_MB = 256;

interface Entry {
  v: unknown;
  bytes: number;
}

// Map insertion order is the recency order: a hit moves the entry to the end, eviction takes from the front.
const entries = new Map<string, Entry>();
let total = 0;
let limit = DEFAULT_MEMORY_CACHE_MB * MB;

function evictToFit(max: number): void {
  for (const [k, e] of entries) {
    if (total <= max) break;
    entries.delete(k);
    total -= e.bytes;
  }
}

/** Set this thread's budget (bytes; 0 keeps nothing), dropping the least recently used entries above it. */
export function setMemoryCacheBytes(bytes: number): void {
  limit = Math.max(0, Math.floor(bytes));
  evictToFit(limit);
}

/** The cached value under `key`, now the most recently used; undefined when absent. */
export function memoryCacheGet<V>(key: string): V | undefined {
  const e = entries.get(key);
  if (!e) return undefined;
  entries.delete(key);
  entries.set(key, e);
  return e.v as V;
}

/**
 * Keep `v` under `key`, counted as `bytes` (everything it keeps alive, including arrays it shares with other
 * entries: counting them twice errs on the safe side). A value over `maxShare` of the budget is not kept at all
 * (it would push out everything else; the caller still has it), so the total never exceeds the budget.
 */
export function memoryCachePut(key: string, v: unknown, bytes: number, maxShare = 1): void {
  const old = entries.get(key);
  if (old) {
    entries.delete(key);
    total -= old.bytes;
  }
  if (bytes > limit * maxShare) return;
  evictToFit(limit - bytes);
  entries.set(key, { v, bytes });
  total += bytes;
}

/** Drop the entries whose key starts with `prefix` (all of them without one). */
export function memoryCacheClear(prefix = ''): void {
  for (const [k, e] of entries) {
    if (!k.startsWith(prefix)) continue;
    entries.delete(k);
    total -= e.bytes;
  }
}

/** What this thread's cache holds: bytes counted, entries, and the budget (bytes). */
export interface MemoryCacheStats {
  bytes: number;
  entries: number;
  limitBytes: number;
}

/** This thread's cache now (for tests, benches and the operator's numbers). */
export function memoryCacheStats(): MemoryCacheStats {
  return { bytes: total, entries: entries.size, limitBytes: limit };
}
