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
  /** The entry whose arrays this value shares (counted there, not here). */
  parent?: string;
  /** Entries that share this one's arrays: they go when it goes. */
  children?: Set<string>;
}

// Map insertion order is the recency order: a hit moves the entry to the end, eviction takes from the front.
const entries = new Map<string, Entry>();
let total = 0;
let limit = DEFAULT_MEMORY_CACHE_MB * MB;

// A child counts only its own bytes, which is honest only while its parent is cached (counted) too: so a
// parent takes its children with it, and a child is never kept without its parent.
function drop(key: string): void {
  const e = entries.get(key);
  if (!e) return;
  entries.delete(key);
  total -= e.bytes;
  if (e.parent !== undefined) entries.get(e.parent)?.children?.delete(key);
  if (e.children) for (const c of e.children) drop(c);
}

function evictToFit(max: number): void {
  // Deleting entries not yet visited (a parent's children) during the walk is safe for a Map.
  for (const k of entries.keys()) {
    if (total <= max) break;
    drop(k);
  }
}

function touch(key: string, e: Entry): void {
  entries.delete(key);
  entries.set(key, e);
}

/** Set this thread's budget (bytes; 0 keeps nothing), dropping the least recently used entries above it. */
export function setMemoryCacheBytes(bytes: number): void {
  limit = Math.max(0, Math.floor(bytes));
  evictToFit(limit);
}

/**
 * The cached value under `key`, now the most recently used; undefined when absent. A child's parent is
 * touched after it, so a parent is always at least as recent as its most recent child and the least recently
 * used children leave before it.
 */
export function memoryCacheGet<V>(key: string): V | undefined {
  const e = entries.get(key);
  if (!e) return undefined;
  touch(key, e);
  if (e.parent !== undefined) {
    const p = entries.get(e.parent);
    if (p) touch(e.parent, p);
  }
  return e.v as V;
}

/** Options of memoryCachePut. */
export interface MemoryCachePutOptions {
  /** Largest share of the budget one value may take (default 1); a larger value is not kept. */
  maxShare?: number;
  /**
   * Key of a cached entry whose arrays `v` shares: `bytes` then counts only what `v` adds, `v` is dropped
   * whenever that entry is, and it is not kept at all when that entry is not cached.
   */
  parent?: string;
}

/**
 * Keep `v` under `key`, counted as `bytes` (everything it keeps alive that no parent entry counts; arrays it
 * shares with entries other than its parent are counted twice, erring on the safe side). A value over `maxShare`
 * of the budget is not kept at all (it would push out everything else; the caller still has it), so the total
 * never exceeds the budget.
 */
export function memoryCachePut(key: string, v: unknown, bytes: number, o: MemoryCachePutOptions = {}): void {
  drop(key);
  if (bytes > limit * (o.maxShare ?? 1)) return;
  if (o.parent !== undefined) {
    const p = entries.get(o.parent);
    if (!p) return;
    touch(o.parent, p); // recent, so making room below takes other entries first
  }
  evictToFit(limit - bytes);
  const p = o.parent === undefined ? undefined : entries.get(o.parent);
  if (o.parent !== undefined && !p) return; // the room was made by dropping the parent itself
  entries.set(key, { v, bytes, ...(o.parent === undefined ? {} : { parent: o.parent }) });
  total += bytes;
  if (p) (p.children ??= new Set()).add(key);
}

/** Drop the entries whose key starts with `prefix` (all of them without one), and their children. */
export function memoryCacheClear(prefix = ''): void {
  for (const k of entries.keys()) if (k.startsWith(prefix)) drop(k);
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

/** Whether `key` is cached, without touching its recency (tests: what the budget kept). */
export function memoryCacheHas(key: string): boolean {
  return entries.has(key);
}
