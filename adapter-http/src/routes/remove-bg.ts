// POST /api/v1/remove-bg (spec 4.3): PNG or JPEG, at most `remove_bg.maxPixels` (25 MP, live setting,
// checked from the header before any pixel is decoded), returns image/png with straight alpha from the
// engine op `removeBg`. Metered: per-key daily + the account's remove-bg fair use (rolling 24 h) + the
// monthly provider allowance (429 fair_use_exceeded, `period: "month"`). Headers: X-Method (matte | model
// | alpha), X-Warnings (the op's warnings joined by " | ", empty when none), X-Width, X-Height.
// Only the `image` part is used: no field reaches the op (a client can never choose a model file).
import { binary } from '../http/reply.js';
import type { AppServices } from '../services.js';
import { getSetting } from '../settings.js';
import { postImageRoute, type RouteDef } from './define.js';

/** Largest remove-bg input for this server: the live setting, never above the server's decode limit. */
async function maxPixelsFor(app: AppServices): Promise<number> {
  return Math.min(await getSetting(app.store, 'remove_bg.maxPixels'), app.config.maxPixels);
}

export const removeBgRoute: RouteDef = postImageRoute<Record<string, never>>({
  path: '/api/v1/remove-bg',
  formats: ['png', 'jpeg'],
  meter: { fairUse: 'remove_bg' },
  maxPixels: ({ app }) => maxPixelsFor(app),
  options: 'removeBg', // its table offers no field over HTTP
  validate: () => ({}),
  async handle({ app, image, signal }) {
    const out = await app.engine.removeBg(image, {}, { signal, maxPixels: await maxPixelsFor(app), transfer: true });
    return binary(out.data, out.contentType, {
      'X-Method': out.method,
      'X-Warnings': out.warnings.join(' | '),
      'X-Width': String(out.width),
      'X-Height': String(out.height),
    });
  },
});
