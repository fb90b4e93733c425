// Optional segmentation backend: runs an ONNX segmentation model (ISNet / U2Net / BiRefNet style: one RGB
// image in, one single-channel mask out) with onnxruntime-node, loaded by dynamic import so the engine
// works without it. No model is shipped: the path, input size and normalisation come from configuration
// (env INKPREP_SEGMENTATION_* or the op's `model` option). Pre-processing: resize to the input size
// (sharp, bilinear), scale to [0, 1], (v - mean) / std, NCHW float32. Post-processing: the first output's
// last two dimensions are the mask; map it to [0, 1] (probability | logits -> sigmoid | min-max), and
// resize back to the image size.
import os from 'node:os';
import sharp from 'sharp';
import { InkprepError, invalidOption } from '../errors.js';
import type { Raster } from '../raster/types.js';
import { loadRuntime, type OrtModule, type OrtSession, type OrtTensor } from '../onnx/runtime.js';

/** How the model's output maps to a foreground probability. */
export type MaskOutput = 'probability' | 'logits' | 'minmax';

/** A configured segmentation model. */
export interface SegmentationModelConfig {
  /** Path of the .onnx file. */
  path: string;
  /** Model input width and height in pixels (ISNet 1024, U2Net 320). */
  inputWidth: number;
  inputHeight: number;
  /** Per-channel mean and standard deviation applied to RGB scaled to [0, 1]. */
  mean: readonly [number, number, number];
  std: readonly [number, number, number];
  /** Output mapping; default `minmax` (as rembg does for ISNet/U2Net). */
  output: MaskOutput;
}

/** Defaults of an ISNet-style model (input 1024x1024, mean 0.5, std 1). */
export const MODEL_DEFAULTS = { inputSize: 1024, mean: [0.5, 0.5, 0.5], std: [1, 1, 1], output: 'minmax' } as const;

/** Caller-facing model options (text accepted, as from env or CLI flags). */
export interface SegmentationModelOptions {
  path?: string;
  /** `1024` or `1024x768` (width x height). */
  input_size?: string | number;
  /** Three comma-separated numbers, e.g. `0.485,0.456,0.406`. */
  mean?: string | readonly number[];
  std?: string | readonly number[];
  output?: MaskOutput;
}

function parseTriple(field: string, v: unknown, dflt: readonly number[], positive: boolean): [number, number, number] {
  if (v === undefined || v === null || v === '') return [dflt[0]!, dflt[1]!, dflt[2]!];
  const parts = typeof v === 'string' ? v.split(',').map((p) => p.trim()) : Array.isArray(v) ? v : null;
  const nums = parts?.map((p) => (typeof p === 'number' ? p : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(String(p)) ? Number(p) : NaN));
  if (!nums || nums.length !== 3 || nums.some((x) => !Number.isFinite(x) || (positive && x <= 0))) {
    throw invalidOption(field, positive ? 'three comma-separated positive numbers' : 'three comma-separated numbers', v);
  }
  return [nums[0]!, nums[1]!, nums[2]!];
}

/**
 * Resolve model options (from the op or the environment) into a config; null when no path is given.
 * @throws InkprepError `invalid_option` naming the field (`model.input_size`, ...)
 */
export function resolveModelConfig(o: SegmentationModelOptions | undefined, field: (key: string) => string = (k) => `model.${k}`): SegmentationModelConfig | null {
  if (!o || !o.path) return null;
  let w: number = MODEL_DEFAULTS.inputSize, h: number = MODEL_DEFAULTS.inputSize;
  if (o.input_size !== undefined && o.input_size !== '') {
    const m = /^\s*(\d{1,5})(?:\s*[xX]\s*(\d{1,5}))?\s*$/.exec(String(o.input_size));
    if (!m) throw invalidOption(field('input_size'), 'a size like 1024 or 1024x768', o.input_size);
    w = Number(m[1]);
    h = m[2] ? Number(m[2]) : w;
    if (w < 8 || h < 8 || w > 4096 || h > 4096) throw invalidOption(field('input_size'), 'a size from 8 to 4096', o.input_size);
  }
  const output = o.output ?? MODEL_DEFAULTS.output;
  if (!['probability', 'logits', 'minmax'].includes(output)) throw invalidOption(field('output'), 'one of probability, logits, minmax', output);
  return Object.freeze({
    path: o.path,
    inputWidth: w,
    inputHeight: h,
    mean: parseTriple(field('mean'), o.mean, MODEL_DEFAULTS.mean, false),
    std: parseTriple(field('std'), o.std, MODEL_DEFAULTS.std, true),
    output,
  });
}

/**
 * The model configured by the environment: INKPREP_SEGMENTATION_MODEL (path), INKPREP_SEGMENTATION_SIZE
 * (default 1024), INKPREP_SEGMENTATION_MEAN (default 0.5,0.5,0.5), INKPREP_SEGMENTATION_STD (default 1,1,1),
 * INKPREP_SEGMENTATION_OUTPUT (default minmax). Null when no model path is set.
 */
