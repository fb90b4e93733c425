// Op `scan`: the print-readiness report (spec 2.2, POST /api/v1/scan). Options use the API field names.
import { decodeImage } from '../raster/decode.js';
import { parseNumber, readOptions } from '../options/validate.js';
import { scanRaster, DEFAULT_PRINT_WIDTH_IN } from '../scan/report.js';
import type { ScanReport } from '../scan/types.js';
import { PRINT_WIDTH_RANGE } from '../fix/options.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

/** Scan options. */
export interface ScanOptions {
  /** Target print width in inches, 0.1..500, default 12. */
  print_width_inches?: number;
}

export interface ResolvedScan {
  print_width_inches: number;
}

/** Stages of `scan` and their shares of a typical run. */
export const SCAN_STAGES = { decode: 20, alpha: 30, background: 3, specks: 12, lines: 35 } as const;

export const scanOp: OpDef<ScanOptions, ResolvedScan, ScanReport> = {
  resolve(raw) {
    const o = readOptions(raw);
    return Object.freeze({
      print_width_inches: parseNumber(o, 'print_width_inches', DEFAULT_PRINT_WIDTH_IN, PRINT_WIDTH_RANGE[0], PRINT_WIDTH_RANGE[1]),
    });
  },
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, SCAN_STAGES);
    if (isRaster(input)) {
      return scanRaster({ raster: input, info: { format: 'png', is_jpeg: false, density: null }, printWidthInches: opts.print_width_inches, progress });
    }
    progress('decode');
    const { raster, info } = await decodeImage(input, { maxPixels: ctx.maxPixels });
    return scanRaster({ raster, info, printWidthInches: opts.print_width_inches, progress });
  },
};
