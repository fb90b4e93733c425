// POST /api/v1/underbase: engine op `underbase` (the white plate, the knock-out and the separation PDF).
// pdf and png answers carry the numbers in X- headers; json carries both plates in base64 beside them.
// The garment colour is a hex value or a catalog style's colour: own styles resolve with the other fields
// (400 before metering), supplier styles once the catalog answers (as POST /mockup).
import { resolveOptions, type Resolved, type UnderbaseResult } from '@inkprep/engine';
// Internal: the engine's parse helper reads the style field by the op's own rules.
import { validate } from '@inkprep/engine/internals';
import { binary, json, type Reply } from '../http/reply.js';
import { underbaseWire } from '../http/wire.js';
import { formOptions, postImageRoute, type RouteDef } from './define.js';
import { catalogOf } from './mockup.js';

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

/** The form once validated: resolved, or waiting for the catalog (a supplier style). */
interface UnderbaseFields {
  fields: Record<string, string>;
  resolved: Resolved<'underbase'> | null;
}

export const underbaseRoute: RouteDef = postImageRoute<UnderbaseFields>({
  path: '/api/v1/underbase',
  options: 'underbase',
  validate(fields) {
    const style = validate.textValue('style', fields.style);
    const own = !style || /^own:/i.test(style) || !style.includes(':');
    return { fields, resolved: own ? resolveOptions('underbase', formOptions('underbase', fields)) : null };
  },
  async handle({ app, image, options, signal }) {
    let resolved = options.resolved;
    if (!resolved) {
      const supplier_style = await catalogOf(app).garmentFor(options.fields.style ?? '', signal);
      resolved = resolveOptions('underbase', formOptions('underbase', options.fields, supplier_style ? { supplier_style } : {}));
    }
    return reply(await app.engine.underbase(image, resolved, { signal, transfer: true }));
  },
});
