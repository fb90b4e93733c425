// Op `gangsheet`: many designs nested on their true outlines on a DTF film roll, as a print-ready PDF (one
// page per sheet), a PNG of the first sheet, or the manifest alone (POST /api/v1/gangsheet); with `underbase`,
// the white layer too (gangsheet/white.ts): the White separation in the PDF, and for png a zip of the colour
// PNG and the white plate PNG. Each design is drawn and embedded cut to its ink (gangsheet/trim.ts), the box
// each placement of the manifest gives. Options: the table in gangsheet/options.ts; docs/algorithms/gangsheet.md.
import { InkprepError, invalidOption } from '../errors.js';
import { decodeImage, probeImage } from '../raster/decode.js';
import type { Raster } from '../raster/types.js';
import type { OpFile } from '../raster/file.js';
import { unpackDesigns } from '../gangsheet/designs.js';
import { layoutGangsheet, manifestJson, type GangLayout } from '../gangsheet/layout.js';
import { GANGSHEET_LIMITS, GANGSHEET_OPTIONS, type GangsheetOptions, type ResolvedGangsheet } from '../gangsheet/options.js';
import { writeGangPdf } from '../gangsheet/pdf.js';
import { renderSheetPng } from '../gangsheet/png.js';
import { cutDesigns, cutPlates } from '../gangsheet/trim.js';
import { makeWhiteLayer, type GangWhiteLayer } from '../gangsheet/white.js';
import { storedZip } from '../gangsheet/zip.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

/**
 * All designs together may hold at most this many times the per-image pixel limit (decoded RGBA is 4 bytes a
 * pixel: at the default 100 MP limit, 200 MP is 800 MB held at once); each alone stays within the limit.
 */
export const GANGSHEET_TOTAL_PIXELS_FACTOR = 2;

/** Highest PNG resolution (the DTF print resolution; art above it is sampled down). */
export const GANGSHEET_PNG_MAX_DPI = 300;

/** Names of the two PNGs in the zip a png request with the white layer answers. */
export const GANGSHEET_ZIP_NAMES = Object.freeze({ colour: 'sheet.png', white: 'sheet-white.png' });

/**
 * Result of `gangsheet`: `data` is the PDF (every sheet), the PNG of the first sheet (with the white layer: a
 * zip of the colour PNG and the white plate PNG, GANGSHEET_ZIP_NAMES), or the manifest as JSON (`format`
 * json); `layout` is the manifest in every case.
 */
export interface GangsheetResult extends OpFile<'pdf' | 'png' | 'json' | 'zip', 'application/pdf' | 'image/png' | 'application/json' | 'application/zip'> {
  requested: 'pdf' | 'png' | 'json';
  layout: GangLayout;
  /** Resolution of the PNG (format png only). */
  pngDpi?: number;
}

/** Stages of `gangsheet` and their shares of a typical run. */
export const GANGSHEET_STAGES = { decode: 20, nest: 45, white: 10, encode: 25 } as const;

