// Fetching a supplier's garment photo for the mockup (spec 2.8 images.front/back): one GET with a
// deadline and a size cap, answers cached in memory (a customer tries several designs on one colour).
// Failures are returned as a reason, never thrown: the mockup then falls back to the own silhouette with
// a warning.

/** Largest photo accepted, bytes. */
export const MAX_PHOTO_BYTES = 15 * 1024 * 1024;
const CACHE_BYTES = 96 * 1024 * 1024;

const cache = new Map<string, Uint8Array>();
let cached = 0;

export type PhotoFetch = { ok: true; bytes: Uint8Array } | { ok: false; reason: string };

/** Time a photo's body gets beyond the supplier deadline, ms. */
const BODY_MS = 2000;

/**
 * GET the photo at `url` (http or https only) within `supplierTimeoutMs` (the catalogue's supplier deadline,
 * INKPREP_SUPPLIER_TIMEOUT_MS) plus 2 s for the body.
 */
export async function fetchGarmentPhoto(url: string, supplierTimeoutMs: number, signal?: AbortSignal): Promise<PhotoFetch> {
  const hit = cache.get(url);
  if (hit) {
    cache.delete(url);
    cache.set(url, hit);
    return { ok: true, bytes: hit };
  }
  if (!/^https?:\/\//i.test(url)) return { ok: false, reason: 'the supplier gave no usable photo address' };
  const timeout = AbortSignal.timeout(supplierTimeoutMs + BODY_MS);
  try {
    const res = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, reason: `the photo address answered HTTP ${res.status}` };
    }
    const len = Number(res.headers.get('content-length'));
    if (Number.isFinite(len) && len > MAX_PHOTO_BYTES) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, reason: `the photo is larger than ${MAX_PHOTO_BYTES / 1024 / 1024} MB` };
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > MAX_PHOTO_BYTES) return { ok: false, reason: `the photo is larger than ${MAX_PHOTO_BYTES / 1024 / 1024} MB` };
    cache.set(url, bytes);
    cached += bytes.length;
    for (const [k, v] of cache) {
      if (cached <= CACHE_BYTES) break;
      cache.delete(k);
      cached -= v.length;
    }
    return { ok: true, bytes };
  } catch (err) {
    if (timeout.aborted) return { ok: false, reason: `the photo did not arrive within ${supplierTimeoutMs + BODY_MS} ms` };
    return { ok: false, reason: `the photo could not be fetched (${err instanceof Error ? err.message : String(err)})` };
  }
}
