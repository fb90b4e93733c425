// Op `mockup`: a design rendered on a blank at true size (spec 4.12). The options are the table in
// mockup/resolve.ts, the renderer is mockup/render.ts; the op decodes nothing itself: encoded artwork goes to
// the renderer as a design source that decodes and resamples it in one pass (mockup/design-source.ts).
import { MOCKUP_OPTIONS, type MockupOptions, type ResolvedMockup } from '../mockup/resolve.js';
import { MOCKUP_STAGES, renderMockup, type MockupResult } from '../mockup/render.js';
import { bytesSource } from '../mockup/design-source.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

export const mockupOp: OpDef<MockupOptions, ResolvedMockup, MockupResult> = {
  fields: MOCKUP_OPTIONS.fields,
  resolve: MOCKUP_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, MOCKUP_STAGES);
    // The blanks' disk cache is the engine's (EngineOptions.dataDir / garmentCacheDir).
    const cacheDir = ctx.settings?.garmentCacheDir;
    if (isRaster(input)) return renderMockup(input, opts, progress, cacheDir);
    progress('decode');
    return renderMockup(await bytesSource(input, ctx.maxPixels), opts, progress, cacheDir);
  },
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};
