// Op `vectorize`: raster art -> print-ready SVG (spec 4.8). Pipeline: prepare (alpha edge) -> quantize
// (palette, labels) -> clean (specks) -> trace (potrace-style, stacked or cutout) -> optional gradient fills
// -> SVG, and the document in `output_format` (PDF, EPS or DXF: vectorize/formats/). Option resolution maps the
// user-facing fields (human units) to the stage parameters once.
import { decodeImage } from '../raster/decode.js';
import type { Raster } from '../raster/types.js';
import { invalidOption } from '../errors.js';
import { isUnset, noteField, parseBool, parseEnum, parseNumber, readOptions, type OptionReader, type TextOptions } from '../options/validate.js';
import { prepareImage } from '../vectorize/prepare/edge-cleanup.js';
import { withScratch, type Scratch } from '../vectorize/scratch.js';
import { quantize, type ColorsOption } from '../vectorize/quantize/index.js';
import { DEFAULT_SPECK_SIZE, mergeSpecksRuns } from '../vectorize/clean/specks.js';
import { fitGradientFills, solidFills } from '../vectorize/gradients/fit.js';
import { mergeShadedBands } from '../vectorize/gradients/merge.js';
import { traceLabelMap } from '../vectorize/trace/index.js';
import { recognisePrimitives } from '../vectorize/primitives/index.js';
import { writeSvg } from '../vectorize/svg/index.js';
import { CONTENT_TYPES, DXF_UNITS, VECTOR_FORMATS, writeDocument, type DxfUnits, type VectorFormat } from '../vectorize/formats/index.js';
import type { Fill, TraceParams } from '../vectorize/types.js';
import { stageProgress, type StageReporter } from '../progress.js';
import { isRaster, type OpDef } from './types.js';

/** Options of `vectorize` (spec 4.8; the text forms of HTTP forms and CLI flags go through `textOptions`). */
export interface VectorizeOptions {
  /** `auto` (default), an integer 1-20 (a maximum; 1 = single-colour silhouette), or `unlimited`. */
  colors?: 'auto' | 'unlimited' | number;
  /** `smoother` | `balanced` (default) | `precise`. */
  detail?: Detail;
  /** `stacked` (default) | `cutout`. */
  shape_style?: 'stacked' | 'cutout';
  /** 0-16 px across, default 4. */
  speck_size?: number;
  /** Default true. */
  edge_cleanup?: boolean;
  /** Default true; only `colors=unlimited` honours false. */
  smooth_bands?: boolean;
  /** Default false. */
  gradients?: boolean;
  /** Physical width in inches (0.1-500); omitted: SVG width/height in px, PDF/EPS/DXF at 72 px per inch. */
  print_width_inches?: number;
  /** `svg` (default) | `pdf` | `eps` | `dxf`: the format of `data` (the result's `svg` is always written). */
  output_format?: VectorFormat;
  /** DXF drawing units: `in` (default) | `mm`; other formats ignore it. */
  dxf_units?: DxfUnits;
  /** Default true: outlines that are circles, ellipses or (rounded) rectangles are written as those exact shapes. */
  primitives?: boolean;
}

export type Detail = 'smoother' | 'balanced' | 'precise';

/** Resolved options. */
export interface ResolvedVectorize {
  colors: ColorsOption;
  detail: Detail;
  shapeStyle: 'stacked' | 'cutout';
  speckSize: number;
  edgeCleanup: boolean;
  smoothBands: boolean;
  gradients: boolean;
  printWidthInches: number | null;
  outputFormat: VectorFormat;
  dxfUnits: DxfUnits;
  primitives: boolean;
  trace: TraceParams;
}

/** What `vectorize` returns. */
export interface VectorizeResult {
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

/**
 * `detail` -> potrace parameters. alphaMax is the corner threshold (lower keeps more corners), optTolerance the
 * curve-joining tolerance in px.
 */
export const DETAIL_PARAMS: Readonly<Record<Detail, { alphaMax: number; optTolerance: number }>> = Object.freeze({
  smoother: { alphaMax: 1.2, optTolerance: 0.4 },
  balanced: { alphaMax: 1.0, optTolerance: 0.2 },
  precise: { alphaMax: 0.6, optTolerance: 0.1 },
});

function parseColors(o: OptionReader): ColorsOption {
  noteField({ field: 'colors', kind: 'integer', min: 1, max: 20, words: ['auto', 'unlimited'], default: 'auto' });
  const v = o.get('colors');
  if (isUnset(o, 'colors', v) || v === 'auto') return 'auto';
  if (v === 'unlimited') return 'unlimited';
  const n = typeof v === 'number' ? v : o.text && typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 20) throw invalidOption('colors', 'auto, unlimited or an integer from 1 to 20', v);
  return n;
}

/** Validate `vectorize` options; throws `invalid_option` naming the field. */
export function resolveVectorize(raw: VectorizeOptions | TextOptions | undefined): Readonly<ResolvedVectorize> {
  const o = readOptions(raw);
  const colors = parseColors(o);
  const detail = parseEnum(o, 'detail', 'balanced', ['smoother', 'balanced', 'precise'] as const);
  const shapeStyle = parseEnum(o, 'shape_style', 'stacked', ['stacked', 'cutout'] as const);
  const speckSize = parseNumber(o, 'speck_size', DEFAULT_SPECK_SIZE, 0, 16);
  const edgeCleanup = parseBool(o, 'edge_cleanup', true);
  const smoothBands = parseBool(o, 'smooth_bands', true);
  const gradients = parseBool(o, 'gradients', false);
  const printWidthInches = parseNumber(o, 'print_width_inches', undefined, 0.1, 500) ?? null;
  const outputFormat = parseEnum(o, 'output_format', 'svg', VECTOR_FORMATS);
  const dxfUnits = parseEnum(o, 'dxf_units', 'in', DXF_UNITS);
  const primitives = parseBool(o, 'primitives', true);
  const trace: TraceParams = Object.freeze({
    ...DETAIL_PARAMS[detail],
    turdSize: 0,
    shapeStyle,
    smooth: colors === 'unlimited' ? smoothBands : true,
  });
  return Object.freeze({ colors, detail, shapeStyle, speckSize, edgeCleanup, smoothBands, gradients, printWidthInches, outputFormat, dxfUnits, primitives, trace });
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

export const vectorizeOp: OpDef<VectorizeOptions, ResolvedVectorize, VectorizeResult> = {
  resolve: resolveVectorize,
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, VECTORIZE_STAGES);
    if (isRaster(input)) return vectorizeRaster(input, opts, {}, progress);
    progress('decode');
    // Memory: the decoded pixels never leave this thread, so no transferable copy, and prepare writes over them.
    const { raster, info } = await decodeImage(input, { maxPixels: ctx.maxPixels, copy: false });
    return vectorizeRaster(raster, opts, { jpeg: info.is_jpeg, owned: true }, progress);
  },
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};
