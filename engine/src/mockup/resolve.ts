// The options of `mockup` and their resolution (spec 4.12): true-to-size mode when `style` is set (placement
// defaults and limits in inches, the size's chest spec sets the scale), legacy box mode otherwise
// (template_id / garment / placement_id / scale against the template list). The style, colour and
// placement are looked up here, once, into the resolved struct the renderer reads.
import { invalidOption } from '../errors.js';
import {
  defaultColor, findColor, findOwnStyle, OWN_STYLES, PLACEMENT_IDS, PLACEMENTS, placementsFor,
  type OwnStyle, type PlacementId, type PlacementSpec, type SupplierGarment, type View,
} from '../garments/specs.js';
import { findTemplatePlacement, TEMPLATES, type TemplateDef, type TemplatePlacement } from './templates.js';
import type { PreviewFix } from './transparency.js';
import { noteField, parseEnum, parseNumber, parseText, readOptions, type OptionReader, type TextOptions } from '../options/validate.js';

/** Options of `mockup` (the text forms of HTTP form fields and CLI flags go through `textOptions`). */
export interface MockupOptions {
  /** Catalog style key (`own:classic-tee`, `ss:<styleID>`); turns on true-to-size mode. */
  style?: string;
  /** Colour id or name; default black, else the first colour. */
  color?: string;
  /** True-to-size placement; legacy mode: a template placement id (`center` or one of these ids; names by text). */
  placement?: PlacementId | 'center';
  /** `front` or `back`; default the placement's side. */
  view?: View;
  /** Print width in inches, 0.5-40 (clamped to the placement maximum with a warning); default the placement's width. */
  print_width_in?: number;
  /** Inches from the collar seam to the top of the design, 0-30; default the placement's (3 for most). */
  top_in?: number;
  /** Inches from the centre line, -20 to 20; positive = right of the photo. Default the placement's. */
  offset_x_in?: number;
  /** Garment size shown at true scale (its chest spec sets the scale); default the style's reference size. */
  size?: string;
  /** Fabric realism 0-1 (default 0.8) or `false` for a flat paste. */
  fabric?: number | false;
  /** Long side of the output, 400-4000 px; default 2000. */
  output_size?: number;
  /** `native` (default) or `square`. */
  frame?: 'native' | 'square';
  /** `png` (default) or `jpeg`. */
  format?: 'png' | 'jpeg';
  /** `image` (default) or `json`; carried through for the HTTP layer. */
  response?: 'image' | 'json';
  /** Legacy: template id (default the first). */
  template_id?: string;
  /** Legacy: template matched by name, case-insensitive. */
  garment?: string;
  /** Legacy: placement id of the template. */
  placement_id?: PlacementId | 'center';
  /** Legacy: design size inside the placement box, 0.1-2; default 1. */
  scale?: number;
  /**
   * Preview a transparency fix on the print: `none` (default), `alpha_threshold` (as fix_alpha_threshold),
   * `halftone` (as fix_halftone) or `auto` (the fix the scan recommends for this artwork, if any).
   */
  preview_fix?: 'none' | 'auto' | 'alpha_threshold' | 'halftone';
  /** With preview_fix: the alpha threshold 0-255 (default 144, as POST /fix). */
  alpha_threshold?: number;
  /** With preview_fix: halftone lines per inch 15-65 (default 35, as POST /fix). */
  halftone_lpi?: number;
  /**
   * The supplier's photo of the chosen colour and view (encoded bytes, set by the HTTP adapter after
   * fetching `images.front/back`): the mockup is drawn on it. Supplier styles only.
   */
  garment_photo?: Uint8Array;
  /** Why the supplier's photo could not be fetched (the own silhouette is drawn, with a warning). */
  garment_photo_error?: { reason: string };
  /** A supplier style resolved by the catalog (required when `style` is not an own style). */
  supplier_style?: SupplierGarment;
}

export interface ResolvedCommon {
  fabric: number | null;
  preview_fix: 'none' | 'auto' | PreviewFix;
  alpha_threshold: number;
  halftone_lpi: number;
  output_size: number;
  frame: 'native' | 'square';
  format: 'png' | 'jpeg';
  response: 'image' | 'json';
}

