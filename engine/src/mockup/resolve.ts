// The options of `mockup`, declared once (the table below: resolver, typed options, POST /api/v1/mockup form
// fields, `inkprep mockup` flags, the docs' option table), and their resolution (spec 4.12): true-to-size
// mode when `style` is set (placement defaults and limits in inches, the size's chest spec sets the scale),
// legacy box mode otherwise (template_id / garment / placement_id / scale against the template list). The
// style, colour and placement are looked up here, once, into the resolved struct the renderer reads; only
// the fields of the mode in use are read (a legacy field is ignored in true-to-size mode, and the reverse).
import { invalidOption } from '../errors.js';
import {
  defaultColor, findColor, findOwnStyle, OWN_STYLES, PLACEMENT_IDS, PLACEMENTS, placementsFor,
  type OwnStyle, type PlacementId, type PlacementSpec, type SupplierGarment, type View,
} from '../garments/specs.js';
import { findTemplatePlacement, TEMPLATES, type TemplateDef, type TemplatePlacement } from './templates.js';
import type { PreviewFix } from './transparency.js';
import { custom, number, oneOf, text } from '../options/fields.js';
import { defineOptions, type LibOptions, type TableReader, type WireOptions } from '../options/table.js';
import { parseNumber, parseText, type OptionReader } from '../options/validate.js';
import { markResolved } from '../options/resolved.js';

/** `fabric`: a number 0-1, or false (the text `false`) for a flat paste; `true` is refused (spec 4.12). */
function readFabric(o: OptionReader): number | null {
  const f = o.get('fabric');
  if (f === false || (o.text && f === 'false')) return null;
  if (typeof f === 'boolean' || (typeof f === 'string' && /^\s*true\s*$/i.test(f))) {
    throw invalidOption('fabric', 'a number from 0 to 1 or false', f); // spec 4.12: number 0-1 or the text false
  }
  return parseNumber(o, 'fabric', 0.8, 0, 1);
}

const HTTP = ['http'] as const;
const PLACEMENT_DEFAULT = { defaultVaries: true } as const;

const FIELDS = [
  text('style', 'style', 'catalog style key; turns on true-to-size mode'),
  custom<number | false, number | null>()('fabric', 'fabric', {
    spec: { kind: 'number', min: 0, max: 1, words: ['false'], default: 0.8 }, text: '0-1|false', read: readFabric,
  }, 'fabric realism; `false` gives a flat paste'),
  number('output_size', 'outputSize', { min: 400, max: 4000, default: 2000 }, 'long side in pixels'),
  oneOf('preview_fix', 'previewFix', ['none', 'auto', 'alpha_threshold', 'halftone'] as const, 'none', 'preview a transparency fix on the print'),
  number('alpha_threshold', 'alphaThreshold', { min: 0, max: 255, default: 144 }, 'with preview_fix, as POST /fix'),
  number('halftone_lpi', 'halftoneLpi', { min: 15, max: 65, default: 35 }, 'with preview_fix, as POST /fix'),
  oneOf('frame', 'frame', ['native', 'square'] as const, 'native', '`native`: the blank\'s own proportions; `square`: padded to a square'),
  oneOf('format', 'format', ['png', 'jpeg'] as const, 'png', 'the image format'),
  oneOf('response', 'response', ['image', 'json'] as const, 'image', '`image`: the picture with X- headers; `json`: the 2.9 JSON with the image in base64', { surfaces: HTTP }),
  text('template_id', 'templateId', 'legacy: garment id from the template list'),
  text('garment', 'garment', 'legacy: garment by name, case-insensitive'),
  custom<PlacementId | 'center', string | undefined>()('placement_id', 'placementId', { spec: { kind: 'text' }, text: 'ID', read: (o, w) => parseText(o, w) },
    'legacy: placement id from the template list'),
  custom<PlacementId | 'center', string | undefined>()('placement', 'placement', { spec: { kind: 'text' }, text: 'ID', read: (o, w) => parseText(o, w) },
    'left-chest, center-chest, full-front, oversized, right-chest, back-neck, upper-back, full-back (valid ones per style); legacy mode: a placement name, case-insensitive'),
  number('scale', 'scale', { min: 0.1, max: 2, default: 1 }, 'legacy: design size inside the print area'),
  text('color', 'color', 'colour id or name; default black, else the first colour'),
  oneOf('view', 'view', ['front', 'back'] as const, undefined, 'default the placement\'s side', PLACEMENT_DEFAULT),
  number('print_width_in', 'printWidthIn', { min: 0.5, max: 40 }, 'real print width in inches; default the placement\'s standard width', PLACEMENT_DEFAULT),
  number('top_in', 'topIn', { min: 0, max: 30 }, 'inches from the collar to the top of the design; default the placement\'s (3 for most)', PLACEMENT_DEFAULT),
  number('offset_x_in', 'offsetXIn', { min: -20, max: 20 }, 'sideways offset from the centre line in inches; positive is toward the right of the photo; default the placement\'s (4 and -4 on the chests, else 0)', { ...PLACEMENT_DEFAULT, usualDefault: 0 }),
  text('size', 'size', 'garment size shown at true scale'),
  // Typed extras the adapters set (library only, never a form field or flag).
  custom<SupplierGarment, unknown>()('supplier_style', 'supplierStyle', { spec: { kind: 'text' }, text: 'object', read: (o, w) => o.get(w) },
    'a supplier style resolved by the catalog (required when `style` is not an own style)', { surfaces: [] }),
  custom<Uint8Array, unknown>()('garment_photo', 'garmentPhoto', { spec: { kind: 'text' }, text: 'bytes', read: (o, w) => o.get(w) },
    'the supplier\'s photo of the chosen colour and view, drawn on instead of the own blank (supplier styles only)', { surfaces: [] }),
  custom<{ reason: string }, unknown>()('garment_photo_error', 'garmentPhotoError', { spec: { kind: 'text' }, text: 'object', read: (o, w) => o.get(w) },
    'why the supplier\'s photo could not be fetched (the own blank is drawn, with a warning)', { surfaces: [] }),
] as const;

