// Super-resolution model loading: the ESRGAN-slim weights (idealo RDN C1-D2-G4-G064, from npm
// `@upscalerjs/esrgan-slim` 1.0.0, MIT) ship inside this package as ONNX files, engine/models/esrgan-slim-x{2,4}.onnx,
// converted once from the TF.js layers model by engine/scripts/convert-esrgan.ts (provenance and licence in
// engine/models/). They run on onnxruntime-node, an optional peer: without it the model route is
// unavailable and upscale falls back to resampling. One inference session per scale per process.
// The model takes and returns NCHW float32 RGB; the caller (sr.ts) feeds 0..1.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { loadRuntime, runtimeAvailable, type OrtSession } from '../onnx/runtime.js';

/** Scales the model path serves (the weights package also has 3x and 8x; the API only offers 2 and 4). */
export type ModelScale = 2 | 4;

/** Path of the shipped ONNX file of one scale (same place from engine/src and engine/dist). */
export function modelPath(scale: ModelScale): string {
  return fileURLToPath(new URL(`../../models/esrgan-slim-x${scale}.onnx`, import.meta.url));
}

/** A ready model: run NCHW float32 RGB through it. */
export interface SrModel {
  scale: ModelScale;
  run(input: Float32Array, width: number, height: number): Promise<Float32Array>;
}

const sessions = new Map<ModelScale, Promise<SrModel | null>>();

/** Why the model path is unavailable, or null when it is available. */
export async function modelUnavailableReason(): Promise<string | null> {
  if (!existsSync(modelPath(2)) || !existsSync(modelPath(4))) return `model files missing: ${modelPath(4)}`;
  const rt = await runtimeAvailable();
  return rt.ok ? null : 'onnxruntime-node not installed';
}

/** The session of one scale (created once per process, then reused); null when unavailable. */
export function getModel(scale: ModelScale): Promise<SrModel | null> {
  let p = sessions.get(scale);
  if (!p) {
    p = (async () => {
      if ((await modelUnavailableReason()) !== null) return null;
      const ort = await loadRuntime();
      const session: OrtSession = await ort.InferenceSession.create(modelPath(scale), {
        intraOpNumThreads: Math.max(1, Math.min(2, os.availableParallelism())),
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
      });
      const inName = session.inputNames[0]!;
      const outName = session.outputNames[0]!;
      return {
        scale,
        async run(input, width, height) {
          const feeds = { [inName]: new ort.Tensor('float32', input, [1, 3, height, width]) };
          const out = await session.run(feeds);
          return out[outName]!.data as Float32Array;
        },
      } satisfies SrModel;
    })();
    sessions.set(scale, p);
  }
  return p;
}
