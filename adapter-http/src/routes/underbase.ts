// POST /api/v1/underbase: engine op `underbase` (the white plate, the knock-out and the separation PDF).
// pdf and png answers carry the numbers in X- headers; json carries both plates in base64 beside them.
// The garment colour is a hex value or a catalog style's colour: own styles resolve with the other fields
// (400 before metering), supplier styles once the catalog answers (as POST /mockup).
import type { UnderbaseResult } from '@inkprep/engine';
import { binary, json, type Reply } from '../http/reply.js';
import { underbaseWire } from '../http/wire.js';
import { postImageRoute, type RouteDef } from './define.js';
import { resolveStyled, validateStyled, type StyledFields } from './garment-style.js';

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

function reply(out: UnderbaseResult): Reply {
  return out.requested === 'json' ? json(underbaseWire(out)) : binary(out.data, out.contentType, headers(out));
}

export const underbaseRoute: RouteDef = postImageRoute<StyledFields<'underbase'>>({
  path: '/api/v1/underbase',
  options: 'underbase',
  validate: (fields) => validateStyled('underbase', fields),
  async handle({ app, image, options, signal }) {
    const { resolved } = await resolveStyled(app, 'underbase', options, signal);
    return reply(await app.engine.underbase(image, resolved, { signal, transfer: true }));
  },
});
