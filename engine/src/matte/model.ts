// Optional segmentation backend: runs an ONNX segmentation model (ISNet / U2Net / BiRefNet style: one RGB
// image in, one single-channel mask out) with onnxruntime-node, loaded by dynamic import so the engine
// works without it. No model is shipped: the path, input size and normalisation come from configuration
// (EngineOptions.models, or the op's `model` option). Pre-processing: resize to the input size
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

/** Caller-facing model options (text accepted, as from configuration or CLI flags). */
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
 * Resolve model options (from the op or the engine's options) into a config; null when no path is given.
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

const sessions = new Map<string, Promise<OrtSession>>();

/**
 * Default inference threads of a segmentation session: 2 where the machine has 2 cores or more, else 1 (as the
 * upscale model). ISNet fp16 at 1024 px costs about 2.5-3.5 s of CPU either way; 2 threads finish sooner only
 * when a second core is idle (docs/benchmarks/remove-bg.md "Measured on photos": 1.5 s best against 2.8 s, no gain on a saturated
 * machine). Threads do not spin while waiting, so a loaded machine loses no CPU to them.
 */
export function defaultSegmentationThreads(): number {
  return Math.max(1, Math.min(2, os.availableParallelism()));
}

/** Largest thread count a segmentation session accepts (EngineOptions.models.threads). */
export const MAX_SEGMENTATION_THREADS = 16;

// One session per model file and thread count, created on first use in each thread (worker or caller).
function session(ort: OrtModule, path: string, threads: number): Promise<OrtSession> {
  const key = `${threads}:${path}`;
  let s = sessions.get(key);
  if (!s) {
    const opts = {
      intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    };
    s = ort.InferenceSession.create(path, opts).catch((err: unknown) => {
      sessions.delete(key);
      throw new InkprepError('processing_failed', `The segmentation model ${path} cannot be loaded: ${(err as Error).message?.split('\n')[0] ?? String(err)}`);
    });
    sessions.set(key, s);
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

/**
 * Run the model on an image with `threads` inference threads (default: defaultSegmentationThreads()); returns
 * the foreground mask at image size, one byte per pixel.
 */
export async function predictMask(src: Raster, cfg: SegmentationModelConfig, threads = defaultSegmentationThreads()): Promise<Uint8Array> {
  const ort = await loadRuntime();
  const s = await session(ort, cfg.path, threads);
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