type Reader = TableReader<typeof FIELDS>;

/** Options of `mockup` (camelCase; the contract's snake_case names are accepted during the transition). */
export type MockupOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;

export interface ResolvedCommon {
  fabric: number | null;
  previewFix: 'none' | 'auto' | PreviewFix;
  alphaThreshold: number;
  halftoneLpi: number;
  outputSize: number;
  frame: 'native' | 'square';
  format: 'png' | 'jpeg';
  response: 'image' | 'json';
}

export interface ResolvedMockup extends ResolvedCommon {
  mode: 'true-to-size' | 'legacy';
  /** Own style whose drawing is used. */
  base: string;
  garmentKey: string;
  garmentTitle: string;
  color: { id: string; name: string; hex: string; heather?: { hex2: string; share: number } };
  view: View;
  placementId: string;
  placementName: string;
  size: string | null;
  /** A supplier style shown without a size (true scale unknown: warned). */
  sizeUnspecified: boolean;
  /** Chest (in) of the shown size, null when unknown; ref chest of the drawing. */
  sizeChestIn: number | null;
  refChestIn: number;
  /** True-to-size: requested width (before clamping), max, top and offset. */
  widthIn: number;
  maxWidthIn: number;
  topIn: number;
  offsetXIn: number;
  /** Supplier photo to draw on (true-to-size supplier styles), and why it is missing when it is. */
  photo: Uint8Array | null;
  photoError: string | null;
  /** Legacy: box and scale (width_in unused until the design aspect is known). */
  legacy: { boxWIn: number; boxHIn: number; scale: number } | null;
}

function resolveCommon(t: Reader): ResolvedCommon {
  const fabric = t.field('fabric');
  const output = t.field('outputSize');
  return {
    fabric,
    previewFix: t.field('previewFix'),
    alphaThreshold: Math.round(t.field('alphaThreshold')),
    halftoneLpi: t.field('halftoneLpi'),
    outputSize: Math.round(output),
    frame: t.field('frame'),
    format: t.field('format'),
    response: t.field('response'),
  };
}

function isSupplierGarment(v: unknown): v is SupplierGarment {
  const s = v as SupplierGarment;
  return !!s && typeof s === 'object' && typeof s.key === 'string' && typeof s.base === 'string' && Array.isArray(s.colors) && Array.isArray(s.sizes) && typeof s.chest_by_size_in === 'object';
}

