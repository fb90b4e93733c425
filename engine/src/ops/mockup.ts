// Op `mockup`: a design rendered on a blank at true size (spec 4.12). True-to-size mode when `style` is set
// (placement defaults/limits in inches, the size's chest spec sets the scale), legacy box mode otherwise
// (template_id / garment / placement_id / scale against the template list). Fabric realism in
// mockup/composite.ts; blanks from garments/ (rendered once, cached on disk and in memory).
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { invalidOption } from '../errors.js';
import { getGarmentAt } from '../garments/cache.js';
import type { ColorSpec } from '../garments/colorize.js';
import {
  defaultColor, findColor, findOwnStyle, OWN_STYLES, PLACEMENT_IDS, PLACEMENTS, placementsFor,
  type OwnStyle, type PlacementId, type PlacementSpec, type SupplierGarment, type View,
} from '../garments/specs.js';
import { compositeDesign, type PrintRect } from '../mockup/composite.js';
import { PhotoError, photoGarment, type PhotoGarment } from '../mockup/photo.js';
import { findTemplatePlacement, TEMPLATES, type TemplateDef, type TemplatePlacement } from '../mockup/templates.js';
import { ANALYSIS_PX, judgeTransparency, looksSemiTransparent, PREVIEW_DPI, previewFixed, type PreviewFix, type TransparencyVerdict } from '../mockup/transparency.js';
import {
  backgroundWarning, chestWarning, clampWarning, detectBackgroundBox, dpiWarning, offGarmentWarning, photoWarning, semiTransparentWarning,
  sizeUnspecifiedWarning, type MockupWarning,
} from '../mockup/warnings.js';
import { noteField, parseEnum, parseNumber, parseText, readOptions, type OptionReader, type TextOptions } from '../options/validate.js';
import { decodeImage, probeImage } from '../raster/decode.js';
import type { Raster } from '../raster/types.js';
import { stageProgress, type StageReporter } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

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

interface ResolvedCommon {
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

export interface MockupResult {
  image: Uint8Array;
  content_type: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  mode: 'true-to-size' | 'legacy';
  garment: { key: string; title: string; color: { id: string; name: string; hex: string }; size: string | null };
  view: View;
  placement: string;
  print: {
    width_in: number;
    height_in: number;
    top_in: number;
    offset_x_in: number;
    description: string;
    artwork_px: { width: number; height: number };
    effective_dpi: number;
    /** The transparency fix previewed on this mockup (`preview_fix`), or null. */
    preview_fix: PreviewFix | null;
  };
  warnings: MockupWarning[];
  /** Where the print landed in output pixels, and the output's pixels per inch at the shown size. */
  layout: { ppi: number; left: number; top: number; width: number; height: number };
  response: 'image' | 'json';
}

const r2 = (n: number) => Math.round(n * 100) / 100;

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

// Downscale kernel for the design: Mitchell (a preview; ~1/3 less CPU than Lanczos-3 on a 3300 px PNG and no ringing).
const DESIGN_KERNEL = 'mitchell' as const;

async function resizeDesign(d: Raster, w: number, h: number): Promise<Raster> {
  if (w === d.width && h === d.height) return d;
  const buf = await sharp(Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength), { raw: { width: d.width, height: d.height, channels: 4 }, limitInputPixels: false })
    .resize(w, h, { kernel: DESIGN_KERNEL, fit: 'fill' })
    .raw()
    .toBuffer();
  return { width: w, height: h, data: new Uint8ClampedArray(buf.buffer, buf.byteOffset, buf.byteLength) };
}

/**
 * Resampled designs by (content hash, size): a customer trying colours, sizes and views of one design
 * pays the decode+resample once (per worker). Entries are read-only; the composite's prepared planes hang
 * off the same Raster (see compositeDesign), so they are counted here too (20 bytes per pixel).
 */
