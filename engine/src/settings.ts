// The engine's own settings (paths, model choices and the memory cache budget a host gives createEngine), resolved once into plain
// data and handed to every task where it runs: to the pool's workers as their workerData, to in-thread runs
// directly. The engine reads nothing from the environment: a host (the HTTP service, the CLI) decides these.
import path from 'node:path';
import { DEFAULT_MEMORY_CACHE_MB } from './cache/memory.js';
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
  /** This thread's share of EngineOptions.memoryCacheMb, bytes (cache/memory.ts). */
  memoryCacheBytes: number;
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
  return { garmentCacheDir: defaultGarmentCacheDir(), memoryCacheBytes: DEFAULT_MEMORY_CACHE_MB * MB, models: { dir: null, segmentation: {}, threads: defaultSegmentationThreads() } };
}

const MB = 1024 * 1024;
/** Largest memoryCacheMb accepted (1 TiB: anything larger is a unit mistake). */
export const MAX_MEMORY_CACHE_MB = 1_048_576;

/**
 * Resolve the host's paths, model options and cache budget. The budget is per process: each of the pool's
 * `poolThreads` workers (or the calling thread when there is no pool) gets an equal share, so the engine's caches
 * never hold more than memoryCacheMb in all however many workers are running.
 * @throws InkprepError `invalid_option` naming the option (`memoryCacheMb`, `models.threads`, `models.segmentation.input_size`, ...)
 */
export function resolveSettings(o: { dataDir?: string; garmentCacheDir?: string; models?: ModelOptions; memoryCacheMb?: number }, poolThreads = 0): EngineSettings {
  const cacheMb = o.memoryCacheMb ?? DEFAULT_MEMORY_CACHE_MB;
  if (!Number.isInteger(cacheMb) || cacheMb < 0 || cacheMb > MAX_MEMORY_CACHE_MB) throw invalidOption('memoryCacheMb', `an integer from 0 to ${MAX_MEMORY_CACHE_MB}`, o.memoryCacheMb);
  const memoryCacheBytes = Math.floor((cacheMb * MB) / Math.max(1, poolThreads));
  const m = o.models ?? {};
  const threads = m.threads ?? defaultSegmentationThreads();
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_SEGMENTATION_THREADS) throw invalidOption('models.threads', `an integer from 1 to ${MAX_SEGMENTATION_THREADS}`, m.threads);
  const segmentation = Object.freeze({ ...m.segmentation });
  // The input settings are checked now, with or without a path (a caller's path would pick them up later).
  resolveModelConfig({ ...segmentation, path: segmentation.path || 'model.onnx' }, (k) => `models.segmentation.${k}`);
  const garmentCacheDir = o.garmentCacheDir ? path.resolve(o.garmentCacheDir)
    : o.dataDir ? path.resolve(o.dataDir, 'cache', 'garments')
    : defaultGarmentCacheDir();
  return { garmentCacheDir, memoryCacheBytes, models: { dir: m.dir ? path.resolve(m.dir) : null, segmentation, threads } };
}
