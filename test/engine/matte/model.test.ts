// The optional segmentation backend, end to end with a real onnxruntime-node session on a tiny ONNX model
// this test writes itself (onnx-fixture.ts): loading, pre-processing, inference, post-processing, edge
// refinement by matting, and the auto path for photo-like inputs. Skipped, with the reason printed, only
// when onnxruntime-node cannot be loaded on this machine.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, InkprepError, type Raster } from '@inkprep/engine';
import { removeBackground, resolveModelConfig, runtimeAvailable } from '@inkprep/engine/internals';
import { engineConfigFromEnv } from '../../../adapter-http/src/config.js';
import { decodePng, encodePngRaster } from './helpers.js';
import { brightnessMaskModel } from './onnx-fixture.js';

const runtime = await runtimeAvailable();
if (!runtime.ok) console.warn(`[remove-bg model tests skipped] ${runtime.reason}`);

const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-seg-'));
const modelPath = path.join(dir, 'brightness.onnx');
writeFileSync(modelPath, brightnessMaskModel(64));

/** A dark disc (radius 40, centre 80,80; anti-aliased by 4x4 supersampling) on a bright, busy texture. */
function photoLike(): { raster: Raster; truth: Float32Array } {
  let seed = 11;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const w = 160, h = 160, data = new Uint8ClampedArray(w * h * 4), truth = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    let cover = 0;
    for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if ((x + (sx + 0.5) / 4 - 80) ** 2 + (y + (sy + 0.5) / 4 - 80) ** 2 < 40 ** 2) cover++;
    const a = cover / 16, i = (y * w + x) * 4;
    const bg = [200 + rand() * 55, 190 + rand() * 65, 170 + rand() * 85];
    for (let c = 0; c < 3; c++) data[i + c] = a * 25 + (1 - a) * bg[c]!;
    data[i + 3] = 255;
    truth[y * w + x] = a;
  }
  return { raster: { width: w, height: h, data }, truth };
}

function iou(out: Uint8ClampedArray, truth: Float32Array): number {
  let mn = 0, mx = 0;
  for (let i = 0; i < truth.length; i++) { const a = out[i * 4 + 3]! / 255; mn += Math.min(a, truth[i]!); mx += Math.max(a, truth[i]!); }
  return mn / mx;
}

describe('model configuration', () => {
  it('the service reads path, input size, normalisation and output mapping from the environment', () => {
    const models = engineConfigFromEnv({ INKPREP_SEGMENTATION_MODEL: '/m.onnx', INKPREP_SEGMENTATION_SIZE: '320', INKPREP_SEGMENTATION_MEAN: '0.485,0.456,0.406', INKPREP_SEGMENTATION_STD: '0.229,0.224,0.225', INKPREP_SEGMENTATION_OUTPUT: 'logits' }).models;
    expect(resolveModelConfig(models.segmentation)).toEqual({ path: '/m.onnx', inputWidth: 320, inputHeight: 320, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], output: 'logits' });
    expect(resolveModelConfig(engineConfigFromEnv({}).models.segmentation)).toBeNull();
    // `none`: no model path and no catalogue directory either.
    expect(engineConfigFromEnv({ INKPREP_SEGMENTATION_MODEL: 'none' }).models).not.toHaveProperty('dir');
    expect(resolveModelConfig({ path: 'x', input_size: '1024x768' })).toMatchObject({ inputWidth: 1024, inputHeight: 768, mean: [0.5, 0.5, 0.5], std: [1, 1, 1], output: 'minmax' });
  });
  it('rejects bad values naming the field', () => {
    expect(() => resolveModelConfig({ path: 'x', std: '1,0,1' })).toThrow(/model\.std/);
    expect(() => resolveModelConfig({ path: 'x', input_size: 'big' })).toThrow(InkprepError);
    expect(() => engineConfigFromEnv({ INKPREP_SEGMENTATION_MODEL: 'x', INKPREP_SEGMENTATION_SIZE: '3' })).toThrow(/INKPREP_SEGMENTATION_SIZE/);
    // Inference threads: an integer 1-16 (default 2 on a multi-core machine), checked when the env is read.
    for (const bad of ['0', '17', 'two', '1.5']) expect(() => engineConfigFromEnv({ INKPREP_SEGMENTATION_THREADS: bad })).toThrow(/INKPREP_SEGMENTATION_THREADS/);
    expect(engineConfigFromEnv({ INKPREP_SEGMENTATION_THREADS: '4' }).models.threads).toBe(4);
    // The engine checks its own options the same way, naming them.
    expect(() => createEngine({ threads: 0, models: { threads: 17 } })).toThrow(/models\.threads/);
    expect(() => createEngine({ threads: 0, models: { segmentation: { input_size: '3' } } })).toThrow(/models\.segmentation\.input_size/);
  });
});

