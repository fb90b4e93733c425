// The mockup renderer: the design placed at true size on a blank (the supplier's photo, or our own
// garment drawing from garments/), the warnings a print shop would give, and the encoded preview. Fabric
// realism in composite.ts; the options arrive resolved (resolve.ts).
import sharp from 'sharp';
import { getGarmentAt } from '../garments/cache.js';
import type { ColorSpec } from '../garments/colorize.js';
import { findOwnStyle, type View } from '../garments/specs.js';
import { compositeDesign, type PrintRect } from './composite.js';
import { PhotoError, photoGarment, type PhotoGarment } from './photo.js';
import { PREVIEW_DPI, previewFixed, type PreviewFix } from './transparency.js';
import {
  backgroundWarning, chestWarning, clampWarning, detectBackgroundBox, dpiWarning, offGarmentWarning, photoWarning, semiTransparentWarning,
  sizeUnspecifiedWarning, type MockupWarning,
} from './warnings.js';
import { rasterSource, resizeDesign, type DesignSource } from './design-source.js';
import { transparencyOf } from './verdict.js';
import type { ResolvedMockup } from './resolve.js';
import type { Raster } from '../raster/types.js';
import type { StageReporter } from '../progress.js';
import type { OpFile } from '../raster/file.js';

/**
 * What `engine.mockup` returns: the mockup image (`data`, PNG or JPEG as `format` says) and where and how large
 * the print came out. POST /api/v1/mockup sends the same facts with the contract's snake_case names.
 */
export interface MockupResult extends OpFile<'png' | 'jpeg', 'image/png' | 'image/jpeg'> {
  /** Image width in pixels. */
  width: number;
  height: number;
  mode: 'true-to-size' | 'legacy';
  garment: { key: string; title: string; color: { id: string; name: string; hex: string }; size: string | null };
  view: View;
  placement: string;
  print: {
    widthIn: number;
    heightIn: number;
    topIn: number;
    offsetXIn: number;
    description: string;
    artworkPx: { width: number; height: number };
    effectiveDpi: number;
    /** The transparency fix previewed on this mockup (`preview_fix`), or null. */
    previewFix: PreviewFix | null;
  };
  warnings: MockupWarning[];
  /** Where the print landed in output pixels, and the output's pixels per inch at the shown size. */
  layout: { ppi: number; left: number; top: number; width: number; height: number };
  response: 'image' | 'json';
}

/** Stages of `mockup` and their shares of a typical run (cached blank; a first render of a blank takes longer). */
export const MOCKUP_STAGES = { decode: 3, garment: 55, design: 15, composite: 10, encode: 17 } as const;
export type MockupStage = keyof typeof MOCKUP_STAGES;

const r2 = (n: number) => Math.round(n * 100) / 100;

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

