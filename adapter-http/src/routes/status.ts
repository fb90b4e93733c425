// Unmetered status reads (spec 4.4, 4.6, 4.7): authenticated like every call, counted against nothing.
import { JSON_TYPE, json } from '../http/reply.js';
import { fairUseStatus } from '../limits/meter.js';
import { readiness } from '../readiness.js';
import { getSetting, getUpscaleLimits, UPSCALE_SHRINK_ALLOWANCE } from '../settings.js';
import type { QueueSnapshot } from '../queue/vectorize-queue.js';
import type { Reply } from '../http/reply.js';
import { getRoute, type RouteDef } from './define.js';

// Hand-built (hot path, polled by clients): same bytes as JSON.stringify(snapshot).
function snapshotReply({ queue: q }: QueueSnapshot): Reply {
  return { status: 200, contentType: JSON_TYPE, body: '{"queue":{"converting":' + q.converting + ',"waiting":' + q.waiting + ',"max_waiting":' + q.max_waiting + '}}' };
}

/** GET /api/v1/vectorize: the live line `{ queue: { converting, waiting, max_waiting } }`. */
export const vectorizeStatusRoute: RouteDef = getRoute({
  path: '/api/v1/vectorize',
  handle: ({ app }) => {
    // The in-process line answers synchronously (no promise hop); the PostgreSQL line reads the shared rows.
    const snap = app.vectorizeQueue.snapshot();
    return snap instanceof Promise ? snap.then(snapshotReply) : snapshotReply(snap);
  },
});

/** GET /api/v1/remove-bg: `{ maxPixels, fairUsePerDay, fairUseUsed, fairUseRemaining }` (null = uncapped). */
export const removeBgStatusRoute: RouteDef = getRoute({
  path: '/api/v1/remove-bg',
  handle: async ({ app, caller, now }) => json({
    maxPixels: await getSetting(app.store, 'remove_bg.maxPixels'),
    ...(await fairUseStatus(app.store, caller!.account, 'remove_bg', now)),
  }),
});

/** GET /api/v1/upscale: caps and budgets read live from the settings, plus fair use (null for uncapped and admin accounts). */
export const upscaleStatusRoute: RouteDef = getRoute({
  path: '/api/v1/upscale',
  handle: async ({ app, caller, now }) => json({
    ...(await getUpscaleLimits(app.store)),
    autoShrink: true,
    shrinkAllowance: UPSCALE_SHRINK_ALLOWANCE,
    scales: [2, 4],
    ...(await fairUseStatus(app.store, caller!.account, 'upscale', now)),
  }),
});

/** GET /healthz: liveness without auth (`{ status: "ok" }`, or 503 `draining` during shutdown). */
export const healthRoute: RouteDef = getRoute({
  path: '/healthz',
  auth: false,
  handle: ({ app }) => (app.draining() ? json({ status: 'draining' }, 503) : json({ status: 'ok' })),
});

/** GET /readyz: readiness without auth: 200 `{ status: "ready", store, engine }` or 503 (see readiness.ts). */
export const readyRoute: RouteDef = getRoute({
  path: '/readyz',
  auth: false,
  handle: async ({ app }) => json(await readiness(app)),
});