export function segmentationModelFromEnv(env: NodeJS.ProcessEnv = process.env): SegmentationModelConfig | null {
  segmentationThreads(env); // a bad thread count is an error at start, not at the first photo
  if (env.INKPREP_SEGMENTATION_MODEL?.trim().toLowerCase() === 'none') return null;
  return resolveModelConfig({
    path: env.INKPREP_SEGMENTATION_MODEL,
    input_size: env.INKPREP_SEGMENTATION_SIZE,
    mean: env.INKPREP_SEGMENTATION_MEAN,
    std: env.INKPREP_SEGMENTATION_STD,
    output: env.INKPREP_SEGMENTATION_OUTPUT as MaskOutput | undefined,
  }, (k) => `INKPREP_SEGMENTATION_${k === 'input_size' ? 'SIZE' : k.toUpperCase()}`);
}

const sessions = new Map<string, Promise<OrtSession>>();

/**
 * Inference threads of a segmentation session: INKPREP_SEGMENTATION_THREADS (1-16), default 2 where the machine
 * has 2 cores or more, else 1 (as the upscale model). ISNet fp16 at 1024 px costs about 2.5-3.5 s of CPU either
 * way; 2 threads finish sooner only when a second core is idle (README "Measured on photos": 1.5 s best against
 * 2.8 s, no gain on a saturated machine). Threads do not spin while waiting, so a loaded machine loses no CPU to
 * them.
 * @throws InkprepError `invalid_option` (field INKPREP_SEGMENTATION_THREADS) for anything but an integer 1-16
 */
export function segmentationThreads(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.INKPREP_SEGMENTATION_THREADS?.trim();
  if (v === undefined || v === '') return Math.max(1, Math.min(2, os.availableParallelism()));
  if (!/^\d{1,2}$/.test(v) || Number(v) < 1 || Number(v) > 16) throw invalidOption('INKPREP_SEGMENTATION_THREADS', 'an integer from 1 to 16', v);
  return Number(v);
}

function session(ort: OrtModule, path: string): Promise<OrtSession> {
  let s = sessions.get(path);
  if (!s) {
    const opts = {
      intraOpNumThreads: segmentationThreads(), interOpNumThreads: 1, graphOptimizationLevel: 'all',
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    };
    s = ort.InferenceSession.create(path, opts).catch((err: unknown) => {
      sessions.delete(path);
      throw new InkprepError('processing_failed', `The segmentation model ${path} cannot be loaded: ${(err as Error).message?.split('\n')[0] ?? String(err)}`);
    });
    sessions.set(path, s);
  }
  return s;
}

/** Pre-process: resize to the model input and normalise into an NCHW float32 tensor. */
export async function preprocess(src: Raster, cfg: SegmentationModelConfig): Promise<Float32Array> {
  const { inputWidth: w, inputHeight: h } = cfg;
  const rgb = await sharp(Buffer.from(src.data.buffer, src.data.byteOffset, src.data.byteLength), { raw: { width: src.width, height: src.height, channels: 4 } })
    .removeAlpha()
    .resize(w, h, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  const plane = w * h;
  const t = new Float32Array(3 * plane);
  for (let c = 0; c < 3; c++) {
    const m = cfg.mean[c]!, s = cfg.std[c]!;
    for (let i = 0; i < plane; i++) t[c * plane + i] = (rgb[i * 3 + c]! / 255 - m) / s;
  }
  return t;
}

/** Post-process: map raw output to [0, 1] and resize to width x height; returns one byte per pixel (0-255). */
export async function postprocess(raw: Float32Array, mw: number, mh: number, output: MaskOutput, width: number, height: number): Promise<Uint8Array> {
  const small = Buffer.alloc(mw * mh);
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < mw * mh; i++) { const v = raw[i]!; if (v < lo) lo = v; if (v > hi) hi = v; }
  const span = hi - lo > 1e-9 ? hi - lo : 1;
  for (let i = 0; i < mw * mh; i++) {
    const v = raw[i]!;
    const p = output === 'minmax' ? (v - lo) / span : output === 'logits' ? 1 / (1 + Math.exp(-v)) : v;
    small[i] = Math.round(Math.min(1, Math.max(0, p)) * 255);
  }
  if (mw === width && mh === height) return new Uint8Array(small);
  const big = await sharp(small, { raw: { width: mw, height: mh, channels: 1 } }).resize(width, height, { fit: 'fill', kernel: 'linear' }).raw().toBuffer();
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = big[i * (big.length / out.length)]!;
  return out;
}

/** Run the model on an image; returns the foreground mask at image size, one byte per pixel. */
export async function predictMask(src: Raster, cfg: SegmentationModelConfig): Promise<Uint8Array> {
  const ort = await loadRuntime();
  const s = await session(ort, cfg.path);
  const input = await preprocess(src, cfg);
  let result: Record<string, OrtTensor>;
  try {
    result = await s.run({ [s.inputNames[0]!]: new ort.Tensor('float32', input, [1, 3, cfg.inputHeight, cfg.inputWidth]) });
  } catch (err) {
    throw new InkprepError('processing_failed', `The segmentation model failed: ${(err as Error).message?.split('\n')[0] ?? String(err)}`);
  }
  const out = result[s.outputNames[0]!]!;
  const dims = out.dims;
  if (dims.length < 2 || !(out.data instanceof Float32Array)) throw new InkprepError('processing_failed', 'The segmentation model must output a float32 mask [.., height, width]');
  const mh = dims[dims.length - 2]!, mw = dims[dims.length - 1]!;
  if (out.data.length < mw * mh) throw new InkprepError('processing_failed', 'The segmentation model output is smaller than its stated shape');
  return postprocess(out.data, mw, mh, cfg.output, src.width, src.height);
}
