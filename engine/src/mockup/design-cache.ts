// The resampled designs of recent mockups by (content hash, size), per worker and process-wide: a customer
// trying colours, sizes and views of one design pays the decode+resample once. Kept in the thread's one memory
// cache (cache/memory.ts), within its budget beside the blanks.
import { memoryCacheClear, memoryCacheGet, memoryCachePut } from '../cache/memory.js';
import type { Raster } from '../raster/types.js';

const PREFIX = 'design:';
/**
 * Bytes counted per pixel. Entries are read-only; the composite's prepared planes hang off the same Raster
 * (see compositeDesign), so they are counted here too.
 */
const BYTES_PER_PX = 20;

/** The cached design under `key`, now the most recently used. */
export function designCacheGet(key: string): Raster | undefined {
  return memoryCacheGet<Raster>(PREFIX + key);
}

/** Keep `r` under `key` (not when it would take over half the budget: it would push the blanks out). */
export function designCachePut(key: string, r: Raster): void {
  memoryCachePut(PREFIX + key, r, r.width * r.height * BYTES_PER_PX, { maxShare: 0.5 });
}

/** Drop the resampled-design cache (benches measuring a new design each call). */
export function clearMockupDesignCache(): void {
  memoryCacheClear(PREFIX);
}
