// POST /api/v1/gangsheet: engine op `gangsheet` (designs nested on a DTF film roll). The design files come as
// the repeated file field `design` (this route alone accepts a repeated file field), the order as the JSON
// field `items`. pdf and png answers carry the manifest's numbers in X- headers; json is the manifest. With
// `underbase=true` the PDF holds the White separation and png answers a zip of the colour and white plate PNGs.
// The white layer's garment is a hex value or a catalog style's colour, as on POST /underbase: own styles
// resolve with the other fields (400 before metering), supplier styles once the catalog answers.
// Metered once per request, like fix, whatever the number of designs or copies.
import { packDesigns, type GangsheetResult } from '@inkprep/engine';
import { GANGSHEET_LIMITS, manifestJson } from '@inkprep/engine/internals';
import { binary, json } from '../http/reply.js';
import { postImageRoute, type RouteDef } from './define.js';
import { resolveStyled, validateStyled, type StyledFields } from './garment-style.js';

function headers(out: GangsheetResult): Record<string, string> {
  const l = out.layout;
  return {
    'X-Sheets': String(l.sheets.length),
    // comma list, one length per sheet in inches
    'X-Sheet-Lengths-In': l.sheets.map((s) => s.lengthIn).join(','),
    'X-Utilisation': String(l.utilisation),
    'X-Copies': String(l.placements.length),
    'X-Fast-Placed': String(l.fastPlaced),
    ...(out.pngDpi !== undefined ? { 'X-DPI': String(out.pngDpi) } : {}),
    'X-Warnings': [...new Set(l.warnings.map((w) => w.code))].join(','),
    // the white layer: its spot name and white ink over every copy (absent without underbase=true)
    ...(l.white ? { 'X-White-Spot': l.white.spotName, 'X-White-Ink-Sq-In': String(l.white.whiteInkSqIn) } : {}),
  };
}

export const gangsheetRoute: RouteDef = postImageRoute<StyledFields<'gangsheet'>>({
  path: '/api/v1/gangsheet',
  options: 'gangsheet',
  // up to 50 designs, all of them together within the upload limit (50 MB by default); `items` up to 64 KiB
  repeatedFile: { name: 'design', max: GANGSHEET_LIMITS.maxDesigns, maxFieldBytes: 64 * 1024, pack: packDesigns },
  validate: (fields) => validateStyled('gangsheet', fields),
  async handle({ app, image, options, signal }) {
    const { resolved } = await resolveStyled(app, 'gangsheet', options, signal);
    // the engine is not handed the signal, as for the op routes (image-route.ts: abortEngine)
    const out = await app.engine.gangsheet(image, resolved, { maxPixels: app.config.maxPixels, transfer: true });
    return out.requested === 'json' ? json(manifestJson(out.layout)) : binary(out.data, out.contentType, headers(out));
  },
});
