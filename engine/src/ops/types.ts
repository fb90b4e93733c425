// The shape every engine op follows: options resolved once on the calling thread, work done in a worker.
import type { Raster } from '../raster/types.js';
import type { ProgressSink } from '../progress.js';
import type { TextOptions } from '../options/validate.js';
import type { AnyField } from '../options/fields.js';
import type { EngineSettings } from '../settings.js';

/** What an op receives: encoded file bytes (PNG/JPEG/WebP) or already-decoded pixels. */
export type OpInput = Uint8Array | Raster;

/** Limits and context the engine passes with every task. */
export interface OpContext {
  /** Largest image decoded, in pixels (engine default or a stricter per-call value). */
  maxPixels: number;
  /** Where the op reports its stages (see progress.ts); absent when nobody listens. */
  progress?: ProgressSink;
  /** The engine's paths and model choices (absent when an op is run outside an engine: defaultSettings()). */
  settings?: EngineSettings;
}

/**
 * An engine operation.
 * - `fields` is the op's option table (options/table.ts): the one declaration its resolver, the API document,
 *   the CLI flags and the docs' option table are made from.
 * - `resolve` validates caller options (typed values, or text wrapped by `textOptions`) into a frozen struct;
 *   throws `invalid_option`. It is the table's resolver.
 * - `run` does the work; it may run in a worker thread, so inputs and results are plain structs.
 * - `transfer` lists result buffers to move (not copy) back to the caller.
 */
export interface OpDef<In, Resolved, Result> {
  fields: readonly AnyField[];
  resolve(raw: In | TextOptions | undefined): Readonly<Resolved>;
  run(input: OpInput, options: Readonly<Resolved>, ctx: OpContext): Promise<Result>;
  transfer?(result: Result): ArrayBuffer[];
}

/** Narrow the input to encoded bytes vs decoded pixels. */
export function isRaster(input: OpInput): input is Raster {
  return !(input instanceof Uint8Array) && typeof (input as Raster).width === 'number';
}
