// POST /api/v1/underbase: engine op `underbase` (the white plate, the knock-out and the separation PDF).
// pdf and png answers carry the numbers in X- headers; json carries both plates in base64 beside them.
import type { UnderbaseResult } from '@inkprep/engine';
import { binary, json } from '../http/reply.js';
import { underbaseWire } from '../http/wire.js';
import { postImageRoute, type RouteDef } from './define.js';

function headers(out: UnderbaseResult): Record<string, string> {
  return {
    'X-Width': String(out.width),
    'X-Height': String(out.height),
    'X-DPI': String(out.dpi),
    'X-White-Coverage': String(out.stats.whiteCoveragePercent),
    'X-White-Ink-Sq-In': String(out.stats.whiteInkSqIn),
    'X-Color-Ink-Sq-In': String(out.stats.colourInkSqIn),
    'X-Knocked-Out-Sq-In': String(out.stats.knockedOutSqIn),
    // comma list of warning codes, empty when none (as on POST /fix and /mockup)
    'X-Warnings': out.warnings.map((w) => w.code).join(','),
  };
}

export const underbaseRoute: RouteDef = postImageRoute({
  path: '/api/v1/underbase',
  op: 'underbase',
  respond: (out) => (out.requested === 'json' ? json(underbaseWire(out)) : binary(out.data, out.contentType, headers(out))),
});
