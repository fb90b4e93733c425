// The engine's own settings (paths and model choices a host gives createEngine), resolved once into plain
// data and handed to every task where it runs: to the pool's workers as their workerData, to in-thread runs
// directly. The engine reads nothing from the environment: a host (the HTTP service, the CLI) decides these.
import path from 'node:path';
import { invalidOption } from './errors.js';
import { defaultGarmentCacheDir } from './garments/cache.js';
import { MAX_SEGMENTATION_THREADS, defaultSegmentationThreads, resolveModelConfig, type SegmentationModelOptions } from './matte/model.js';

/** Where remove-bg finds its segmentation model. All optional: without any, photos get `not_separable`. */
export interface ModelOptions {
  /**
   * Directory of fetched catalogue models (`<name>.onnx`, see MODEL_CATALOG). When a call names no model and
   * `segmentation` has no `path`, the default model is used from here once it is there (checked per call).
   * Without it there is no default model.
   */
  dir?: string;
  /**
   * The segmentation model of calls that name none (`path`), and the input settings (`input_size`, `mean`,
   * `std`, `output`) of any model path a call names without them. A `path` wins over `dir`.
   */
  segmentation?: SegmentationModelOptions;
  /** Inference threads of a segmentation session, 1-16; default 2 (1 on a single-core machine). */
  threads?: number;
}

/** What the ops read from their engine, as it travels to the workers (structured-clone safe). */
export interface EngineSettings {
  /** Disk cache of rendered blanks (mockup). */
  garmentCacheDir: string;
  models: {
    /** Catalogue model directory; null: no default model. */
    dir: string | null;
    /** The engine's model path and input settings (validated). */
    segmentation: Readonly<SegmentationModelOptions>;
    threads: number;
  };
}

/** Settings of an engine created without options (also what pure op functions use when called directly). */
export function defaultSettings(): EngineSettings {
  return { garmentCacheDir: defaultGarmentCacheDir(), models: { dir: null, segmentation: {}, threads: defaultSegmentationThreads() } };
}

/**
 * Resolve the host's paths and model options.
 * @throws InkprepError `invalid_option` naming the option (`models.threads`, `models.segmentation.input_size`, ...)
 */
export function resolveSettings(o: { dataDir?: string; garmentCacheDir?: string; models?: ModelOptions }): EngineSettings {
  const m = o.models ?? {};
  const threads = m.threads ?? defaultSegmentationThreads();
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_SEGMENTATION_THREADS) throw invalidOption('models.threads', `an integer from 1 to ${MAX_SEGMENTATION_THREADS}`, m.threads);
  const segmentation = Object.freeze({ ...m.segmentation });
  // The input settings are checked now, with or without a path (a caller's path would pick them up later).
  resolveModelConfig({ ...segmentation, path: segmentation.path || 'model.onnx' }, (k) => `models.segmentation.${k}`);
  const garmentCacheDir = o.garmentCacheDir ? path.resolve(o.garmentCacheDir)
    : o.dataDir ? path.resolve(o.dataDir, 'cache', 'garments')
    : defaultGarmentCacheDir();
  return { garmentCacheDir, models: { dir: m.dir ? path.resolve(m.dir) : null, segmentation, threads } };
}
