// Op `mockupBatch`: one design rendered on many garments (POST /api/v1/mockup/batch). The options are the table
// in mockup/batch-options.ts (the mockup table's fields plus `items`), the renderer mockup/batch-render.ts;
// encoded artwork is decoded once for the whole batch (mockup/design-source.ts decodedOnceSource).
import { MOCKUP_BATCH_OPTIONS, type MockupBatchOptions, type ResolvedMockupBatch } from '../mockup/batch-options.js';
import { MOCKUP_BATCH_STAGES, renderMockupBatch, type MockupBatchResult } from '../mockup/batch-render.js';
import { decodedOnceSource, rasterSource } from '../mockup/design-source.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

export const mockupBatchOp: OpDef<MockupBatchOptions, ResolvedMockupBatch, MockupBatchResult> = {
  fields: MOCKUP_BATCH_OPTIONS.fields,
  resolve: MOCKUP_BATCH_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, MOCKUP_BATCH_STAGES);
    const cacheDir = ctx.settings?.garmentCacheDir;
    progress('decode');
    const design = isRaster(input) ? rasterSource(input) : await decodedOnceSource(input, ctx.maxPixels);
    return renderMockupBatch(design, opts.items, progress, cacheDir);
  },
  transfer(result) {
    return result.images.map((r) => r.data.buffer as ArrayBuffer);
  },
};
