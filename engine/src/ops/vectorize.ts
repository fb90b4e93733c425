// Op `vectorize`: raster art -> print-ready SVG (spec 4.8). The options are the table in vectorize/options.ts
// (its resolver maps the user-facing fields onto the pipeline's settings once); the run decodes and hands the
// pixels to the pipeline (vectorize/pipeline.ts, where the stages are named).
import { decodeImage } from '../raster/decode.js';
import { VECTORIZE_OPTIONS, resolveVectorize, type VectorizeOptions } from '../vectorize/options.js';
import type { ResolvedVectorize } from '../vectorize/settings.js';
import { VECTORIZE_STAGES, vectorizeRaster, type VectorizeResult } from '../vectorize/pipeline.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

export { resolveVectorize, type VectorizeOptions };

export const vectorizeOp: OpDef<VectorizeOptions, ResolvedVectorize, VectorizeResult> = {
  fields: VECTORIZE_OPTIONS.fields,
  resolve: VECTORIZE_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, VECTORIZE_STAGES);
    if (isRaster(input)) return vectorizeRaster(input, opts, {}, progress);
    progress('decode');
    // Memory: the decoded pixels never leave this thread, so no transferable copy, and prepare writes over them.
    const { raster, info } = await decodeImage(input, { maxPixels: ctx.maxPixels, copy: false });
    return vectorizeRaster(raster, opts, { jpeg: info.isJpeg, owned: true }, progress);
  },
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};
