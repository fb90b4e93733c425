// Op `scan`: the print-readiness report (spec 2.2, POST /api/v1/scan). Options: scan/options.ts.
import { decodeImage } from '../raster/decode.js';
import { scanRaster } from '../scan/report.js';
import type { ScanReport } from '../scan/types.js';
import { SCAN_OPTIONS, type ResolvedScan, type ScanOptions } from '../scan/options.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

export type { ScanOptions, ResolvedScan };

/** Stages of `scan` and their shares of a typical run. */
export const SCAN_STAGES = { decode: 20, alpha: 30, background: 3, specks: 12, lines: 35 } as const;

export const scanOp: OpDef<ScanOptions, ResolvedScan, ScanReport> = {
  fields: SCAN_OPTIONS.fields,
  resolve: SCAN_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, SCAN_STAGES);
    if (isRaster(input)) {
      return scanRaster({ raster: input, info: { format: 'png', isJpeg: false, density: null }, printWidthInches: opts.printWidthInches, progress });
    }
    progress('decode');
    const { raster, info } = await decodeImage(input, { maxPixels: ctx.maxPixels });
    return scanRaster({ raster, info, printWidthInches: opts.printWidthInches, progress });
  },
};
