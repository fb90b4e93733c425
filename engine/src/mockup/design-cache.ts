// The resampled designs of recent mockups by (content hash, size), per worker and process-wide: a customer
// trying colours, sizes and views of one design pays the decode+resample once. A byte-bounded LRU over the
// Map's insertion order.
import type { Raster } from '../raster/types.js';

/**
 * Budget of the cache. Entries are read-only; the composite's prepared planes hang off the same Raster (see
 * compositeDesign), so they are counted here too (20 bytes per pixel).
 */
const DESIGN_CACHE_BYTES = 128 * 1024 * 1024;
const designCache = new Map<string, { r: Raster; bytes: number }>();
let designCacheTotal = 0;
/** The cached design under `key`, now the most recently used. */
export function designCacheGet(key: string): Raster | undefined {
  const e = designCache.get(key);
  if (!e) return undefined;
  designCache.delete(key);
  designCache.set(key, e);
  return e.r;
}

/** Keep `r` under `key` (not when it would take over half the budget), dropping the least recently used. */
export function designCachePut(key: string, r: Raster): void {
  const bytes = r.width * r.height * 20;
  if (bytes > DESIGN_CACHE_BYTES / 2) return;
  designCache.set(key, { r, bytes });
  designCacheTotal += bytes;
  for (const [k, e] of designCache) {
    if (designCacheTotal <= DESIGN_CACHE_BYTES) break;
    designCache.delete(k);
    designCacheTotal -= e.bytes;
  }
}

/** Drop the resampled-design cache (benches measuring a new design each call). */
export function clearMockupDesignCache(): void {
  designCache.clear();
  designCacheTotal = 0;
}
