// The vectorize pipeline, stage by stage: prepare (alpha edge) -> quantize (palette, labels) -> bands (shaded
// bands merged, with gradients) -> specks (clean) -> trace (potrace-style, stacked or cutout; primitives
// recognised) -> fills (solid or gradient) -> SVG, and the document in `output_format` (PDF, EPS or DXF:
// formats/). Runs in-thread on decoded pixels; the op (ops/vectorize.ts) decodes and resolves the options, and
// the upscaler's vector path (upscale/vector.ts) calls it with its own settings.
import type { OpFile } from '../raster/file.js';
import type { Raster } from '../raster/types.js';
import { prepareImage } from './prepare/edge-cleanup.js';
import { withScratch, type Scratch } from './scratch.js';
import { quantize } from './quantize/index.js';
import { mergeSpecksRuns } from './clean/specks.js';
import { fitGradientFills, solidFills } from './gradients/fit.js';
import { mergeShadedBands } from './gradients/merge.js';
import { traceLabelMap } from './trace/index.js';
import { recognisePrimitives } from './primitives/index.js';
import { writeSvg } from './svg/index.js';
import { CONTENT_TYPES, writeDocument, type VectorFormat } from './formats/index.js';
import type { Fill } from './types.js';
import type { ResolvedVectorize } from './settings.js';
import type { StageReporter } from '../progress.js';

/** What `vectorize` returns. */
export interface VectorizeResult extends OpFile<VectorFormat> {
  /** The drawing as SVG (always written, whatever `output_format` asks: a preview of the same shapes). */
  svg: string;
  /** The format of `data` (the `output_format` option). */
  format: VectorFormat;
  /** The document in `format`: PDF bytes, or the UTF-8 text of the SVG, EPS or DXF. */
  data: Uint8Array;
  /** The MIME type of `data` (`image/svg+xml; charset=utf-8`, `application/pdf`, `application/postscript`, `image/vnd.dxf`). */
  contentType: string;
  /** Closed outlines drawn (moveto commands over all paths; the X-Paths header; the same in every format). */
  paths: number;
  /** Distinct fills painted (palette entries used). */
  colorsUsed: number;
  /** Milliseconds spent converting (after decoding). */
  traceMs: number;
  width: number;
  height: number;
}

/** Stages of `vectorize` and their shares of a typical run (2000 px flat art: quantize ~50%, trace ~40%). */
export const VECTORIZE_STAGES = { decode: 2, prepare: 6, quantize: 55, bands: 2, specks: 3, trace: 30, fills: 1, svg: 1 } as const;
export type VectorizeStage = keyof typeof VECTORIZE_STAGES;

/**
 * Run the whole pipeline on decoded pixels (in-thread). `source.jpeg`: the pixels were decoded from a JPEG (its
 * ringing and chroma noise are smoothed before clustering); omitted, a noise estimate decides. `source.owned`:
 * the raster is ours to overwrite (decoded here), so the prepare stage reuses its pixels.
 */
export function vectorizeRaster(raster: Raster, opts: Readonly<ResolvedVectorize>, source: { jpeg?: boolean; owned?: boolean } = {}, progress: StageReporter<VectorizeStage> = () => {}): VectorizeResult {
  // The per-pixel arrays of prepare and quantize come from the thread's scratch (reused across runs); none of
  // them outlives this call (the result holds only the documents written from them).
  return withScratch((scratch) => vectorizeWith(raster, opts, source, progress, scratch));
}

function vectorizeWith(raster: Raster, opts: Readonly<ResolvedVectorize>, source: { jpeg?: boolean; owned?: boolean }, progress: StageReporter<VectorizeStage>, scratch: Scratch): VectorizeResult {
  const t0 = performance.now();
  progress('prepare');
  const prep = prepareImage(raster, opts.edgeCleanup, source.owned === true, scratch);
  progress('quantize');
  const { map, lab } = quantize(prep, opts.colors, undefined, source.jpeg, (done) => progress('quantize', done), scratch);
  if (opts.gradients) {
    progress('bands');
    mergeShadedBands(map, lab);
  }
  progress('specks');
  // the runs of the merged map go on to the trace (one scan of the map fewer)
  const { runs } = mergeSpecksRuns(map, opts.speckSize);
  progress('trace');
  const outlines = traceLabelMap(map, opts.trace, (done) => progress('trace', done), runs);
  const traced = opts.primitives ? recognisePrimitives(outlines).result : outlines;
  progress('fills');
  const fills: Fill[] = opts.gradients ? fitGradientFills(map, prep.rgba) : solidFills(map);
  progress('svg');
  const page = { width: raster.width, height: raster.height, ...(opts.printWidthInches !== null ? { printWidthInches: opts.printWidthInches } : {}) };
  const out = writeSvg(traced, fills, page);
  let data: Uint8Array;
  if (opts.outputFormat === 'svg') {
    data = new TextEncoder().encode(out.svg);
  } else {
    // DXF layers are named by the region's ink (a gradient-filled region keeps its palette colour)
    const layerRgb: [number, number, number][] = [];
    for (let i = 0; i + 2 < map.palette.length; i += 3) layerRgb.push([map.palette[i]!, map.palette[i + 1]!, map.palette[i + 2]!]);
    data = writeDocument(opts.outputFormat, traced, fills, layerRgb, { ...page, dxfUnits: opts.dxfUnits }).data;
  }
  return {
    svg: out.svg,
    format: opts.outputFormat,
    data,
    contentType: CONTENT_TYPES[opts.outputFormat],
    paths: out.paths,
    colorsUsed: out.colorsUsed,
    traceMs: Math.round(performance.now() - t0),
    width: raster.width,
    height: raster.height,
  };
}
