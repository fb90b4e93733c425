// One-time conversion of the ESRGAN weights the engine ships: npm `@upscalerjs/esrgan-<variant>` 1.0.0
// (MIT; TF.js layers model.json + .bin per scale) -> engine/models/esrgan-<variant>-x{2,4}.onnx, with our own
// protobuf writer (onnx-writer.ts). The package is fetched as a tarball with `npm pack` (no install, so its
// @tensorflow/tfjs peer never enters any tree) unless a folder holding its `models/` is given.
//
//   node --import tsx engine/scripts/convert-esrgan.ts [--variant slim|medium|thick] [weights-dir]
//       write engine/models/esrgan-<variant>-x{2,4}.onnx (default variant: slim)
//   node --import tsx engine/scripts/convert-esrgan.ts --check [--variant V] [weights-dir]
//       fail unless the committed files are byte-identical to a fresh conversion
//
// Layer mapping (Keras NHWC -> ONNX NCHW): Conv2D (kernel HWIO -> OIHW, 'same' padding = k>>1 each side,
// optional relu) -> Conv[+Relu]; Activation relu -> Relu; Concatenate(axis 3) -> Concat(axis 1);
// Add -> Add; UpSampling2D nearest (size s) -> Resize nearest/asymmetric/floor with scales [1,1,s,s].
// Checked against TF.js itself (@tensorflow/tfjs 4.11 CPU backend, outside this repository): max abs
// difference 6e-7 (x2) and 1.1e-6 (x4) on outputs of magnitude ~1.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeOnnxModel, type OnnxInitializer, type OnnxNode } from './onnx-writer.js';

/** Weight packages of the same family (same layer types): slim ~0.9 MB, medium ~2.7 MB, thick ~28 MB per scale. */
export type Variant = 'slim' | 'medium' | 'thick';
const packageOf = (v: Variant): string => `@upscalerjs/esrgan-${v}@1.0.0`;
const SCALES = [2, 4] as const;
const OUT_DIR = fileURLToPath(new URL('../models/', import.meta.url));

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
export function convertLayersModel(modelDir: string, scale: number, variant: Variant = 'slim'): Uint8Array {
  const folder = path.join(modelDir, `x${scale}`);
  const json = JSON.parse(readFileSync(path.join(folder, 'model.json'), 'utf8')) as ModelJson;
  // Weights: shards concatenated in manifest order, tensors packed back to back (float32 little-endian).
  const weights = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const group of json.weightsManifest) {
    const buffers = group.paths.map((p) => readFileSync(path.join(folder, p)));
    const all = Buffer.concat(buffers);
    let offset = 0;
    for (const w of group.weights) {
      if (w.dtype !== 'float32') throw new Error(`Unsupported weight dtype ${w.dtype} in ${w.name}`);
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
        if (!k) throw new Error(`Missing weights for ${layer.name}`);
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
        else if (activation !== 'linear') throw new Error(`Unsupported activation ${activation}`);
        break;
      }
      case 'Activation':
        if (cfg.activation !== 'relu') throw new Error(`Unsupported activation ${String(cfg.activation)}`);
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
      case 'MultiplyBeta': {
        // RRDN (thick): residual scaling by a constant beta (0.2 in upscalerjs' layer; the config states it).
        const beta = typeof cfg.beta === 'number' ? cfg.beta : 0.2;
        inits.push({ name: `${layer.name}/beta`, dims: [], data: Float32Array.from([beta]) });
        nodes.push({ op: 'Mul', name: layer.name, inputs: [ins[0]!, `${layer.name}/beta`], outputs: [layer.name] });
        break;
      }
      default:
        if (/^PixelShuffle\d+x$/.test(layer.class_name)) {
          // tf.depthToSpace(x, s, 'NHWC') orders channels as ONNX DepthToSpace mode DCR does.
          nodes.push({ op: 'DepthToSpace', name: layer.name, inputs: [ins[0]!], outputs: [layer.name], attrs: { blocksize: scale, mode: 'DCR' } });
          break;
        }
        throw new Error(`Unsupported layer ${layer.class_name} (${layer.name})`);
    }
  }
  const outName = json.modelTopology.model_config.config.output_layers[0]![0];
  return writeOnnxModel({
    name: `esrgan-${variant}-x${scale}`,
    nodes,
    initializers: inits,
    inputs: [{ name: inputName, dims: [1, 3, 'h', 'w'] }],
    outputs: [{ name: outName, dims: [1, 3, 'H', 'W'] }],
  });
}

let ortPromise: Promise<Ort | null> | null = null;


/** A folder holding the package's `models/x<scale>/`: the argument, or the tarball fetched by `npm pack`. */
function weightsDir(arg: string | undefined, variant: Variant): { dir: string; cleanup(): void } {
  if (arg) return { dir: existsSync(path.join(arg, 'models')) ? path.join(arg, 'models') : arg, cleanup() {} };
  const tmp = mkdtempSync(path.join(os.tmpdir(), `esrgan-${variant}-`));
  const tgz = execFileSync('npm', ['pack', packageOf(variant), '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop()!;
  execFileSync('tar', ['-xzf', path.join(tmp, tgz), '-C', tmp]);
  return { dir: path.join(tmp, 'package', 'models'), cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}

function main(): void {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const vi = args.indexOf('--variant');
  const variant = (vi >= 0 ? args[vi + 1] : 'slim') as Variant;
  if (!['slim', 'medium', 'thick'].includes(variant)) throw new Error(`--variant must be slim, medium or thick, not ${variant}`);
  const rest = args.filter((a, i) => a !== '--check' && i !== vi && i !== vi + 1);
  const { dir, cleanup } = weightsDir(rest[0], variant);
  let stale = 0;
  try {
    for (const scale of SCALES) {
      const bytes = convertLayersModel(dir, scale, variant);
      const file = path.join(OUT_DIR, `esrgan-${variant}-x${scale}.onnx`);
      const sha = createHash('sha256').update(bytes).digest('hex');
      if (check) {
        const same = existsSync(file) && Buffer.compare(readFileSync(file), bytes) === 0;
        if (!same) stale++;
        console.log(`${same ? 'ok     ' : 'DIFFERS'} ${path.basename(file)} ${bytes.byteLength} bytes sha256 ${sha}`);
      } else {
        writeFileSync(file, bytes);
        console.log(`wrote ${file} (${bytes.byteLength} bytes, sha256 ${sha})`);
      }
    }
    const licence = path.join(dir, '..', 'LICENSE');
    if (!check && existsSync(licence)) copyFileSync(licence, path.join(OUT_DIR, `LICENSE-esrgan-${variant}`));
  } finally {
    cleanup();
  }
  if (stale) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
