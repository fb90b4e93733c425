// POST /api/v1/upscale (spec 4.5 -> 2.5 JSON) and the GET routes that serve its results.
// The image is upscaled by the engine op `upscale` at the live budgets (settings.ts), written to the result
// storage (storage/, local disk by default) and served at an unguessable URL that stays valid
// (`output_hosted_by: service`, `output_url_expires: false`). When the storage write fails the image is kept
// in the in-process holder for DEFAULT_HOLD_MS (15 min) instead (`output_hosted_by: provider`,
// `output_url_expires: true`, plus `output_url_expires_at`).
import { resolveOptions, type Resolved } from '@inkprep/engine';
import { binary, errorJson, json } from '../http/reply.js';
import { getUpscaleLimits } from '../settings.js';
import type { AppServices } from '../services.js';
import { hostingFor } from '../storage/index.js';
import { asStoreError } from '../store/unavailable.js';
import { formOptions, getRoute, postImageRoute, type RouteDef } from './define.js';

/** Path prefix of hosted (lasting) results. */
export const RESULTS_PREFIX = '/api/v1/upscale/results/';
/** Path prefix of held (short-lived) results. */
export const HELD_PREFIX = '/api/v1/upscale/held/';


/** Absolute URL when the config has a public URL (`INKPREP_PUBLIC_URL`, e.g. https://api.example.com), else the path. */
function publicUrl(app: AppServices, pathname: string): string {
  const base = app.config.publicUrl;
  return base ? `${base}${pathname}` : pathname;
}

export const upscaleRoute: RouteDef = postImageRoute<Resolved<'upscale'>>({
  path: '/api/v1/upscale',
  formats: ['png', 'jpeg'],
  meter: { fairUse: 'upscale' },
  // The table's HTTP field (`scale`: 2 or 4, decimal text, default 4); the budgets are the live settings below.
  options: 'upscale',
  validate: (fields) => resolveOptions('upscale', formOptions('upscale', fields)),
  // 413 `image_too_large` with maxPixels (budget x 4 for the scale, read live) and pixels, from the header.
  maxPixels: async ({ app, options }) => {
    const l = await getUpscaleLimits(app.store);
    return options.scale === 4 ? l.maxPixels4x : l.maxPixels;
  },
  async handle({ app, image, options, signal, ex }) {
    const limits = await getUpscaleLimits(app.store);
    const out = await app.engine.upscale(image, { scale: options.scale, budget: limits.budget, budget4x: limits.budget4x }, { signal, transfer: true });
    const hosting = hostingFor(app.config.dataDir, app.config.store.resultRetentionMs);
    const base = {
      scale: out.scale,
      preShrunk: out.preShrunk,
      from: out.from,
      to: out.to,
      effectiveScale: out.effectiveScale,
      width: out.width,
      height: out.height,
      route: out.route,
    };
    try {
      const key = await hosting.storage.put({ bytes: out.data, contentType: out.contentType });
      const reply = json({ output_url: publicUrl(app, RESULTS_PREFIX + key), ...base, output_hosted_by: 'service', output_url_expires: false });
      // A retried request (Idempotency-Key) gets this link while the result is kept (INKPREP_RESULT_RETENTION_DAYS).
      const retention = app.config.store.resultRetentionMs;
      return retention === null ? reply : { ...reply, keepFor: retention };
    } catch (err) {
      ex.log.warn('result storage write failed; returning a short-lived link', { storage: hosting.storage.kind, err: err instanceof Error ? err.message : String(err) });
      const held = hosting.holder.put({ bytes: out.data, contentType: out.contentType });
      const reply = json({
        output_url: publicUrl(app, HELD_PREFIX + held.key),
        ...base,
        output_hosted_by: 'provider',
        output_url_expires: true,
        output_url_expires_at: new Date(held.expiresAt).toISOString(),
      });
      // A retried request (Idempotency-Key) gets this link only while it is held.
      return { ...reply, keepFor: Math.max(0, held.expiresAt - Date.now()) };
    }
  },
});

function notFound(): ReturnType<typeof json> {
  return errorJson('not_found', 'No such result (unknown key, or a short-lived link that expired)');
}

/** GET /api/v1/upscale/results/<key>: a hosted result. No API key needed: the key is the secret. */
export const upscaleResultRoute: RouteDef = getRoute({
  path: `${RESULTS_PREFIX}:key`,
  auth: false,
  async handle({ ex, app }) {
    // PostgreSQL result hosting shares the store's database: while it is away, 503 store_unavailable (not 500).
    const obj = await hostingFor(app.config.dataDir, app.config.store.resultRetentionMs).storage.get(decodeURIComponent(ex.path.slice(RESULTS_PREFIX.length)))
      .catch((err: unknown) => Promise.reject(asStoreError(err)));
    if (!obj) return notFound();
    return binary(obj.bytes, obj.contentType, { 'Cache-Control': 'public, max-age=31536000, immutable' });
  },
});

/** GET /api/v1/upscale/held/<key>: a short-lived result held in this process after a storage failure. */
export const upscaleHeldRoute: RouteDef = getRoute({
  path: `${HELD_PREFIX}:key`,
  auth: false,
  async handle({ ex, app, now }) {
    const obj = hostingFor(app.config.dataDir, app.config.store.resultRetentionMs).holder.get(decodeURIComponent(ex.path.slice(HELD_PREFIX.length)));
    if (!obj) return notFound();
    return binary(obj.bytes, obj.contentType, { 'Cache-Control': `private, max-age=${Math.max(0, Math.floor((obj.expiresAt - now) / 1000))}` });
  },
});
