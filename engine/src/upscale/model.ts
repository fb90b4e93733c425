// Super-resolution model loading: the ESRGAN-slim and ESRGAN-medium weights (idealo RDN, from npm
// `@upscalerjs/esrgan-slim` / `esrgan-medium` 1.0.0, MIT) ship inside this package as ONNX files,
// engine/models/esrgan-<variant>-x{2,4}.onnx, converted once from the TF.js layers models by
// engine/scripts/convert-esrgan.ts (provenance and licences in engine/models/). Which one runs when is
// photo.ts' measured choice. They run on onnxruntime-node, an optional peer: without it the model route is
// unavailable and upscale falls back to resampling. One inference session per scale and variant per process.
// The model takes and returns NCHW float32 RGB; the caller (sr.ts) sets the pixel range.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { loadRuntime, runtimeAvailable, type OrtSession } from '../onnx/runtime.js';

/** Scales the model path serves (the weights package also has 3x and 8x; the API only offers 2 and 4). */
export type ModelScale = 2 | 4;

/** Shipped weight variants of one family (npm `@upscalerjs/esrgan-<variant>`), converted by the same script. */
export type ModelVariant = 'slim' | 'medium';
export const MODEL_VARIANTS: readonly ModelVariant[] = Object.freeze(['slim', 'medium']);
const DEFAULT_VARIANT: ModelVariant = 'slim';

/** Path of a shipped ONNX file (same place from engine/src and engine/dist). */
export function modelPath(scale: ModelScale, variant: ModelVariant = DEFAULT_VARIANT): string {
  return fileURLToPath(new URL(`../../models/esrgan-${variant}-x${scale}.onnx`, import.meta.url));
}

/** A ready model: run NCHW float32 RGB through it. */
export interface SrModel {
  scale: ModelScale;
  variant: ModelVariant;
  run(input: Float32Array, width: number, height: number): Promise<Float32Array>;
}

const sessions = new Map<string, Promise<SrModel | null>>();

/** Why the model path is unavailable (any shipped file missing, or no runtime), or null when it is available. */
export async function modelUnavailableReason(): Promise<string | null> {
  for (const v of MODEL_VARIANTS) for (const s of [2, 4] as const) if (!existsSync(modelPath(s, v))) return `model file missing: ${modelPath(s, v)}`;
  const rt = await runtimeAvailable();
  return rt.ok ? null : 'onnxruntime-node not installed';
}

/** The session of one scale and variant (created once per process, then reused); null when unavailable. */
export function getModel(scale: ModelScale, variant: ModelVariant = DEFAULT_VARIANT): Promise<SrModel | null> {
  const key = `${variant}-${scale}`;
  let p = sessions.get(key);
  if (!p) {
    p = (async () => {
      if ((await modelUnavailableReason()) !== null) return null;
      const ort = await loadRuntime();
      const session: OrtSession = await ort.InferenceSession.create(modelPath(scale, variant), {
        intraOpNumThreads: Math.max(1, Math.min(2, os.availableParallelism())),
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
      });
      const inName = session.inputNames[0]!;
      const outName = session.outputNames[0]!;
      return {
        scale,
        variant,
        async run(input, width, height) {
          const feeds = { [inName]: new ort.Tensor('float32', input, [1, 3, height, width]) };
          const out = await session.run(feeds);
          return out[outName]!.data as Float32Array;
        },
      } satisfies SrModel;
    })();
    sessions.set(key, p);
  }
  return p;
}
