// Op `upscale`: art-aware 2x/4x upscaling (engine/src/upscale) with budget pre-shrink and 413 above the
// shrink allowance; returns the PNG and the routing report.
import { probeImage, decodeImage } from '../raster/decode.js';
import { encodePng } from '../raster/encode.js';
import type { Raster } from '../raster/types.js';
import { maxPixelsFor, planSize } from '../upscale/budget.js';
import { UPSCALE_OPTIONS, type ResolvedUpscale, type UpscaleOptions } from '../upscale/options.js';
import { upscaleRaster, type UpscaleRoute } from '../upscale/upscale.js';
import type { ArtClass } from '../upscale/classify.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpContext, type OpDef, type OpInput } from './types.js';
import { pngFile, type PngFile } from '../raster/file.js';

export type { UpscaleOptions, ResolvedUpscale };

/** What `upscale` returns: the upscaled image as PNG in `data` (density scaled when the source stated one). */
export interface UpscaleResult extends PngFile {
  width: number;
  height: number;
  scale: 2 | 4;
  /** Path that produced the image. */
  route: UpscaleRoute;
  /** Path the router chose before any fallback. */
  chosen: UpscaleRoute;
  /** Why the chosen path was not used, or null. */
  fallback: string | null;
  /** Model route: the ESRGAN weights that ran, their pixel range, and whether averaged with resample (4x). */
  model: { variant: 'slim' | 'medium'; range: 1 | 255; blend: boolean } | null;
  /** Vector route: share (0..1) of the art taken from resample in windows where the trace lost detail. */
  patched: number;
  art: { class: ArtClass; top24: number; near24: number; colours: number };
  preShrunk: boolean;
  from: { width: number; height: number };
  to: { width: number; height: number };
  /**
   * Output width / input width, 3 decimals: equals `scale` unless the input was pre-shrunk to the budget
   * (a 2560x1600 photo at 2x with a 1.5 MP budget: 1.21).
   */
  effectiveScale: number;
  /** Whether the input was opaque; the PNG is then RGB (no alpha channel). */
  opaque: boolean;
  ms: { shrink: number; classify: number; upscale: number };
}

/** Stages of `upscale` and their shares of a typical run; the `upscale` stage is named after its route. */
export const UPSCALE_STAGES = { decode: 3, upscale: 90, encode: 7 } as const;

export const upscaleOp: OpDef<UpscaleOptions, ResolvedUpscale, UpscaleResult> = {
  fields: UPSCALE_OPTIONS.fields,
  resolve: UPSCALE_OPTIONS.resolve,
  run: (input, opts, ctx) => runUpscale(input, opts, ctx),
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};

/** Whether every pixel of the raster has alpha 255. */
function isOpaque(r: Raster): boolean {
  const d = r.data;
  for (let i = 3; i < d.length; i += 4) if (d[i] !== 255) return false;
  return true;
}

/**
 * The body of op `upscale` (in-thread callers: benches).
 * @throws InkprepError `image_too_large` (maxPixels = budget x 4 for the scale, pixels), `unsupported_format`
 *   (only PNG and JPEG), `image_unreadable`.
 */
export async function runUpscale(input: OpInput, opts: Readonly<ResolvedUpscale>, ctx: OpContext): Promise<UpscaleResult> {
    const progress = stageProgress(ctx.progress, UPSCALE_STAGES);
    const limit = Math.min(ctx.maxPixels, maxPixelsFor(opts.scale, opts));
    let src: Raster;
    let density: number | null = null;
    if (isRaster(input)) {
      planSize(input.width, input.height, opts.scale, opts);
      src = input;
    } else {
      // Header first: the 413 carries the upscale limit, checked before any pixel is decoded.
      progress('decode');
      const head = await probeImage(input, { formats: ['png', 'jpeg'], maxPixels: Number.MAX_SAFE_INTEGER });
      planSize(head.width, head.height, opts.scale, opts);
      const dec = await decodeImage(input, { formats: ['png', 'jpeg'], maxPixels: limit });
      src = dec.raster;
      density = dec.info.density;
    }
    const out = await upscaleRaster(src, { scale: opts.scale, budget: opts.budget, budget4x: opts.budget4x, route: opts.route, onProgress: (f, stage) => progress('upscale', f, stage) });
    progress('encode');
    // An opaque input gives an RGB PNG: an alpha channel of 255s only costs bytes (a quarter of the raw size).
    const opaque = isOpaque(src);
    const png = await encodePng(out.raster, { ...(density ? { dpi: (density * out.raster.width) / src.width } : {}), dropAlpha: opaque });
    return {
      ...pngFile(png),
      width: out.raster.width,
      height: out.raster.height,
      scale: opts.scale,
      route: out.route,
      chosen: out.chosen,
      fallback: out.fallback,
      patched: Math.round(out.patched * 1000) / 1000,
      model: out.model ? { ...out.model } : null,
      art: { class: out.art.class, top24: out.art.top24, near24: out.art.near24, colours: out.art.colours },
      preShrunk: out.plan.preShrunk,
      from: out.plan.from,
      to: out.plan.to,
      effectiveScale: Math.round((out.raster.width / src.width) * 1000) / 1000,
      opaque,
      ms: out.ms,
    };
}
