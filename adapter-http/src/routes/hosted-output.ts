// A result file put where a client fetches it by URL (the JSON answers of POST /upscale and /mockup/batch):
// written to the result storage (storage/, local disk by default) and served at an unguessable URL that stays
// valid (`hosted_by: service`, not expiring); when the storage write fails, kept in this process's holder
// for DEFAULT_HOLD_MS (15 min) instead (`hosted_by: provider`, expiring at `expiresAt`), so a storage outage
// costs a short-lived link, not the work.
import type { Logger } from '../log.js';
import type { AppServices } from '../services.js';
import { hostingFor } from '../storage/index.js';

/** Path prefix of hosted (lasting) results. */
export const RESULTS_PREFIX = '/api/v1/upscale/results/';
/** Path prefix of held (short-lived) results. */
export const HELD_PREFIX = '/api/v1/upscale/held/';

/** Where a result went. */
export type HostedOutput =
  | { url: string; hostedBy: 'service'; expires: false; expiresAt: null }
  | { url: string; hostedBy: 'provider'; expires: true; expiresAt: number };

/** Absolute URL when the config has a public URL (`INKPREP_PUBLIC_URL`, e.g. https://api.example.com), else the path. */
function publicUrl(app: AppServices, pathname: string): string {
  const base = app.config.publicUrl;
  return base ? `${base}${pathname}` : pathname;
}

/** Store `bytes` and give its URL; a failed storage write falls back to the holder (logged at warn). */
export async function hostOutput(app: AppServices, log: Logger, file: { bytes: Uint8Array; contentType: string }): Promise<HostedOutput> {
  const hosting = hostingFor(app.config.dataDir, app.config.store.resultRetentionMs);
  try {
    const key = await hosting.storage.put(file);
    return { url: publicUrl(app, RESULTS_PREFIX + key), hostedBy: 'service', expires: false, expiresAt: null };
  } catch (err) {
    log.warn('result storage write failed; returning a short-lived link', { storage: hosting.storage.kind, err: err instanceof Error ? err.message : String(err) });
    const held = hosting.holder.put(file);
    return { url: publicUrl(app, HELD_PREFIX + held.key), hostedBy: 'provider', expires: true, expiresAt: held.expiresAt };
  }
}
