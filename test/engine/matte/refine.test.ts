// Edge refinement of a segmentation model's answer (engine/src/matte/refine.ts, pairs.ts, art-gaps.ts), through
// removeBackground with backend `model` and a generated ONNX model that answers a fixed mask the way ISNet
// answers flat art on a busy background: the narrow gap between two letters and the counter of a ring kept as
// certain foreground, the outer edge soft. The refinement must cut the gap and the counter out (no patches of
// background), keep the art opaque, and leave no pattern of its own. Skipped, with the reason printed, only when
// onnxruntime-node cannot be loaded.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { removeBackground, resolveModelConfig, runtimeAvailable } from '@inkprep/engine/internals';
import { fixedMaskModel } from './onnx-fixture.js';

const runtime = await runtimeAvailable();
if (!runtime.ok) console.warn(`[remove-bg refinement tests skipped] ${runtime.reason}`);

const S = 256;
const dir = mkdtempSync(path.join(tmpdir(), 'inkprep-refine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Art (alpha 0-1 per pixel and colour) on the busy texture of bench remove-bg, and the mask a model gives. */
function scene(): { input: Raster; truth: Float32Array; mask: Float32Array; gap: number[]; counter: number[]; art: number[] } {
  const truth = new Float32Array(S * S), mask = new Float32Array(S * S);
  const colour = new Uint8Array(S * S * 3);
  const gap: number[] = [], counter: number[] = [], art: number[] = [];
  const orange = [240, 160, 90], teal = [30, 70, 85];
  for (let y = 0; y < S; y++) for (let x = 0; x < S; x++) {
    const i = y * S + x;
    // Two bars ("I I", x 30-80 and 92-142, y 40-200) with a 12 px gap; a ring (centre 200,120, radii 22-44).
    const bar = y >= 40 && y < 200 && ((x >= 30 && x < 80) || (x >= 92 && x < 142));
    const r = Math.hypot(x + 0.5 - 200, y + 0.5 - 120);
    const ring = r >= 22 && r < 44;
    if (bar) { truth[i] = 1; colour.set(orange, i * 3); art.push(i); }
    else if (ring) { truth[i] = 1; colour.set(teal, i * 3); if (r > 24 && r < 42) art.push(i); }
    if (y >= 44 && y < 196 && x >= 82 && x < 90) gap.push(i);
    if (r < 20) counter.push(i);
    // The model: the bars' hull and the filled ring are "certain", the outer edge a 4 px ramp.
    const inHull = Math.max(30 - x, x - 141, 40 - y, y - 199);
    const hull = inHull <= 0 ? 1 : Math.max(0, 1 - inHull / 4);
    const disc = r < 44 ? 1 : Math.max(0, 1 - (r - 44) / 4);
    mask[i] = Math.max(hull, disc);
  }
  let seed = 99;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const data = new Uint8ClampedArray(S * S * 4);
  for (let y = 0; y < S; y++) for (let x = 0; x < S; x++) {
    const i = y * S + x;
    const a = Math.sin(x * 0.043 * 4 + Math.sin(y * 0.021 * 4) * 4), b = Math.sin(y * 0.057 * 4 + Math.cos(x * 0.017 * 4) * 3);
    const bg = [140 + 80 * a + rand() * 40, 120 + 70 * b + rand() * 40, 130 + 60 * a * b + rand() * 40];
    for (let c = 0; c < 3; c++) data[i * 4 + c] = truth[i]! * colour[i * 3 + c]! + (1 - truth[i]!) * bg[c]!;
    data[i * 4 + 3] = 255;
  }
  return { input: { width: S, height: S, data }, truth, mask, gap, counter, art };
}

const meanAlpha = (out: Uint8ClampedArray, px: number[]): number => px.reduce((s, i) => s + out[i * 4 + 3]!, 0) / (255 * px.length);

describe.skipIf(!runtime.ok)('refining a model mask on flat art over a busy background', () => {
  it('cuts out the gap between letters and the counter of a ring that the model kept; the art stays opaque', async () => {
    const s = scene();
    const file = path.join(dir, 'fixed.onnx');
    writeFileSync(file, fixedMaskModel(S, s.mask));
    const cfg = resolveModelConfig({ path: file, input_size: S, mean: '0,0,0', std: '1,1,1', output: 'probability' })!;
    const r = await removeBackground(s.input, { backend: 'model', model: cfg, jpeg: false });
    expect(r.method).toBe('model');
    // REFINE_DUMP=file.png: the cut-out over a checkerboard, 2x, to look at.
    if (process.env.REFINE_DUMP) {
      const { default: sharp } = await import('sharp');
      const c = new Uint8ClampedArray(S * S * 3);
      for (let i = 0; i < S * S; i++) {
        const a = r.data[i * 4 + 3]! / 255, x = i % S, y = (i - x) / S, b = ((x >> 3) + (y >> 3)) & 1 ? 60 : 30;
        for (let k = 0; k < 3; k++) c[i * 3 + k] = r.data[i * 4 + k]! * a + b * (1 - a);
      }
      await sharp(Buffer.from(c.buffer), { raw: { width: S, height: S, channels: 3 } }).resize(2 * S, 2 * S, { kernel: 'nearest' }).png().toFile(process.env.REFINE_DUMP);
    }
    expect(meanAlpha(r.data, s.gap)).toBeLessThan(0.05); // the mask said 1 there (before issue 20's refinement: 1.0)
    expect(meanAlpha(r.data, s.counter)).toBeLessThan(0.05);
    expect(meanAlpha(r.data, s.art)).toBeGreaterThan(0.99);
    let mn = 0, mx = 0;
    for (let i = 0; i < S * S; i++) { const a = r.data[i * 4 + 3]! / 255; mn += Math.min(a, s.truth[i]!); mx += Math.max(a, s.truth[i]!); }
    expect(mn / mx).toBeGreaterThan(0.97);
    // No isolated opaque specks of texture left in the cut (a blocky or dotted pattern would leave some).
    let specks = 0;
    for (const i of [...s.gap, ...s.counter]) if (r.data[i * 4 + 3]! > 128) specks++;
    expect(specks).toBeLessThan(12);
  });
});

/**
 * A furry subject filling most of the frame (a pet photo cropped to the face) on a dark backdrop at the left,
 * and the mask ISNet gives such a photo: certain at the subject's edge region, but only 0.6-0.9 over a wide
 * area of its body, far from any background. Fur and backdrop are both textured, so colour pairs explain body
 * pixels by the backdrop too.
 */
function furScene(): { input: Raster; mask: Float32Array; body: number[]; backdrop: number[] } {
  const mask = new Float32Array(S * S);
  const data = new Uint8ClampedArray(S * S * 4);
  const body: number[] = [], backdrop: number[] = [];
  let seed = 7;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let y = 0; y < S; y++) for (let x = 0; x < S; x++) {
    const i = y * S + x;
    const subject = x >= 40;
    // Fur: brown/grey streaks with strong noise; the backdrop: dark brown with noise, close to the fur's darks.
    const streak = Math.sin(x * 0.9 + Math.sin(y * 0.3) * 3) * 0.5 + 0.5;
    const c = subject
      ? [90 + 90 * streak + rand() * 50, 70 + 70 * streak + rand() * 40, 50 + 60 * streak + rand() * 40]
      : [70 + rand() * 50, 55 + rand() * 40, 45 + rand() * 35];
    data.set(c, i * 4); data[i * 4 + 3] = 255;
    // The model: 0 on the backdrop, a 4 px ramp at the edge, certain for 24 px, then 0.6-0.9 (the lower body).
    const d = x - 40;
    mask[i] = d < -4 ? 0 : d < 0 ? (d + 4) / 4 : d < 24 || y < 100 ? 1 : 0.6 + 0.3 * ((x * 7 + y * 13) % 17) / 16;
    if (d > 40 && y > 120) body.push(i);
    if (d < -12) backdrop.push(i);
  }
  return { input: { width: S, height: S, data }, mask, body, backdrop };
}

describe.skipIf(!runtime.ok)('refining a model mask on a photo whose subject fills the frame', () => {
  it('keeps the subject opaque where the model half-believes it, far from the background (no punched holes)', async () => {
    const s = furScene();
    const file = path.join(dir, 'fur.onnx');
    writeFileSync(file, fixedMaskModel(S, s.mask));
    const cfg = resolveModelConfig({ path: file, input_size: S, mean: '0,0,0', std: '1,1,1', output: 'probability' })!;
    const r = await removeBackground(s.input, { backend: 'model', model: cfg, jpeg: false });
    let holes = 0;
    for (const i of s.body) if (r.data[i * 4 + 3]! < 128) holes++;
    // Before (issue 20, session 4): colour pairs between fur and the textured backdrop left 10 % of the body transparent.
    expect(holes / s.body.length).toBeLessThan(0.001);
    expect(meanAlpha(r.data, s.body)).toBeGreaterThan(0.999);
    expect(meanAlpha(r.data, s.backdrop)).toBeLessThan(0.01);
  });
});
