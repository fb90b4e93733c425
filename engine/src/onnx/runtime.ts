// The optional ONNX runtime (onnxruntime-node), loaded on first use by dynamic import. Only the few members
// the engine calls are typed here, structurally, so the engine's published declarations never name
// onnxruntime-node: a consumer without it installed still type-checks (skipLibCheck: false).
import { InkprepError } from '../errors.js';

export interface OrtTensor {
  data: unknown;
  dims: readonly number[];
}

export interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
}

export interface OrtModule {
  InferenceSession: { create(pathOrBytes: string | Uint8Array, opts?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => OrtTensor;
}

let ortPromise: Promise<OrtModule> | null = null;

/** onnxruntime-node (loaded once); rejects with `processing_failed` saying why when it is absent or cannot load. */
export function loadRuntime(): Promise<OrtModule> {
  if (!ortPromise) {
    // A specifier in a variable keeps TypeScript from resolving (and requiring) the package's types.
    const name = 'onnxruntime-node';
    ortPromise = (import(name) as Promise<OrtModule & { default?: OrtModule }>).then(
      (m) => (m.InferenceSession ? m : (m.default as OrtModule)),
      (err: unknown) => {
        ortPromise = null;
        throw new InkprepError('processing_failed', `The ONNX runtime onnxruntime-node cannot be loaded (install it next to @inkprep/engine): ${(err as Error).message?.split('\n')[0] ?? String(err)}`);
      },
    );
  }
  return ortPromise;
}

/** Whether onnxruntime-node loads here, and why not. */
export async function runtimeAvailable(): Promise<{ ok: boolean; reason: string }> {
  try {
    await loadRuntime();
    return { ok: true, reason: '' };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}