export interface ResolvedMockup extends ResolvedCommon {
  mode: 'true-to-size' | 'legacy';
  /** Own style whose drawing is used. */
  base: string;
  garment_key: string;
  garment_title: string;
  color: { id: string; name: string; hex: string; heather?: { hex2: string; share: number } };
  view: View;
  placement_id: string;
  placement_name: string;
  size: string | null;
  /** A supplier style shown without a size (true scale unknown: warned). */
  size_unspecified: boolean;
  /** Chest (in) of the shown size, null when unknown; ref chest of the drawing. */
  size_chest_in: number | null;
  ref_chest_in: number;
  /** True-to-size: requested width (before clamping), max, top and offset. */
  width_in: number;
  max_width_in: number;
  top_in: number;
  offset_x_in: number;
  /** Supplier photo to draw on (true-to-size supplier styles), and why it is missing when it is. */
  photo: Uint8Array | null;
  photo_error: string | null;
  /** Legacy: box and scale (width_in unused until the design aspect is known). */
  legacy: { box_w_in: number; box_h_in: number; scale: number } | null;
}

function resolveCommon(o: OptionReader): ResolvedCommon {
  noteField({ field: 'fabric', kind: 'number', min: 0, max: 1, words: ['false'], default: 0.8 });
  const f = o.get('fabric');
  let fabric: number | null;
  if (f === false || (o.text && f === 'false')) fabric = null;
  else if (typeof f === 'boolean' || (typeof f === 'string' && /^\s*true\s*$/i.test(f))) {
    throw invalidOption('fabric', 'a number from 0 to 1 or false', f); // spec 4.12: number 0-1 or the text false
  } else fabric = parseNumber(o, 'fabric', 0.8, 0, 1);
  const output = parseNumber(o, 'output_size', 2000, 400, 4000);
  return {
    fabric,
    preview_fix: parseEnum(o, 'preview_fix', 'none', ['none', 'auto', 'alpha_threshold', 'halftone'] as const),
    alpha_threshold: Math.round(parseNumber(o, 'alpha_threshold', 144, 0, 255)),
    halftone_lpi: parseNumber(o, 'halftone_lpi', 35, 15, 65),
    output_size: Math.round(output),
    frame: parseEnum(o, 'frame', 'native', ['native', 'square'] as const),
    format: parseEnum(o, 'format', 'png', ['png', 'jpeg'] as const),
    response: parseEnum(o, 'response', 'image', ['image', 'json'] as const),
  };
}

function isSupplierGarment(v: unknown): v is SupplierGarment {
  const s = v as SupplierGarment;
  return !!s && typeof s === 'object' && typeof s.key === 'string' && typeof s.base === 'string' && Array.isArray(s.colors) && Array.isArray(s.sizes) && typeof s.chest_by_size_in === 'object';
}

function resolveTrueToSize(o: OptionReader, styleKey: string, common: ResolvedCommon): ResolvedMockup {
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
    const sup = o.get('supplier_style');
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
  if (colors.length === 0) throw invalidOption('color', 'a colour of the style (it lists none)', o.get('color'));
  const colorRaw = parseText(o, 'color');
  const color = colorRaw ? findColor(colors, colorRaw) : defaultColor(colors);
  if (!color) throw invalidOption('color', `one of ${colors.map((c) => c.id).join(', ')}`, colorRaw);

  const placementRaw = parseText(o, 'placement');
  let placement: PlacementSpec;
  if (placementRaw) {
    // Exact ids in true-to-size mode (spec 4.12); only legacy placement names match case-insensitively.
    const id = placementRaw as PlacementId;
    if (!PLACEMENT_IDS.includes(id) || !placements.includes(id)) throw invalidOption('placement', `one of ${placements.join(', ')} for this style`, placementRaw);
    placement = PLACEMENTS[id];
  } else {
    // No placement: the full front, or the full back when only the back view was asked for.
    const wantBack = o.get('view') === 'back';
    const side = placements.filter((p) => PLACEMENTS[p].view === (wantBack ? 'back' : 'front'));
    const pick = wantBack ? (side.includes('full-back') ? 'full-back' : side[0]) : (side.includes('full-front') ? 'full-front' : side[0]);
    placement = PLACEMENTS[pick ?? placements[0]!];
  }
  const view = parseEnum(o, 'view', placement.view, ['front', 'back'] as const);
  if (view !== placement.view) throw invalidOption('view', `${placement.view} (the side of placement ${placement.id})`, o.get('view'));

  const width = parseNumber(o, 'print_width_in', placement.default_width_in, 0.5, 40);
  const top = parseNumber(o, 'top_in', placement.default_top_in, 0, 30);
  const offset = parseNumber(o, 'offset_x_in', placement.default_offset_x_in, -20, 20);
  const sizeRaw = parseText(o, 'size');
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
    garment_key: styleKey.includes(':') ? styleKey : `own:${styleKey}`,
    garment_title: title,
    color: { id: color.id, name: color.name, hex: color.hex, ...(color.heather ? { heather: color.heather } : {}) },
    view,
    placement_id: placement.id,
    placement_name: placement.name,
    size,
    size_unspecified: size === null,
    size_chest_in: sizeChest,
    ref_chest_in: base.chest_by_size_in[base.ref_size]!,
    width_in: width,
    max_width_in: placement.max_width_in,
    top_in: top,
    offset_x_in: offset,
    photo: ((p) => (!own && p instanceof Uint8Array && p.length > 0 ? p : null))(o.get('garment_photo')),
    photo_error: ((e) => (!own && typeof e === 'object' && e !== null && typeof (e as { reason?: unknown }).reason === 'string' ? (e as { reason: string }).reason : null))(o.get('garment_photo_error')),
    legacy: null,
  });
}

