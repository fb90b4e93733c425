// The three upscale paths on small synthetic art: output size, no halos, no dark/light fringe at alpha
// edges, exact inks from the vector path, and the shipped ONNX model files and the model path.
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { modelUnavailableReason, roundTripError, upscaleModel, upscaleRaster, upscaleResample, upscaleVector, VECTOR_MAX_ROUNDTRIP } from '@inkprep/engine/internals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { modelPath } from '../../../engine/src/upscale/model.js';
import { MEDIUM_MAX_PIXELS_2X, MEDIUM_MAX_PIXELS_4X, photoPlan } from '../../../engine/src/upscale/photo.js';

/** A red disc (anti-aliased) on transparency whose transparent pixels hold black RGB. */
function redDisc(size: number): Raster {
  const data = new Uint8ClampedArray(size * size * 4);
  const c = size / 2, r = size * 0.35;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const a = Math.min(1, Math.max(0, r - Math.hypot(x + 0.5 - c, y + 0.5 - c) + 0.5));
      data.set(a > 0 ? [230, 20, 20, Math.round(a * 255)] : [0, 0, 0, 0], (y * size + x) * 4);
    }
  }
  return { width: size, height: size, data };
}

/** Worst darkening of visible edge pixels: min red over pixels with alpha >= 16 (230 = no fringe at all). */
function minRedVisible(r: Raster): number {
  let m = 255;
  for (let i = 0; i < r.data.length; i += 4) if (r.data[i + 3]! >= 16) m = Math.min(m, r.data[i]!);
  return m;
}

describe('resample path (Lanczos-3 + halo-free sharpen)', () => {
  it('scales, keeps transparency and draws no dark fringe at the alpha edge', async () => {
    const out = await upscaleResample(redDisc(32), 4);
    expect([out.width, out.height]).toEqual([128, 128]);
    expect(out.data[3]).toBe(0); // corner stays transparent
    expect(out.data[(64 * 128 + 64) * 4 + 3]).toBe(255);
    expect(minRedVisible(out)).toBeGreaterThanOrEqual(220);
  });

  it('never overshoots the local range at a hard edge (no halo)', async () => {
    const w = 16, h = 8;
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(x < 8 ? [60, 60, 60, 255] : [200, 200, 200, 255], (y * w + x) * 4);
    const out = await upscaleResample({ width: w, height: h, data }, 4);
    let lo = 255, hi = 0;
    for (let i = 0; i < out.data.length; i += 4) {
      lo = Math.min(lo, out.data[i]!);
      hi = Math.max(hi, out.data[i]!);
    }
    // Lanczos alone rings below 60 and above 200; the clamp keeps the sharpened result inside Lanczos' own range,
    // and the edge still gets steeper than plain bilinear would make it.
    expect(lo).toBeGreaterThanOrEqual(50);
    expect(hi).toBeLessThanOrEqual(210);
  });
});

describe('vector path', () => {
  it('re-renders flat art from curves with the exact ink and clean transparency', async () => {
    const out = await upscaleVector(redDisc(48), 4);
    expect([out.width, out.height]).toEqual([192, 192]);
    const centre = (96 * 192 + 96) * 4;
    expect(Array.from(out.data.subarray(centre, centre + 4))).toEqual([230, 20, 20, 255]);
    expect(out.data[3]).toBe(0);
    expect(minRedVisible(out)).toBeGreaterThanOrEqual(220);
  });

  it('round-trip guard: a faithful render passes, a render that lost a feature fails', async () => {
    const src = redDisc(48);
    const good = await upscaleVector(src, 4);
    expect(await roundTripError(src, good)).toBeLessThan(VECTOR_MAX_ROUNDTRIP / 2);
    // Erase the right half of the disc in the render: the shrunk-back image no longer matches the input.
    const lost = { ...good, data: new Uint8ClampedArray(good.data) };
    for (let y = 0; y < lost.height; y++) for (let x = lost.width / 2; x < lost.width; x++) lost.data[(y * lost.width + x) * 4 + 3] = 0;
    expect(await roundTripError(src, lost)).toBeGreaterThan(VECTOR_MAX_ROUNDTRIP);
  });

  it('is what the router picks for flat art', async () => {
    const res = await upscaleRaster(redDisc(48), { scale: 2, budget: 1e6, budget4x: 1e6, route: 'auto' });
    expect(res.art.class).toBe('flat');
    expect(res.route).toBe('vector');
    expect(res.fallback).toBeNull();
    expect([res.raster.width, res.raster.height]).toEqual([96, 96]);
  });
});

