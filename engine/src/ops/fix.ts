// Op `fix`: despeckle -> alpha threshold -> trim -> resize -> halftone (fix/pipeline.ts), then PNG with its DPI (pHYs)
// (spec 4.2, POST /api/v1/fix). Options: the table in fix/options.ts.
import { decodeImage } from '../raster/decode.js';
import { encodePng } from '../raster/encode.js';
import type { Raster } from '../raster/types.js';
import { FIX_OPTIONS, type FixOptions, type ResolvedFix } from '../fix/options.js';
import { fixRaster, type FixStats, type FixStep, type FixWarning } from '../fix/pipeline.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';
import { pngFile, type PngFile } from '../raster/file.js';

/** Result of `fix`: the PNG (`data`, moved back from the worker) and what was done. */
export interface FixResult extends PngFile {
  width: number;
  height: number;
  /** DPI written into the PNG. */
  dpi: number;
  /** Steps that ran, in order. */
  applied: FixStep[];
  /** What each step did (specksRemoved, alphaRemoved, halftoneCellPx, ...). */
  stats: FixStats;
  /** Things about the output the caller should know, e.g. `halftone_cell_too_small` (POST /fix: X-Warnings). */
  warnings: FixWarning[];
}

/** Stages of `fix` and their shares of a typical run (steps not asked for are skipped). */
export const FIX_STAGES = { decode: 5, despeckle: 35, alpha_threshold: 10, trim: 3, resize: 30, halftone: 10, encode: 7 } as const;

export const fixOp: OpDef<FixOptions, ResolvedFix, FixResult> = {
  fields: FIX_OPTIONS.fields,
  resolve: FIX_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, FIX_STAGES);
    let raster: Raster;
    if (isRaster(input)) raster = { width: input.width, height: input.height, data: input.data.slice() };
    else {
      progress('decode');
      raster = (await decodeImage(input, { maxPixels: ctx.maxPixels })).raster;
    }
    const out = await fixRaster(raster, opts, progress);
    progress('encode');
    const dpi = Math.round(out.dpi * 100) / 100;
    const png = await encodePng(out.raster, { dpi });
    return { ...pngFile(png), width: out.raster.width, height: out.raster.height, dpi, applied: out.applied, stats: out.stats, warnings: out.warnings };
  },
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};