function resolveTrueToSize(t: Reader, styleKey: string, common: ResolvedCommon): ResolvedMockup {
  let base: OwnStyle;
  let title: string;
  let colors: readonly { id: string; name: string; hex: string; heather?: { hex2: string; share: number } }[];
  let sizes: readonly string[];
  let chest: Readonly<Record<string, number>>;
  let placements: readonly PlacementId[];
  let defaultSize: string | null;
  const own = styleKey.startsWith('own:') || !styleKey.includes(':') ? findOwnStyle(styleKey) : undefined;
  if (own) {
    base = own;
    title = own.title;
    colors = own.colors;
    sizes = own.sizes;
    chest = own.chest_by_size_in;
    placements = own.placements;
    defaultSize = own.ref_size;
  } else {
    const sup = t.field('supplierStyle');
    if (!isSupplierGarment(sup) || sup.key !== styleKey || !findOwnStyle(sup.base)) {
      throw invalidOption('style', `a style key from GET /api/v1/garments (e.g. ${OWN_STYLES.map((s) => s.key).join(', ')})`, styleKey);
    }
    base = findOwnStyle(sup.base)!;
    title = `${sup.brand} ${sup.style_number} ${sup.title}`.trim();
    colors = sup.colors;
    sizes = sup.sizes;
    chest = sup.chest_by_size_in;
    placements = placementsFor(sup.base);
    defaultSize = null;
  }
  if (colors.length === 0) throw invalidOption('color', 'a colour of the style (it lists none)', t.raw.get('color'));
  const colorRaw = t.field('color');
  const color = colorRaw ? findColor(colors, colorRaw) : defaultColor(colors);
  if (!color) throw invalidOption('color', `one of ${colors.map((c) => c.id).join(', ')}`, colorRaw);

  const placementRaw = t.field('placement');
  let placement: PlacementSpec;
  if (placementRaw) {
    // Exact ids in true-to-size mode (spec 4.12); only legacy placement names match case-insensitively.
    const id = placementRaw as PlacementId;
    if (!PLACEMENT_IDS.includes(id) || !placements.includes(id)) throw invalidOption('placement', `one of ${placements.join(', ')} for this style`, placementRaw);
    placement = PLACEMENTS[id];
  } else {
    // No placement: the full front, or the full back when only the back view was asked for.
    const wantBack = t.raw.get('view') === 'back';
    const side = placements.filter((p) => PLACEMENTS[p].view === (wantBack ? 'back' : 'front'));
    const pick = wantBack ? (side.includes('full-back') ? 'full-back' : side[0]) : (side.includes('full-front') ? 'full-front' : side[0]);
    placement = PLACEMENTS[pick ?? placements[0]!];
  }
  const view = t.field('view') ?? placement.view;
  if (view !== placement.view) throw invalidOption('view', `${placement.view} (the side of placement ${placement.id})`, t.raw.get('view'));

  const width = t.field('printWidthIn') ?? placement.default_width_in;
  const top = t.field('topIn') ?? placement.default_top_in;
  const offset = t.field('offsetXIn') ?? placement.default_offset_x_in;
  const sizeRaw = t.field('size');
  let size: string | null = defaultSize;
  if (sizeRaw) {
    const found = sizes.find((s) => s.toLowerCase() === sizeRaw.toLowerCase()) ?? sizes.find((s) => s.toLowerCase().replace(/^x{2}l$/, '2xl') === sizeRaw.toLowerCase().replace(/^xxl$/, '2xl'));
    if (!found) throw invalidOption('size', `one of ${sizes.join(', ')}`, sizeRaw);
    size = found;
  }
  const sizeChest = size !== null && typeof chest[size] === 'number' && chest[size]! > 0 ? chest[size]! : null;
  return Object.freeze({
    ...common,
    mode: 'true-to-size' as const,
    base: base.id,
    garmentKey: styleKey.includes(':') ? styleKey : `own:${styleKey}`,
    garmentTitle: title,
    color: { id: color.id, name: color.name, hex: color.hex, ...(color.heather ? { heather: color.heather } : {}) },
    view,
    placementId: placement.id,
    placementName: placement.name,
    size,
    sizeUnspecified: size === null,
    sizeChestIn: sizeChest,
    refChestIn: base.chest_by_size_in[base.ref_size]!,
    widthIn: width,
    maxWidthIn: placement.max_width_in,
    topIn: top,
    offsetXIn: offset,
    photo: ((p) => (!own && p instanceof Uint8Array && p.length > 0 ? p : null))(t.field('garmentPhoto')),
    photoError: ((e) => (!own && typeof e === 'object' && e !== null && typeof (e as { reason?: unknown }).reason === 'string' ? (e as { reason: string }).reason : null))(t.field('garmentPhotoError')),
    legacy: null,
  });
}