export const gangsheetOp: OpDef<GangsheetOptions, ResolvedGangsheet, GangsheetResult> = {
  fields: GANGSHEET_OPTIONS.fields,
  resolve: GANGSHEET_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, GANGSHEET_STAGES);
    progress('decode');
    const files = isRaster(input) ? [input] : unpackDesigns(input);
    if (files.length > GANGSHEET_LIMITS.maxDesigns) throw invalidOption('design', `at most ${GANGSHEET_LIMITS.maxDesigns} design files`, files.length);
    // only the designs an item uses are decoded (and embedded)
    const used = new Set(opts.items.map((it) => it.design));
    // the designs' headers first: their pixels together are bounded before any is decoded
    let total = 0;
    for (let k = 0; k < files.length; k++) {
      const f = files[k]!;
      if (!used.has(k)) continue;
      total += isRaster(f) ? f.width * f.height : await probeImage(f, { maxPixels: ctx.maxPixels }).then((i) => i.width * i.height);
    }
    const maxTotal = GANGSHEET_TOTAL_PIXELS_FACTOR * ctx.maxPixels;
    if (total > maxTotal) {
      throw new InkprepError('image_too_large', `The designs hold ${total} pixels together, over the ${maxTotal} a gang sheet takes (${GANGSHEET_TOTAL_PIXELS_FACTOR} x the per-image limit); send them smaller`, { maxPixels: maxTotal, pixels: total });
    }
    const rasters: (Raster | null)[] = [];
    for (let k = 0; k < files.length; k++) {
      const f = files[k]!;
      rasters.push(!used.has(k) ? null : isRaster(f) ? f : (await decodeImage(f, { maxPixels: ctx.maxPixels })).raster);
    }
    progress('nest');
    // a missing index is reported by the layout, naming the item; unused files stand in as empty
    const layout = layoutGangsheet(rasters.map((r) => r ?? { width: 1, height: 1, data: new Uint8ClampedArray(4) }).slice(0, files.length), opts);
    let white: GangWhiteLayer | null = null;
    if (opts.white) {
      progress('white');
      // the rasters were decoded here (or are the caller's: then copied): the plates may take them over
      white = makeWhiteLayer(rasters, { ...opts, white: opts.white }, layout, !isRaster(input));
      layout.white = white.report;
      layout.warnings.push(...white.warnings);
      // by item; the design-file warnings (no item) stay last, in file order (the sort is stable)
      layout.warnings.sort((a, b) => (a.item ?? Number.MAX_SAFE_INTEGER) - (b.item ?? Number.MAX_SAFE_INTEGER));
    }
    progress('encode');
    const common = { requested: opts.format, layout };
    if (opts.format === 'json') {
      const json = Buffer.from(JSON.stringify(manifestJson(layout)), 'utf8');
      const data = new Uint8Array(json.length);
      data.set(json);
      return { ...common, data, format: 'json', contentType: 'application/json' };
    }
    // what the outputs draw: each design (or plate set) cut to its ink box, the box its placements give, in
    // place, so each whole image is let go as its cut is made
    if (white) {
      rasters.length = 0; // the plates hold what is drawn
      cutPlates(white.plates, white.designOf, layout.items);
    } else cutDesigns(rasters, layout.items);
    if (opts.format === 'pdf') {
      const pdfWhite = white && opts.white ? { spotName: opts.white.spotName, plates: white.plates, plateOf: white.plateOf } : undefined;
      const data = writeGangPdf(opts.sheetWidthIn, layout.sheets.map((s) => s.lengthIn), layout.placements, rasters, pdfWhite);
      return { ...common, data, format: 'pdf', contentType: 'application/pdf' };
    }
    const dpi = Math.min(GANGSHEET_PNG_MAX_DPI, Math.round(layout.maxDpi));
    const first = layout.sheets[0]!;
    const on = layout.placements.filter((p) => p.sheet === 0);
    if (!white) {
      const data = await renderSheetPng(first.widthIn, first.lengthIn, dpi, on, rasters);
      return { ...common, data, format: 'png', contentType: 'image/png', pngDpi: dpi };
    }
    // one answer holds both plates: the nesting has a time budget, so two requests may lay out differently
    const { plates, plateOf } = white;
    const colour = await renderSheetPng(first.widthIn, first.lengthIn, dpi, on, plates.map((p) => p.colour), { sourceOf: plateOf });
    const whitePng = await renderSheetPng(first.widthIn, first.lengthIn, dpi, on, plates.map((p) => ({ width: p.width, height: p.height, grey: p.white })), { sourceOf: plateOf });
    const data = storedZip([{ name: GANGSHEET_ZIP_NAMES.colour, data: colour }, { name: GANGSHEET_ZIP_NAMES.white, data: whitePng }]);
    return { ...common, data, format: 'zip', contentType: 'application/zip', pngDpi: dpi };
  },
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};
