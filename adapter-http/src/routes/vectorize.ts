// POST /api/v1/vectorize (spec 4.8): raster -> SVG (or PDF, EPS, DXF: `output_format`, served with its own
// Content-Type) through the one-at-a-time line. 25 MB upload limit
// (413 `image_too_large` while streaming), PNG/JPEG/WebP, options validated by the engine op `vectorize`,
// 429 `queue_full` with the live snapshot when the line is full. Stat headers: X-Paths, X-Colors-Used,
// X-Trace-Ms, X-Queue-Ms. The status read GET /api/v1/vectorize is in status.ts.
import { binary } from '../http/reply.js';
import { postImageRoute, type RouteDef } from './define.js';

export const vectorizeRoute: RouteDef = postImageRoute({
  path: '/api/v1/vectorize',
  op: 'vectorize',
  maxBytes: (app) => app.config.vectorizeMaxBytes,
  formats: ['png', 'jpeg', 'webp'],
  queue: 'vectorize',
  abortEngine: true, // one task at a time, seconds long: a client that leaves stops it
  respond: (r, call) => binary(r.data, r.contentType, {
    'X-Paths': String(r.paths),
    'X-Colors-Used': String(r.colorsUsed),
    'X-Trace-Ms': String(Math.round(r.traceMs)),
    'X-Queue-Ms': String(Math.round(call.queueMs)),
  }),
});