function resolveLegacy(t: Reader, common: ResolvedCommon): ResolvedMockup {
  const tid = t.field('templateId');
  const gname = t.field('garment');
  let tpl: TemplateDef | undefined;
  if (tid) {
    tpl = TEMPLATES.find((x) => x.id === tid);
    if (!tpl) throw invalidOption('template_id', `a template id from GET /api/v1/mockup/templates (${TEMPLATES.map((x) => x.id).join(', ')})`, tid);
  } else if (gname) {
    const g = gname.toLowerCase();
    tpl = TEMPLATES.find((x) => x.name.toLowerCase() === g) ?? TEMPLATES.find((x) => x.name.toLowerCase().includes(g));
    if (!tpl) throw invalidOption('garment', `a template name (${TEMPLATES.map((x) => x.name).join(', ')})`, gname);
  } else {
    tpl = TEMPLATES[0]!;
  }
  const pid = t.field('placementId');
  const pname = t.field('placement');
  let p: TemplatePlacement | undefined;
  if (pid) {
    p = tpl.placements.find((x) => x.id === pid);
    if (!p) throw invalidOption('placement_id', `one of ${tpl.placements.map((x) => x.id).join(', ')} for template ${tpl.id}`, pid);
  } else if (pname) {
    p = findTemplatePlacement(tpl, pname);
    if (!p) throw invalidOption('placement', `one of ${tpl.placements.map((x) => x.name).join(', ')} for template ${tpl.id}`, pname);
  } else {
    p = tpl.placements[0]!;
  }
  const scale = t.field('scale');
  const style = findOwnStyle(tpl.style)!;
  const color = findColor(style.colors, tpl.color)!;
  const spec = PLACEMENTS[p.placement];
  return Object.freeze({
    ...common,
    mode: 'legacy' as const,
    base: style.id,
    garmentKey: tpl.id,
    garmentTitle: tpl.name,
    color: { id: color.id, name: color.name, hex: color.hex, ...(color.heather ? { heather: color.heather } : {}) },
    view: tpl.view,
    placementId: p.id,
    placementName: p.name,
    size: style.ref_size,
    sizeUnspecified: false,
    sizeChestIn: style.chest_by_size_in[style.ref_size]!,
    refChestIn: style.chest_by_size_in[style.ref_size]!,
    widthIn: p.box_w_in,
    maxWidthIn: p.box_w_in * 2,
    topIn: spec.default_top_in,
    offsetXIn: spec.default_offset_x_in,
    photo: null,
    photoError: null,
    legacy: { boxWIn: p.box_w_in, boxHIn: p.box_h_in, scale },
  });
}

/** The `mockup` option table; its resolver throws `invalid_option` naming the field. */
export const MOCKUP_OPTIONS = defineOptions(FIELDS, (t): ResolvedMockup => {
  const common = resolveCommon(t);
  const style = t.field('style');
  return style ? resolveTrueToSize(t, style, common) : resolveLegacy(t, common);
});

/** Validate mockup options. Throws `invalid_option` naming the field. */
export const resolveMockup = MOCKUP_OPTIONS.resolve;

/**
 * A resolved supplier-style mockup with the supplier's photo (or why there is none) added: the adapter
 * resolves first (to learn the colour and view whose photo to fetch), then attaches the photo without a
 * second lookup. Own styles and legacy templates never draw on a photo: returned as they are.
 */
export function withGarmentPhoto<R extends Readonly<ResolvedMockup>>(r: R, photo: { bytes: Uint8Array } | { error: string }): R {
  if (r.mode !== 'true-to-size' || r.garmentKey.startsWith('own:')) return r;
  const next = 'bytes' in photo
    ? { ...r, photo: photo.bytes.length > 0 ? photo.bytes : null, photoError: null }
    : { ...r, photo: null, photoError: photo.error };
  return markResolved('mockup', Object.freeze(next)) as R;
}
