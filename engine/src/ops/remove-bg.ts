// Op `removeBg`: background removal for print artwork (POST /api/v1/remove-bg, `inkprep remove-bg`).
// PNG or JPEG in (at most 25 megapixels, checked from the header), PNG with straight alpha out, same size,
// plus the method used and warnings (the X-Method and X-Warnings headers). Algorithm: engine/src/matte/.
import { InkprepError, invalidOption } from '../errors.js';
import { decodeImage } from '../raster/decode.js';
import { encodePng } from '../raster/encode.js';
import type { Raster } from '../raster/types.js';
import { isUnset, parseEnum, readOptions } from '../options/validate.js';
import { resolveModelConfig, segmentationModelFromEnv, type SegmentationModelConfig, type SegmentationModelOptions } from '../matte/model.js';
import { removeBackground, type RemoveBgBackend } from '../matte/pipeline.js';
import { defaultSegmentationModel } from '../matte/model-catalog.js';
import type { MatteStats, RemoveBgMethod } from '../matte/types.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';
import { pngFile, type PngFile } from './output.js';

/** Largest remove-bg input in pixels (spec 8: 25 megapixels). */
export const REMOVE_BG_MAX_PIXELS = 25_000_000;

/** Options of `removeBg`. All optional; the HTTP endpoint sends none. */
export interface RemoveBgOptions {
  /** `auto` (default): artwork matte, segmentation model for photos (422 not_separable without one); `matte` (always the matte, with a warning on photos); `model` (needs a model). */
  backend?: RemoveBgBackend;
  /** Segmentation model; default from env INKPREP_SEGMENTATION_MODEL / _SIZE / _MEAN / _STD / _OUTPUT, else the
   * cached default model (`inkprep models`; INKPREP_SEGMENTATION_MODEL=none: no model). */
  model?: SegmentationModelOptions | string;
  /** `remove` (default): enclosed regions of the background colour (letter counters, but also e.g. white
   * details of art on white) become transparent; `keep`: only the background connected to the border. */
  enclosed?: 'remove' | 'keep';
}

export interface ResolvedRemoveBg {
  backend: RemoveBgBackend;
  model: SegmentationModelConfig | null;
  enclosed: 'remove' | 'keep';
  /** Why there is no model: `loading` while the default model is being fetched. */
  modelState: 'absent' | 'loading';
}

/** What `removeBg` returns: the PNG in `data`, straight alpha, same size as the input (the input's DPI is kept). */
export interface RemoveBgResult extends PngFile {
  width: number;
  height: number;
  /** `matte` (artwork matting), `model` (segmentation model refined by matting), `alpha` (input already transparent). */
  method: RemoveBgMethod;
  /** ASCII sentences `<code>: <text>`: not_separable, already_transparent. */
  warnings: string[];
  stats: MatteStats;
}

/** Stages of `removeBg` and their shares of a typical run. */
export const REMOVE_BG_STAGES = { decode: 3, matte: 95, encode: 2 } as const;

export const removeBgOp: OpDef<RemoveBgOptions, ResolvedRemoveBg, RemoveBgResult> = {
  resolve(raw) {
    const o = readOptions(raw);
    const backend = parseEnum<RemoveBgBackend>(o, 'backend', 'auto', ['auto', 'matte', 'model']);
    const m = o.get('model');
    let model: SegmentationModelConfig | null;
    let modelState: 'absent' | 'loading' = 'absent';
    if (isUnset(o, 'model', m)) {
      model = segmentationModelFromEnv();
      if (!model) {
        // No model named: the cached default (fetched by `inkprep models fetch` or on the server's first start).
        const d = defaultSegmentationModel();
        model = d.model;
        if (d.state === 'loading') modelState = 'loading';
      }
    } else if (typeof m === 'string') model = resolveModelConfig({ ...envModelOptions(), path: m });
    else if (typeof m === 'object' && !Array.isArray(m)) model = resolveModelConfig({ ...envModelOptions(), ...(m as SegmentationModelOptions) });
    else throw invalidOption('model', 'a model path or { path, input_size, mean, std, output }', m);
    if (backend === 'model' && !model) throw invalidOption('backend', 'auto or matte when no segmentation model is configured (INKPREP_SEGMENTATION_MODEL)', backend);
    const enclosed = parseEnum<'remove' | 'keep'>(o, 'enclosed', 'remove', ['remove', 'keep']);
    return Object.freeze({ backend, model, enclosed, modelState });
  },
  async run(input, opts, ctx) {
    const progress = stageProgress(ctx.progress, REMOVE_BG_STAGES);
    const limit = Math.min(ctx.maxPixels, REMOVE_BG_MAX_PIXELS);
    let raster: Raster;
    let jpeg: true | undefined;
    let dpi: number | undefined;
    if (isRaster(input)) {
      const pixels = input.width * input.height;
      if (pixels > limit) throw new InkprepError('image_too_large', `The image is ${input.width}x${input.height} (${pixels} pixels); the limit is ${limit} pixels`, { maxPixels: limit, pixels });
      raster = input;
    } else {
      progress('decode');
      const dec = await decodeImage(input, { maxPixels: limit, formats: ['png', 'jpeg'] });
      raster = dec.raster;
      // A JPEG says so; PNGs (possibly saved from a JPEG) and rasters are checked for ringing by the matte.
      if (dec.info.is_jpeg) jpeg = true;
      dpi = dec.info.density ?? undefined;
    }
    progress('matte', 0, opts.backend === 'model' ? 'model' : 'matte');
    const r = await removeBackground(raster, { backend: opts.backend, model: opts.model, jpeg, enclosed: opts.enclosed, modelState: opts.modelState, onProgress: (done, stage) => progress('matte', done, stage) });
    progress('encode');
    const png = await encodePng({ width: r.width, height: r.height, data: r.data }, dpi ? { dpi } : {});
    return { ...pngFile(png), width: r.width, height: r.height, method: r.method, warnings: r.warnings, stats: r.stats };
  },
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};

function envModelOptions(): SegmentationModelOptions {
  const e = process.env;
  return { input_size: e.INKPREP_SEGMENTATION_SIZE, mean: e.INKPREP_SEGMENTATION_MEAN, std: e.INKPREP_SEGMENTATION_STD, output: e.INKPREP_SEGMENTATION_OUTPUT as SegmentationModelOptions['output'] };
}