const DESIGN_CACHE_BYTES = 128 * 1024 * 1024;
const designCache = new Map<string, { r: Raster; bytes: number }>();
let designCacheTotal = 0;
function designCacheGet(key: string): Raster | undefined {
  const e = designCache.get(key);
  if (!e) return undefined;
  designCache.delete(key);
  designCache.set(key, e);
  return e.r;
}
function designCachePut(key: string, r: Raster): void {
  const bytes = r.width * r.height * 20;
  if (bytes > DESIGN_CACHE_BYTES / 2) return;
  designCache.set(key, { r, bytes });
  designCacheTotal += bytes;
  for (const [k, e] of designCache) {
    if (designCacheTotal <= DESIGN_CACHE_BYTES) break;
    designCache.delete(k);
    designCacheTotal -= e.bytes;
  }
}
/** Drop the resampled-design cache (benches measuring a new design each call). */
export function clearMockupDesignCache(): void {
  designCache.clear();
  designCacheTotal = 0;
}

/** Share of the design's opaque pixels that fall outside the garment. */
function offGarmentPct(mask: Uint8Array, W: number, H: number, d: Raster, rect: PrintRect): number {
  let inside = 0, outside = 0;
  const step = Math.max(1, Math.floor(Math.sqrt((d.width * d.height) / 40000)));
  for (let y = 0; y < d.height; y += step) {
    for (let x = 0; x < d.width; x += step) {
      if (d.data[(y * d.width + x) * 4 + 3]! < 128) continue;
      const X = rect.left + x, Y = rect.top + y;
      if (X >= 0 && Y >= 0 && X < W && Y < H && mask[Y * W + X]! >= 128) inside++;
      else outside++;
    }
  }
  return inside + outside === 0 ? 0 : (100 * outside) / (inside + outside);
}

/** The artwork as the renderer needs it: its size, and a way to get it resampled to the print size. */
export interface DesignSource {
  width: number;
  height: number;
  /** Identity of the artwork's bytes (caches judgements about it), when known. */
  key?: string;
  resized(w: number, h: number): Promise<Raster>;
}

function rasterSource(r: Raster): DesignSource {
  return { width: r.width, height: r.height, resized: (w, h) => resizeDesign(r, w, h) };
}

/**
 * Encoded artwork: the header is probed (format, pixel limit, orientation) and the pixels are decoded and
 * resampled to the print size in one libvips pipeline (no full-size copy), converted to 8-bit sRGB RGBA.
 * Sources that libvips cannot shrink that way (e.g. 16-bit or CMYK) go through decodeImage.
 */
async function bytesSource(bytes: Uint8Array, maxPixels: number): Promise<DesignSource> {
  const info = await probeImage(bytes, { maxPixels });
  const simple = info.bits_per_sample === 8 && (info.space === 'srgb' || info.space === 'b-w') && !info.icc;
  const hash = createHash('sha1').update(bytes).digest('hex');
  let decoded: Promise<Raster> | null = null;
  const full = () => (decoded ??= decodeImage(bytes, { maxPixels }).then((d) => d.raster));
  return {
    width: info.width,
    height: info.height,
    key: hash,
    async resized(w, h) {
      const key = `${hash}:${w}x${h}`;
      const hit = designCacheGet(key);
      if (hit) return hit;
      let r: Raster | null = null;
      if (simple) {
        try {
          const buf = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', pages: 1 })
            .autoOrient()
            .toColourspace('srgb')
            .ensureAlpha()
            .resize(w, h, { kernel: DESIGN_KERNEL, fit: 'fill' })
            .raw()
            .toBuffer();
          if (buf.length === w * h * 4) r = { width: w, height: h, data: new Uint8ClampedArray(buf.buffer, buf.byteOffset, buf.byteLength) };
        } catch {
          r = null;
        }
      }
      r ??= await resizeDesign(await full(), w, h);
      designCachePut(key, r);
      return r;
    },
  };
}

/** Transparency verdicts by artwork key (small: one entry per recent design). */
const verdicts = new Map<string, TransparencyVerdict>();

