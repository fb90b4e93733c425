// Op `vectorize`: raster art -> print-ready SVG (spec 4.8). The option resolver maps the user-facing fields
// (human units) to the pipeline's settings once; the run decodes and hands the pixels to the pipeline
// (vectorize/pipeline.ts, where the stages are named).
import { decodeImage } from '../raster/decode.js';
import { invalidOption } from '../errors.js';
import { isUnset, noteField, parseBool, parseEnum, parseNumber, readOptions, type OptionReader, type TextOptions } from '../options/validate.js';
import type { ColorsOption } from '../vectorize/quantize/index.js';
import { DEFAULT_SPECK_SIZE } from '../vectorize/clean/specks.js';
import { DXF_UNITS, VECTOR_FORMATS, type DxfUnits, type VectorFormat } from '../vectorize/formats/index.js';
import type { TraceParams } from '../vectorize/types.js';
import { DETAIL_PARAMS, type Detail, type ResolvedVectorize } from '../vectorize/settings.js';
import { VECTORIZE_STAGES, vectorizeRaster, type VectorizeResult } from '../vectorize/pipeline.js';
import { stageProgress } from '../progress.js';
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

export const vectorizeOp: OpDef<VectorizeOptions, ResolvedVectorize, VectorizeResult> = {
  resolve: resolveVectorize,
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
