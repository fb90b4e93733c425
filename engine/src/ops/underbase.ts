// Op `underbase`: the white plate a DTF transfer needs under its colour, the knock-out, and a RIP-ready
// separation PDF (POST /api/v1/underbase). Options: the table in underbase/options.ts; how it works:
// docs/algorithms/underbase.md.
import { decodeImage } from '../raster/decode.js';
import { encodeGreyPng, encodePng } from '../raster/encode.js';
import type { Raster } from '../raster/types.js';
import type { OpFile } from '../raster/file.js';
import { narrowKnockouts, thinWhite } from '../underbase/checks.js';
import { UNDERBASE_OPTIONS, type ResolvedUnderbase, type UnderbaseOptions } from '../underbase/options.js';
import { writeSeparationPdf } from '../underbase/pdf.js';
import { computePlates } from '../underbase/plates.js';
import { underbaseStats, underbaseWarnings, type UnderbaseStats, type UnderbaseWarning } from '../underbase/report.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

/**
 * Result of `underbase`. `data` is the separation PDF (`format` pdf) or the white plate as an 8-bit grey PNG
 * (`png`, and also for a `json` request, which adds `colourPlate`).
 */
export interface UnderbaseResult extends OpFile<'pdf' | 'png', 'application/pdf' | 'image/png'> {
  /** What was asked for (`json`: the caller renders both plates and the numbers). */
  requested: 'pdf' | 'png' | 'json';
  width: number;
  height: number;
  /** Resolution the plates are at (and the millimetre and point rules were measured at). */
  dpi: number;
  /** The garment colour used (hex, and `style:color` when it came from the catalog). */
  garment: { hex: string; source?: string } | null;
  knockout: ResolvedUnderbase['knockout'];
  chokeMm: number;
  chokePx: number;
  /** The transparency fix run first, if any. */
  fixed: 'alpha_threshold' | 'halftone' | null;
  stats: UnderbaseStats;
  warnings: UnderbaseWarning[];
  /** The colour plate as an RGBA PNG (format json only). */
  colourPlate?: Uint8Array;
}

/** Stages of `underbase` and their shares of a typical run. */
export const UNDERBASE_STAGES = { decode: 15, plates: 35, checks: 30, encode: 20 } as const;

export const underbaseOp: OpDef<UnderbaseOptions, ResolvedUnderbase, UnderbaseResult> = {
  fields: UNDERBASE_OPTIONS.fields,
  resolve: UNDERBASE_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, UNDERBASE_STAGES);
    let raster: Raster;
    let owned = false;
    if (isRaster(input)) raster = input;
    else {
      progress('decode');
      raster = (await decodeImage(input, { maxPixels: ctx.maxPixels })).raster;
      owned = true; // decoded here: its pixels become the colour plate, no copy
    }
    progress('plates');
    const plates = computePlates(raster, opts, owned);
    progress('checks');
    const warnings = underbaseWarnings(plates, thinWhite(plates), narrowKnockouts(plates));
    const stats = underbaseStats(plates);
    progress('encode');
    const dpi = Math.round(plates.dpi * 100) / 100;
    const common = {
      requested: opts.format,
      width: plates.width,
      height: plates.height,
      dpi,
      garment: opts.garment ? { hex: opts.garment.hex, ...(opts.garment.source ? { source: opts.garment.source } : {}) } : null,
      knockout: opts.knockout,
      chokeMm: opts.chokeMm,
      chokePx: Math.round(plates.chokePx * 100) / 100,
      fixed: plates.fixed,
      stats,
      warnings,
    };
    if (opts.format === 'pdf') {
      return { ...common, data: writeSeparationPdf(plates, opts.spotName), format: 'pdf', contentType: 'application/pdf' };
    }
    const white = await encodeGreyPng(plates.white, plates.width, plates.height, dpi);
    const colourPlate = opts.format === 'json' ? await encodePng(plates.colour, { dpi }) : undefined;
    return { ...common, data: white, format: 'png', contentType: 'image/png', ...(colourPlate ? { colourPlate } : {}) };
  },
  transfer(result) {
    const list = [result.data.buffer as ArrayBuffer];
    if (result.colourPlate) list.push(result.colourPlate.buffer as ArrayBuffer);
    return list;
  },
};