/** The scan's transparency verdict on the artwork, or null when the print-size design shows none. */
async function transparencyOf(design: DesignSource, sized: Raster): Promise<TransparencyVerdict | null> {
  const hit = design.key ? verdicts.get(design.key) : undefined;
  if (hit) return hit;
  if (!looksSemiTransparent(sized)) return null;
  const aw = Math.min(design.width, ANALYSIS_PX);
  const ah = Math.max(1, Math.round((design.height * aw) / design.width));
  const v = judgeTransparency(await design.resized(aw, ah), design.width);
  if (design.key) {
    if (verdicts.size >= 64) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(design.key, v);
  }
  return v;
}

/** Render a mockup (see MockupOptions). Pure function of its inputs apart from the blank cache. */
export async function renderMockup(input: Raster | DesignSource, o: Readonly<ResolvedMockup>, progress: StageReporter<MockupStage> = () => {}): Promise<MockupResult> {
  const design: DesignSource = 'resized' in input ? input : rasterSource(input);
  const style = findOwnStyle(o.base)!;
  const color: ColorSpec = { hex: o.color.hex, ...(o.color.heather ? { heather: o.color.heather } : {}) };
  progress('garment');
  const warnings: MockupWarning[] = [];
  // A supplier photo when there is one (its chest line sets the scale), else the own blank.
  let photo: PhotoGarment | null = null;
  if (o.photo) {
    try {
      photo = await photoGarment(o.photo, style, o.view, o.output_size);
    } catch (err) {
      if (!(err instanceof PhotoError)) throw err;
      warnings.push(photoWarning(err.message));
    }
  } else if (o.photo_error) warnings.push(photoWarning(o.photo_error));
  const g = photo ? photo.asset : await getGarmentAt(style, o.view, color, o.output_size);
  // True scale: the same picture stands for every size; a bigger chest means fewer pixels per inch. On a
  // photo the chest line measured on it is the chest of the size shown.
  let ppi = g.ppi;
  if (photo) ppi = photo.chest_px / (o.size_chest_in ?? o.ref_chest_in);
  else if (o.size_chest_in !== null) ppi = (g.ppi * o.ref_chest_in) / o.size_chest_in;
  if (o.size_chest_in === null && o.size !== null) warnings.push(chestWarning(o.size));
  else if (o.size_chest_in === null && o.size_unspecified) warnings.push(sizeUnspecifiedWarning(o.ref_chest_in));
  const aspect = design.height / design.width;
  let widthIn: number;
  if (o.legacy) {
    widthIn = Math.min(o.legacy.box_w_in, o.legacy.box_h_in / aspect) * o.legacy.scale;
  } else {
    widthIn = o.width_in;
    if (widthIn > o.max_width_in) {
      warnings.push(clampWarning(widthIn, o.max_width_in, o.placement_name));
      widthIn = o.max_width_in;
    }
  }
  const heightIn = widthIn * aspect;
  const wPx = Math.max(1, Math.round(widthIn * ppi));
  const hPx = Math.max(1, Math.round(heightIn * ppi));
  const cx = g.center_x + o.offset_x_in * ppi;
  const rect: PrintRect = { left: Math.round(cx - (widthIn * ppi) / 2), top: Math.round(g.collar_y + o.top_in * ppi), width: wPx, height: hPx };
  const dpi = design.width / widthIn;
  const dw = dpiWarning(dpi, widthIn, design.width);
  if (dw) warnings.push(dw);
  progress('design');
  let sized = await design.resized(wPx, hPx);
  const verdict = await transparencyOf(design, sized);
  let previewed: PreviewFix | null = null;
  if (o.preview_fix !== 'none') {
    const want: PreviewFix | null = o.preview_fix !== 'auto' ? o.preview_fix
      : verdict === null || verdict.recommended === 'none' ? null : verdict.recommended === 'halftone' ? 'halftone' : 'alpha_threshold';
    if (want) {
      // The fix runs at print resolution (at most the artwork's own), then is resampled like the design.
      const hw = Math.max(wPx, Math.min(design.width, Math.round(widthIn * PREVIEW_DPI)));
      const hh = Math.max(1, Math.round((hw * hPx) / wPx));
      const fixed = previewFixed(await design.resized(hw, hh), want, { alpha_threshold: o.alpha_threshold, halftone_lpi: o.halftone_lpi, dpi: hw / widthIn });
      sized = await resizeDesign(fixed, wPx, hPx);
      previewed = want;
    }
  }
  const previewText = previewed === 'halftone' ? `fix_halftone=true (${r2(o.halftone_lpi)} lpi)` : previewed ? `fix_alpha_threshold=true (threshold ${o.alpha_threshold})` : null;
  if (verdict) {
    const w = semiTransparentWarning(verdict, previewText);
    if (w) warnings.push(w);
  }
  const box = detectBackgroundBox(sized);
  if (box) warnings.push(backgroundWarning(box));
  const off = offGarmentPct(g.mask, g.width, g.height, sized, rect);
  if (off >= 2) warnings.push(offGarmentWarning(off));
  const out = new Uint8ClampedArray(g.rgba);
  progress('composite');
  compositeDesign(out, g, sized, rect, o.fabric);

  let img = sharp(Buffer.from(out.buffer, out.byteOffset, out.byteLength), { raw: { width: g.width, height: g.height, channels: 4 } });
  let W = g.width, H = g.height;
  let left = rect.left, top = rect.top;
  if (o.frame === 'square' && W !== H) {
    const side = Math.max(W, H);
    const padL = Math.floor((side - W) / 2), padT = Math.floor((side - H) / 2);
    // The render's own margin is plain backdrop (sweep and shadow fade out before it): repeating the edge
    // pixels continues it without a seam, where a flat BACKDROP fill would show one against the sweep.
    img = img.extend({ left: padL, right: side - W - padL, top: padT, bottom: side - H - padT, extendWith: 'copy' });
    left += padL; top += padT;
    W = H = side;
  }
  progress('encode');
  img = img.removeAlpha();
  // Encoders tuned for a preview: JPEG without Huffman optimisation (measured at 2000 px: ~20 ms instead of
  // ~90 ms CPU for ~25% more bytes), PNG at zlib level 1 without adaptive filtering (see README).
  const buf = o.format === 'jpeg'
    ? await img.jpeg({ quality: 90, chromaSubsampling: '4:4:4', optimiseCoding: false }).toBuffer()
    : await img.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
  const image = new Uint8Array(buf.length);
  image.set(buf);
  const side = o.offset_x_in === 0 ? 'centred' : `${r2(Math.abs(o.offset_x_in))} in ${o.offset_x_in > 0 ? 'right' : 'left'} of centre (photo)`;
  return {
    image,
    content_type: o.format === 'jpeg' ? 'image/jpeg' : 'image/png',
    width: W,
    height: H,
    mode: o.mode,
    garment: { key: o.garment_key, title: o.garment_title, color: { id: o.color.id, name: o.color.name, hex: o.color.hex }, size: o.size },
    view: o.view,
    placement: o.placement_id,
    print: {
      width_in: r2(widthIn),
      height_in: r2(heightIn),
      top_in: r2(o.top_in),
      offset_x_in: r2(o.offset_x_in),
      description: `${r2(widthIn)} x ${r2(heightIn)} in ${o.placement_name}, ${r2(o.top_in)} in below the collar, ${side}${o.size ? `, on size ${o.size}` : ''}${previewText ? `, previewing ${previewText}` : ''}`,
      artwork_px: { width: design.width, height: design.height },
      effective_dpi: Math.round(dpi * 10) / 10,
      preview_fix: previewed,
    },
    warnings,
    layout: { ppi, left, top, width: wPx, height: hPx },
    response: o.response,
  };
}

/** Stages of `mockup` and their shares of a typical run (cached blank; a first render of a blank takes longer). */
export const MOCKUP_STAGES = { decode: 3, garment: 55, design: 15, composite: 10, encode: 17 } as const;
export type MockupStage = keyof typeof MOCKUP_STAGES;

export const mockupOp: OpDef<MockupOptions, ResolvedMockup, MockupResult> = {
  resolve: resolveMockup,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, MOCKUP_STAGES);
    if (isRaster(input)) return renderMockup(input, opts, progress);
    progress('decode');
    return renderMockup(await bytesSource(input, ctx.maxPixels), opts, progress);
  },
  transfer(result) {
    return [result.image.buffer as ArrayBuffer];
  },
};
