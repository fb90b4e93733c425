// Op `removeBg`: background removal for print artwork (POST /api/v1/remove-bg, `inkprep remove-bg`).
// PNG or JPEG in (at most 25 megapixels, checked from the header), PNG with straight alpha out, same size,
// plus the method used and warnings (the X-Method and X-Warnings headers). Algorithm: engine/src/matte/.
import { InkprepError, invalidOption } from '../errors.js';
import { decodeImage } from '../raster/decode.js';
import { encodePng } from '../raster/encode.js';
import type { Raster } from '../raster/types.js';
import { isUnset, type OptionReader } from '../options/validate.js';
import { custom, oneOf } from '../options/fields.js';
import { defineOptions, type LibOptions, type WireOptions } from '../options/table.js';
import { resolveModelConfig, type SegmentationModelConfig, type SegmentationModelOptions } from '../matte/model.js';
import { removeBackground, type RemoveBgBackend } from '../matte/pipeline.js';
import { cachedDefaultModel } from '../matte/model-catalog.js';
import { defaultSettings, type EngineSettings } from '../settings.js';
import type { MatteStats, RemoveBgMethod } from '../matte/types.js';
import { stageProgress } from '../progress.js';
import { isRaster, type OpDef } from './types.js';
import { pngFile, type PngFile } from '../raster/file.js';

/** Largest remove-bg input in pixels (spec 8: 25 megapixels). */
export const REMOVE_BG_MAX_PIXELS = 25_000_000;

/**
 * The caller's model options, their own fields checked now (the engine's were checked by createEngine); null
 * when the call names none: the engine's model is then chosen where the op runs (chooseModel).
 */
function readModel(o: OptionReader): Readonly<SegmentationModelOptions> | null {
  const m = o.get('model');
  let model: SegmentationModelOptions;
  if (isUnset(o, 'model', m)) return null;
  if (typeof m === 'string') model = { path: m };
  else if (typeof m === 'object' && !Array.isArray(m)) model = { ...(m as SegmentationModelOptions) };
  else throw invalidOption('model', 'a model path or { path, input_size, mean, std, output }', m);
  resolveModelConfig(model);
  return Object.freeze(model);
}

const NO_MODEL = 'auto or matte when no segmentation model is configured';

/**
 * The model a call runs with: the caller's (taking the engine's input settings it lacks), else the engine's
 * path, else the catalogue default in the engine's model directory (looked at now: a model fetched while the
 * engine runs is used by the next call), with why there is none (`loading` while it is being fetched).
 */
function chooseModel(caller: Readonly<SegmentationModelOptions> | null, models: EngineSettings['models']): { model: SegmentationModelConfig | null; state: 'absent' | 'loading' } {
  const { path, ...inputSettings } = models.segmentation;
  if (caller) return { model: resolveModelConfig({ ...inputSettings, ...caller }), state: 'absent' };
  if (path) return { model: resolveModelConfig(models.segmentation, (k) => `models.segmentation.${k}`), state: 'absent' };
  if (!models.dir) return { model: null, state: 'absent' };
  const d = cachedDefaultModel(models.dir);
  return { model: d.model, state: d.state === 'loading' ? 'loading' : 'absent' };
}

// Options of `removeBg`, declared once. All optional; the HTTP endpoint sends none (a client can never choose
// a model file), so every field is offered by the CLI and the library only.
const FIELDS = [
  oneOf('backend', 'backend', ['auto', 'matte', 'model'] as const, 'auto', '`auto`: artwork matte for art, the segmentation model for photos (not_separable without one); `matte`: always the matte (a photo gets a warning); `model`: needs a model', { surfaces: ['cli'] }),
  custom<SegmentationModelOptions | string, ReturnType<typeof readModel>>()('model', 'model', {
    spec: { kind: 'text' }, text: 'FILE.onnx', read: (o) => readModel(o),
  }, 'segmentation model file for this call; default the engine\'s `models` setting (CLI and service: env INKPREP_SEGMENTATION_MODEL, else the cached default of `inkprep models`)', { surfaces: ['cli'] }),
  oneOf('enclosed', 'enclosed', ['remove', 'keep'] as const, 'remove', '`remove`: enclosed regions of the background colour (letter counters, white details of art on white) become transparent; `keep`: only the background connected to the border', { surfaces: ['cli'] }),
] as const;

/** The `removeBg` option table. */
export const REMOVE_BG_OPTIONS = defineOptions(FIELDS, ({ field }): ResolvedRemoveBg => {
  const backend = field('backend');
  const model = field('model');
  // A named model without a path cannot run (the engine's model is not used then either).
  if (backend === 'model' && model && !model.path) throw invalidOption('backend', NO_MODEL, backend);
  return { backend, model, enclosed: field('enclosed') };
});

/** Options of `removeBg`. All optional; the HTTP endpoint sends none. */
export type RemoveBgOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;

export interface ResolvedRemoveBg {
  backend: RemoveBgBackend;
  /** The caller's model options (checked); null: the engine's model, chosen where the op runs. */
  model: Readonly<SegmentationModelOptions> | null;
  enclosed: 'remove' | 'keep';
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
  fields: REMOVE_BG_OPTIONS.fields,
  resolve: REMOVE_BG_OPTIONS.resolve,
  async run(input, opts, ctx) {
    const models = (ctx.settings ?? defaultSettings()).models;
    const { model, state } = chooseModel(opts.model, models);
    if (opts.backend === 'model' && !model) throw invalidOption('backend', NO_MODEL, opts.backend);
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
      if (dec.info.isJpeg) jpeg = true;
      dpi = dec.info.density ?? undefined;
    }
    progress('matte', 0, opts.backend === 'model' ? 'model' : 'matte');
    const r = await removeBackground(raster, { backend: opts.backend, model, threads: models.threads, jpeg, enclosed: opts.enclosed, modelState: state, onProgress: (done, stage) => progress('matte', done, stage) });
    progress('encode');
    const png = await encodePng({ width: r.width, height: r.height, data: r.data }, dpi ? { dpi } : {});
    return { ...pngFile(png), width: r.width, height: r.height, method: r.method, warnings: r.warnings, stats: r.stats };
  },
  transfer(result) {
    return [result.data.buffer as ArrayBuffer];
  },
};