describe.skipIf(!runtime.ok)('segmentation backend (onnxruntime-node, generated model)', () => {
  const cfg = resolveModelConfig({ path: modelPath, input_size: 64, mean: '0,0,0', std: '1,1,1', output: 'probability' })!;

  it('backend model: mask from the model, edges refined by matting, colours decontaminated', async () => {
    const { raster, truth } = photoLike();
    const r = await removeBackground(raster, { backend: 'model', model: cfg, jpeg: false });
    expect(r.method).toBe('model');
    expect(r.width).toBe(160);
    expect(iou(r.data, truth)).toBeGreaterThan(0.95);
    // Inside the disc: opaque and dark; far outside: transparent.
    expect(r.data[(80 * 160 + 80) * 4 + 3]).toBe(255);
    expect(r.data[(5 * 160 + 5) * 4 + 3]).toBe(0);
    // Edge pixels carry the disc's colour, not the light background's.
    for (let i = 0; i < truth.length; i++) {
      const a = r.data[i * 4 + 3]!;
      if (a > 60 && a < 250) expect(r.data[i * 4]!).toBeLessThan(90);
    }
  });

  it('auto: a photo-like input goes to the configured model and says so', async () => {
    const { raster } = photoLike();
    const r = await removeBackground(raster, { backend: 'auto', model: cfg, jpeg: false });
    expect(r.method).toBe('model');
    expect(r.warnings[0]).toMatch(/^not_separable: .*used the segmentation model$/);
  });

  it('auto: art on a plain background stays on the matte even with a model configured', async () => {
    const { raster } = photoLike();
    for (let i = 0; i < raster.data.length; i += 4) if (raster.data[i]! > 100) raster.data.fill(255, i, i + 3);
    const r = await removeBackground(raster, { backend: 'auto', model: cfg, jpeg: false });
    expect(r.method).toBe('matte');
  });

  it('uses the engine\'s model (EngineOptions.models) when a call names none, in the pool and in-thread', async () => {
    const models = { segmentation: { path: modelPath, input_size: '64', mean: '0,0,0', std: '1,1,1', output: 'probability' as const }, threads: 1 };
    const { raster, truth } = photoLike();
    const png = await encodePngRaster(raster);
    for (const threads of [0, 1]) {
      const engine = createEngine({ threads, models });
      try {
        const res = await engine.removeBg(png, { backend: 'model' });
        expect(res.method).toBe('model');
        expect(iou((await decodePng(res.data)).data, truth)).toBeGreaterThan(0.95);
      } finally {
        await engine.close();
      }
    }
  });

  it('runs through the worker pool (dynamic import inside the worker)', async () => {
    const engine = createEngine({ threads: 1 });
    afterAll(() => engine.close());
    const { raster, truth } = photoLike();
    const res = await engine.removeBg(await encodePngRaster(raster), { backend: 'model', model: { path: modelPath, input_size: '64', mean: '0,0,0', std: '1,1,1', output: 'probability' } });
    expect(res.method).toBe('model');
    const out = await decodePng(res.data);
    expect(iou(out.data, truth)).toBeGreaterThan(0.95);
  });

  it('a missing model file fails with processing_failed when the model is forced, and 422 not_separable (model failed) on auto', async () => {
    const { raster } = photoLike();
    const missing = resolveModelConfig({ path: path.join(dir, 'nope.onnx') })!;
    await expect(removeBackground(raster, { backend: 'model', model: missing, jpeg: false })).rejects.toMatchObject({ code: 'processing_failed' });
    await expect(removeBackground(raster, { backend: 'auto', model: missing, jpeg: false })).rejects.toMatchObject({ code: 'not_separable', details: { model: 'failed' } });
  });
});