function resolveLegacy(o: OptionReader, common: ResolvedCommon): ResolvedMockup {
  const tid = parseText(o, 'template_id');
  const gname = parseText(o, 'garment');
  let t: TemplateDef | undefined;
  if (tid) {
    t = TEMPLATES.find((x) => x.id === tid);
    if (!t) throw invalidOption('template_id', `a template id from GET /api/v1/mockup/templates (${TEMPLATES.map((x) => x.id).join(', ')})`, tid);
  } else if (gname) {
    const g = gname.toLowerCase();
    t = TEMPLATES.find((x) => x.name.toLowerCase() === g) ?? TEMPLATES.find((x) => x.name.toLowerCase().includes(g));
    if (!t) throw invalidOption('garment', `a template name (${TEMPLATES.map((x) => x.name).join(', ')})`, gname);
  } else {
    t = TEMPLATES[0]!;
  }
  const pid = parseText(o, 'placement_id');
  const pname = parseText(o, 'placement');
  let p: TemplatePlacement | undefined;
  if (pid) {
    p = t.placements.find((x) => x.id === pid);
    if (!p) throw invalidOption('placement_id', `one of ${t.placements.map((x) => x.id).join(', ')} for template ${t.id}`, pid);
  } else if (pname) {
    p = findTemplatePlacement(t, pname);
    if (!p) throw invalidOption('placement', `one of ${t.placements.map((x) => x.name).join(', ')} for template ${t.id}`, pname);
  } else {
    p = t.placements[0]!;
  }
  const scale = parseNumber(o, 'scale', 1, 0.1, 2);
  const style = findOwnStyle(t.style)!;
  const color = findColor(style.colors, t.color)!;
  const spec = PLACEMENTS[p.placement];
  return Object.freeze({
    ...common,
    mode: 'legacy' as const,
    base: style.id,
    garment_key: t.id,
    garment_title: t.name,
    color: { id: color.id, name: color.name, hex: color.hex, ...(color.heather ? { heather: color.heather } : {}) },
    view: t.view,
    placement_id: p.id,
    placement_name: p.name,
    size: style.ref_size,
    size_unspecified: false,
    size_chest_in: style.chest_by_size_in[style.ref_size]!,
    ref_chest_in: style.chest_by_size_in[style.ref_size]!,
    width_in: p.box_w_in,
    max_width_in: p.box_w_in * 2,
    top_in: spec.default_top_in,
    offset_x_in: spec.default_offset_x_in,
    photo: null,
    photo_error: null,
    legacy: { box_w_in: p.box_w_in, box_h_in: p.box_h_in, scale },
  });
}

/** Validate mockup options. Throws `invalid_option` naming the field. */
export function resolveMockup(raw: MockupOptions | TextOptions | undefined): Readonly<ResolvedMockup> {
  const o = readOptions(raw);
  const common = resolveCommon(o);
  const style = parseText(o, 'style');
  return style ? resolveTrueToSize(o, style, common) : resolveLegacy(o, common);
}