describe('shipped model files', () => {
  it('the package carries ESRGAN-slim and -medium x2 and x4 as ONNX graphs (protobuf with every layer type), MIT licences beside them', () => {
    for (const variant of ['slim', 'medium'] as const) {
      for (const scale of [2, 4] as const) {
        const bytes = readFileSync(modelPath(scale, variant));
        // slim ~220-233k float32 weights, medium ~690k
        expect(bytes.byteLength).toBeGreaterThan(variant === 'slim' ? 850_000 : 2_700_000);
        const text = bytes.toString('latin1');
        for (const op of ['Conv', 'Relu', 'Concat', 'Add', 'Resize']) expect(text).toContain(op);
      }
      expect(readFileSync(path.join(path.dirname(modelPath(4, variant)), `LICENSE-esrgan-${variant}`), 'utf8')).toMatch(/MIT License/);
    }
  });

  it('photos: ESRGAN-medium up to a size limit per scale (slim above, for time); at 4x averaged with resample', () => {
    expect(photoPlan(2, 500_000)).toEqual({ variant: 'medium', range: 255, blend: false });
    expect(photoPlan(2, MEDIUM_MAX_PIXELS_2X + 1)).toEqual({ variant: 'slim', range: 255, blend: false });
    expect(photoPlan(4, 300_000)).toEqual({ variant: 'medium', range: 1, blend: true });
    expect(photoPlan(4, MEDIUM_MAX_PIXELS_4X + 1)).toEqual({ variant: 'slim', range: 1, blend: true });
  });
});

const why = await modelUnavailableReason();
if (why) console.log(`upscale model tests skipped: ${why}`);

describe.skipIf(why !== null)('model path (ESRGAN-slim on onnxruntime)', () => {
  it('upscales 4x in tiles with seams invisible: a flat colour stays flat, alpha stays clean', async () => {
    const src = redDisc(40);
    const whole = await upscaleModel(src, 4);
    // A tiny memory bound forces 32 px tiles (2x2 tiles here); the result must match the single-tile run.
    const tiled = await upscaleModel(src, 4, { tileMemory: 1 });
    expect([whole.width, whole.height]).toEqual([160, 160]);
    let maxDiff = 0;
    for (let i = 0; i < whole.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(whole.data[i]! - tiled.data[i]!));
    expect(maxDiff).toBeLessThanOrEqual(2);
    const centre = (80 * 160 + 80) * 4;
    expect(Math.abs(whole.data[centre]! - 230)).toBeLessThanOrEqual(6);
    expect(whole.data[3]).toBe(0);
    expect(minRedVisible(whole)).toBeGreaterThanOrEqual(200);
  });

  it('draws no dark line along the borders (reflect padding): the outer rows and columns match the interior', async () => {
    // A flat, slightly noisy photo-like tone: every output row and column should average the same level.
    const w = 48, h = 40, data = new Uint8ClampedArray(w * h * 4);
    let s = 1;
    for (let i = 0; i < w * h; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const n = ((s >>> 24) % 9) - 4;
      data.set([150 + n, 120 + n, 90 + n, 255], i * 4);
    }
    for (const scale of [2, 4] as const) {
      const out = await upscaleModel({ width: w, height: h, data }, scale);
      const W = out.width, H = out.height;
      const row = (y: number): number => { let t = 0; for (let x = 0; x < W; x++) t += out.data[(y * W + x) * 4]!; return t / W; };
      const col = (x: number): number => { let t = 0; for (let y = 0; y < H; y++) t += out.data[(y * W + x) * 4]!; return t / H; };
      const mid = (row(H >> 1) + col(W >> 1)) / 2;
      // Zero padding in the network made these 3-5 levels darker than the interior on every side.
      for (const [name, v] of [['top', row(0)], ['bottom', row(H - 1)], ['left', col(0)], ['right', col(W - 1)]] as const) {
        expect(Math.abs(v - mid), `${scale}x ${name} ${v.toFixed(1)} vs ${mid.toFixed(1)}`).toBeLessThan(1.5);
      }
    }
  });
});
