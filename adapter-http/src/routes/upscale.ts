// POST /api/v1/upscale (spec 4.5 -> 2.5 JSON) and the GET routes that serve its results.
// The image is upscaled by the engine op `upscale` at the live budgets (settings.ts), written to the result
// storage and served at an unguessable URL (routes/hosted-output.ts): `output_hosted_by: service`,
// `output_url_expires: false`; after a storage failure a short-lived link (`output_hosted_by: provider`,
// `output_url_expires: true`, plus `output_url_expires_at`). The GET routes here serve every hosted result
// (POST /mockup/batch's images too).
import { resolveOptions, type Resolved } from '@inkprep/engine';
import { binary, errorJson, json } from '../http/reply.js';
import { getUpscaleLimits } from '../settings.js';
import type { AppServices } from '../services.js';
import { hostingFor } from '../storage/index.js';
import { asStoreError } from '../store/unavailable.js';
import { formOptions, getRoute, postImageRoute, type RouteDef } from './define.js';
import { HELD_PREFIX, hostOutput, RESULTS_PREFIX } from './hosted-output.js';

export { RESULTS_PREFIX, HELD_PREFIX };

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
    const hosted = await hostOutput(app, ex.log, { bytes: out.data, contentType: out.contentType });
    if (!hosted.expires) {
      const reply = json({ output_url: hosted.url, ...base, output_hosted_by: 'service', output_url_expires: false });
      // A retried request (Idempotency-Key) gets this link while the result is kept (INKPREP_RESULT_RETENTION_DAYS).
      const retention = app.config.store.resultRetentionMs;
      return retention === null ? reply : { ...reply, keepFor: retention };
    }
    const reply = json({
      output_url: hosted.url,
      ...base,
      output_hosted_by: 'provider',
      output_url_expires: true,
      output_url_expires_at: new Date(hosted.expiresAt).toISOString(),
    });
    // A retried request (Idempotency-Key) gets this link only while it is held.
    return { ...reply, keepFor: Math.max(0, hosted.expiresAt - Date.now()) };
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