/** Render a mockup (see MockupOptions). Pure function of its inputs apart from the blank cache. */
export async function renderMockup(input: Raster | DesignSource, o: Readonly<ResolvedMockup>, progress: StageReporter<MockupStage> = () => {}, garmentCacheDir?: string): Promise<MockupResult> {
  const design: DesignSource = 'resized' in input ? input : rasterSource(input);
  const style = findOwnStyle(o.base)!;
  const color: ColorSpec = { hex: o.color.hex, ...(o.color.heather ? { heather: o.color.heather } : {}) };
  progress('garment');
  const warnings: MockupWarning[] = [];
  // A supplier photo when there is one (its chest line sets the scale), else the own blank.
  let photo: PhotoGarment | null = null;
  if (o.photo) {
    try {
      photo = await photoGarment(o.photo, style, o.view, o.outputSize);
    } catch (err) {
      if (!(err instanceof PhotoError)) throw err;
      warnings.push(photoWarning(err.message));
    }
  } else if (o.photoError) warnings.push(photoWarning(o.photoError));
  const g = photo ? photo.asset : await getGarmentAt(style, o.view, color, o.outputSize, garmentCacheDir);
  // True scale: the same picture stands for every size; a bigger chest means fewer pixels per inch. On a
  // photo the chest line measured on it is the chest of the size shown.
  let ppi = g.ppi;
  if (photo) ppi = photo.chest_px / (o.sizeChestIn ?? o.refChestIn);
  else if (o.sizeChestIn !== null) ppi = (g.ppi * o.refChestIn) / o.sizeChestIn;
  if (o.sizeChestIn === null && o.size !== null) warnings.push(chestWarning(o.size));
  else if (o.sizeChestIn === null && o.sizeUnspecified) warnings.push(sizeUnspecifiedWarning(o.refChestIn));
  const aspect = design.height / design.width;
  let widthIn: number;
  if (o.legacy) {
    widthIn = Math.min(o.legacy.boxWIn, o.legacy.boxHIn / aspect) * o.legacy.scale;
  } else {
    widthIn = o.widthIn;
    if (widthIn > o.maxWidthIn) {
      warnings.push(clampWarning(widthIn, o.maxWidthIn, o.placementName));
      widthIn = o.maxWidthIn;
    }
  }
  const heightIn = widthIn * aspect;
  const wPx = Math.max(1, Math.round(widthIn * ppi));
  const hPx = Math.max(1, Math.round(heightIn * ppi));
  const cx = g.center_x + o.offsetXIn * ppi;
  const rect: PrintRect = { left: Math.round(cx - (widthIn * ppi) / 2), top: Math.round(g.collar_y + o.topIn * ppi), width: wPx, height: hPx };
  const dpi = design.width / widthIn;
  const dw = dpiWarning(dpi, widthIn, design.width);
  if (dw) warnings.push(dw);
  progress('design');
  let sized = await design.resized(wPx, hPx);
  const verdict = await transparencyOf(design, sized);
  let previewed: PreviewFix | null = null;
  if (o.previewFix !== 'none') {
    const want: PreviewFix | null = o.previewFix !== 'auto' ? o.previewFix
      : verdict === null || verdict.recommended === 'none' ? null : verdict.recommended === 'halftone' ? 'halftone' : 'alpha_threshold';
    if (want) {
      // The fix runs at print resolution (at most the artwork's own), then is resampled like the design.
      const hw = Math.max(wPx, Math.min(design.width, Math.round(widthIn * PREVIEW_DPI)));
      const hh = Math.max(1, Math.round((hw * hPx) / wPx));
      const fixed = previewFixed(await design.resized(hw, hh), want, { alpha_threshold: o.alphaThreshold, halftone_lpi: o.halftoneLpi, dpi: hw / widthIn });
      sized = await resizeDesign(fixed, wPx, hPx);
      previewed = want;
    }
  }
  const previewText = previewed === 'halftone' ? `fix_halftone=true (${r2(o.halftoneLpi)} lpi)` : previewed ? `fix_alpha_threshold=true (threshold ${o.alphaThreshold})` : null;
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
  // ~90 ms CPU for ~25% more bytes), PNG at zlib level 1 without adaptive filtering (see docs/benchmarks/mockup.md).
  const buf = o.format === 'jpeg'
    ? await img.jpeg({ quality: 90, chromaSubsampling: '4:4:4', optimiseCoding: false }).toBuffer()
    : await img.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
  const image = new Uint8Array(buf.length);
  image.set(buf);
  const side = o.offsetXIn === 0 ? 'centred' : `${r2(Math.abs(o.offsetXIn))} in ${o.offsetXIn > 0 ? 'right' : 'left'} of centre (photo)`;
  return {
    data: image,
    format: o.format,
    contentType: o.format === 'jpeg' ? 'image/jpeg' : 'image/png',
    width: W,
    height: H,
    mode: o.mode,
    garment: { key: o.garmentKey, title: o.garmentTitle, color: { id: o.color.id, name: o.color.name, hex: o.color.hex }, size: o.size },
    view: o.view,
    placement: o.placementId,
    print: {
      widthIn: r2(widthIn),
      heightIn: r2(heightIn),
      topIn: r2(o.topIn),
      offsetXIn: r2(o.offsetXIn),
      description: `${r2(widthIn)} x ${r2(heightIn)} in ${o.placementName}, ${r2(o.topIn)} in below the collar, ${side}${o.size ? `, on size ${o.size}` : ''}${previewText ? `, previewing ${previewText}` : ''}`,
      artworkPx: { width: design.width, height: design.height },
      effectiveDpi: Math.round(dpi * 10) / 10,
      previewFix: previewed,
    },
    warnings,
    layout: { ppi, left, top, width: wPx, height: hPx },
    response: o.response,
  };
}
