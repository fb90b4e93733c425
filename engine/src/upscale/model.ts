// Super-resolution model loading: converts the ESRGAN-slim (idealo RDN C1-D2-G4-G064) TF.js layers model
// from npm `@upscalerjs/esrgan-slim` (MIT; model.json topology + .bin weight shards) into an ONNX graph with
// our own writer, then opens it in onnxruntime-node. Conversion happens on first use per process and is
// cached in memory (≈1 MB per scale), as is the inference session.
//
// Layer mapping (Keras NHWC -> ONNX NCHW): Conv2D (kernel HWIO -> OIHW, 'same' padding = k>>1 each side,
// optional relu) -> Conv[+Relu]; Activation relu -> Relu; Concatenate(axis 3) -> Concat(axis 1);
// Add -> Add; UpSampling2D nearest (size s) -> Resize nearest/asymmetric/floor with scales [1,1,s,s].
// The model takes and returns RGB in 0..255 (UpscalerJS `inputRange`/`outputRange` [0, 255]).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { InkprepError } from '../errors.js';
import { writeOnnxModel, type OnnxInitializer, type OnnxNode } from './onnx-writer.js';

/** Scales the model path serves (the package also has 3x and 8x; the API only offers 2 and 4). */
export type ModelScale = 2 | 4;

interface LayerJson {
  class_name: string;
  name: string;
  config: Record<string, unknown>;
  inbound_nodes: Array<Array<[string, number, number, unknown]>>;
}

interface ModelJson {
  modelTopology: { model_config: { config: { layers: LayerJson[]; output_layers: Array<[string, number, number]> } } };
  weightsManifest: Array<{ paths: string[]; weights: Array<{ name: string; shape: number[]; dtype: string }> }>;
}

type Ort = typeof import('onnxruntime-node');
type Session = import('onnxruntime-node').InferenceSession;

/** Folder of the weights package's `models/` directory, or null when it is not installed. */
export function findModelDir(): string | null {
  const env = process.env.INKPREP_ESRGAN_DIR;
  if (env && existsSync(path.join(env, 'x4', 'model.json'))) return env;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'node_modules', '@upscalerjs', 'esrgan-slim', 'models');
    if (existsSync(path.join(candidate, 'x4', 'model.json'))) return candidate;
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** Convert the layers model of one scale into ONNX bytes (pure; no runtime needed). */
export function convertLayersModel(modelDir: string, scale: ModelScale): Uint8Array {
  const folder = path.join(modelDir, `x${scale}`);
  const json = JSON.parse(readFileSync(path.join(folder, 'model.json'), 'utf8')) as ModelJson;
  // Weights: shards concatenated in manifest order, tensors packed back to back (float32 little-endian).
  const weights = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const group of json.weightsManifest) {
    const buffers = group.paths.map((p) => readFileSync(path.join(folder, p)));
    const all = Buffer.concat(buffers);
    let offset = 0;
    for (const w of group.weights) {
      if (w.dtype !== 'float32') throw new InkprepError('internal_error', `Unsupported weight dtype ${w.dtype} in ${w.name}`);
      const n = w.shape.reduce((a, b) => a * b, 1);
      const data = new Float32Array(n);
      for (let i = 0; i < n; i++) data[i] = all.readFloatLE(offset + i * 4);
      offset += n * 4;
      weights.set(w.name, { shape: w.shape, data });
    }
  }
  const nodes: OnnxNode[] = [];
  const inits: OnnxInitializer[] = [];
  const layers = json.modelTopology.model_config.config.layers;
  let inputName = 'input';
  for (const layer of layers) {
    const ins = (layer.inbound_nodes[0] ?? []).map((n) => n[0]);
    const cfg = layer.config;
    switch (layer.class_name) {
      case 'InputLayer':
        inputName = layer.name;
        break;
      case 'Conv2D': {
        const k = weights.get(`${layer.name}/kernel`);
        const b = weights.get(`${layer.name}/bias`);
        if (!k) throw new InkprepError('internal_error', `Missing weights for ${layer.name}`);
        const [kh, kw, cin, cout] = k.shape as [number, number, number, number];
        const oihw = new Float32Array(k.data.length);
        for (let y = 0; y < kh; y++)
          for (let x = 0; x < kw; x++)
            for (let i = 0; i < cin; i++)
              for (let o = 0; o < cout; o++) oihw[((o * cin + i) * kh + y) * kw + x] = k.data[((y * kw + x) * cin + i) * cout + o]!;
        inits.push({ name: `${layer.name}/W`, dims: [cout, cin, kh, kw], data: oihw });
        const inputs = [ins[0]!, `${layer.name}/W`];
        if (b) {
          inits.push({ name: `${layer.name}/B`, dims: [cout], data: b.data });
          inputs.push(`${layer.name}/B`);
        }
        const same = cfg.padding === 'same';
        const activation = cfg.activation as string;
        const convOut = activation === 'relu' ? `${layer.name}/pre` : layer.name;
        nodes.push({
          op: 'Conv', name: layer.name, inputs, outputs: [convOut],
          attrs: { kernel_shape: [kh, kw], pads: same ? [kh >> 1, kw >> 1, kh >> 1, kw >> 1] : [0, 0, 0, 0], strides: [1, 1] },
        });
        if (activation === 'relu') nodes.push({ op: 'Relu', name: `${layer.name}/relu`, inputs: [convOut], outputs: [layer.name] });
        else if (activation !== 'linear') throw new InkprepError('internal_error', `Unsupported activation ${activation}`);
        break;
      }
      case 'Activation':
        if (cfg.activation !== 'relu') throw new InkprepError('internal_error', `Unsupported activation ${String(cfg.activation)}`);
        nodes.push({ op: 'Relu', name: layer.name, inputs: [ins[0]!], outputs: [layer.name] });
        break;
      case 'Concatenate':
        nodes.push({ op: 'Concat', name: layer.name, inputs: ins, outputs: [layer.name], attrs: { axis: 1 } });
        break;
      case 'Add':
        nodes.push({ op: 'Add', name: layer.name, inputs: ins, outputs: [layer.name] });
        break;
      case 'UpSampling2D': {
        const size = cfg.size as [number, number];
        inits.push({ name: `${layer.name}/scales`, dims: [4], data: Float32Array.from([1, 1, size[0], size[1]]) });
        nodes.push({
          op: 'Resize', name: layer.name, inputs: [ins[0]!, '', `${layer.name}/scales`], outputs: [layer.name],
          attrs: { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' },
        });
        break;
      }
      default:
        throw new InkprepError('internal_error', `Unsupported layer ${layer.class_name} (${layer.name})`);
    }
  }
  const outName = json.modelTopology.model_config.config.output_layers[0]![0];
  return writeOnnxModel({
    name: `esrgan-slim-x${scale}`,
    nodes,
    initializers: inits,
    inputs: [{ name: inputName, dims: [1, 3, 'h', 'w'] }],
    outputs: [{ name: outName, dims: [1, 3, 'H', 'W'] }],
  });
}

let ortPromise: Promise<Ort | null> | null = null;

/** onnxruntime-node, or null when the optional dependency is not installed or cannot load. */
export function loadOrt(): Promise<Ort | null> {
  ortPromise ??= import('onnxruntime-node').then(
    (m) => ((m as unknown as { default?: Ort }).default ?? m) as Ort,
    () => null,
  );
  return ortPromise;
}

/** A ready model: run NCHW float32 RGB (0..255) through it. */
export interface SrModel {
  scale: ModelScale;
  run(input: Float32Array, width: number, height: number): Promise<Float32Array>;
}

const sessions = new Map<ModelScale, Promise<SrModel | null>>();

/** Why the model path is unavailable, or null when it is available (checked once per process). */
export async function modelUnavailableReason(): Promise<string | null> {
  if (!findModelDir()) return 'weights package @upscalerjs/esrgan-slim not installed';
  if (!(await loadOrt())) return 'onnxruntime-node not installed';
  return null;
}

/** The session of one scale (created once per process, then reused); null when unavailable. */
export function getModel(scale: ModelScale): Promise<SrModel | null> {
  let p = sessions.get(scale);
  if (!p) {
    p = (async () => {
      const dir = findModelDir();
      const ort = await loadOrt();
      if (!dir || !ort) return null;
      const bytes = convertLayersModel(dir, scale);
      const session: Session = await ort.InferenceSession.create(bytes, {
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
