// Procedural photo-like scenes with known alpha, for remove-bg tests and the photo bench: product shots on
// a lit backdrop (a red mug with a soft shadow, a white mug whose highlight matches the backdrop) and a storm
// sky behind a dark silhouette. What makes them hard for an artwork matte is what real photos have: shading,
// soft shadows (background, alpha 0 in the truth), highlights the colour of the backdrop, sensor noise.
// Deterministic (seeded), anti-aliased by 4x4 supersampling; no files read.
import type { Raster } from '@inkprep/engine';

export type SceneKind = 'red-mug-shadow' | 'white-mug-highlight' | 'storm-sky';
export const SCENES: readonly SceneKind[] = ['red-mug-shadow', 'white-mug-highlight', 'storm-sky'];

export interface Scene {
  /** Opaque input image. */
  input: Raster;
  /** Ground truth: straight-alpha RGBA of the subject alone (shadows are background). */
  truth: Raster;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Approximately normal noise (sum of 4 uniforms), unit variance. */
function gauss(r: () => number): number {
  return (r() + r() + r() + r() - 2) * 1.732;
}

/** Value noise (bilinear between hashed lattice values), 0..1. */
function valueNoise(x: number, y: number, seed: number): number {
  const xi = Math.floor(x), yi = Math.floor(y), fx = x - xi, fy = y - yi;
  const h = (a: number, b: number): number => {
    let v = Math.imul(a, 374761393) ^ Math.imul(b, 668265263) ^ Math.imul(seed, 1442695041);
    v = Math.imul(v ^ (v >>> 13), 1274126177);
    return ((v ^ (v >>> 16)) >>> 0) / 4294967296;
  };
  const sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
  const a = h(xi, yi), b = h(xi + 1, yi), c = h(xi, yi + 1), d = h(xi + 1, yi + 1);
  return a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy;
}

function fbm(x: number, y: number, seed: number, octaves = 5): number {
  let v = 0, amp = 0.5, f = 1, norm = 0;
  for (let o = 0; o < octaves; o++) {
    v += amp * valueNoise(x * f, y * f, seed + o * 17);
    norm += amp;
    amp *= 0.5;
    f *= 2.03;
  }
  return v / norm;
}

/** Coverage (0-1) of a shape given as an inside test, by 4x4 supersampling of pixel (x, y). */
function coverage(x: number, y: number, inside: (px: number, py: number) => boolean): number {
  let c = 0;
  for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if (inside(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) c++;
  return c / 16;
}

function mugInside(S: number): (px: number, py: number) => boolean {
  const x0 = 0.34 * S, x1 = 0.62 * S, y0 = 0.28 * S, y1 = 0.72 * S, r = 0.05 * S;
  const hx = 0.62 * S, hy = 0.5 * S, ro = 0.1 * S, ri = 0.06 * S;
  return (px, py) => {
    if (px >= x0 && px <= x1 && py >= y0 && py <= y1) {
      // Rounded bottom corners.
      if (py > y1 - r && (px < x0 + r || px > x1 - r)) {
        const cx = px < x0 + r ? x0 + r : x1 - r;
        return (px - cx) ** 2 + (py - (y1 - r)) ** 2 <= r * r;
      }
      return true;
    }
    const d2 = (px - hx) ** 2 + (py - hy) ** 2;
    return px > x1 && d2 <= ro * ro && d2 >= ri * ri;
  };
}

/** Lit studio backdrop: a vertical sweep plus a soft hotspot, with sensor noise. */
function backdrop(S: number, x: number, y: number): [number, number, number] {
  const t = y / S;
  const hot = 10 * Math.exp(-(((x - 0.5 * S) / (0.45 * S)) ** 2 + ((y - 0.4 * S) / (0.45 * S)) ** 2));
  const v = 236 - 22 * t + hot;
  return [v, v - 1, v - 4];
}

/** Soft shadow factor (1 = no shadow) of the mug on the floor of the sweep. */
function shadowFactor(S: number, x: number, y: number): number {
  const dx = (x - 0.52 * S) / (0.24 * S), dy = (y - 0.735 * S) / (0.05 * S);
  const d2 = dx * dx + dy * dy;
  return 1 - 0.5 * Math.exp(-d2 * 1.2);
}

function mug(S: number, white: boolean, seed: number): Scene {
  const r = rng(seed);
  const inside = mugInside(S);
  const input = new Uint8ClampedArray(S * S * 4), truth = new Uint8ClampedArray(S * S * 4);
  const cx = 0.48 * S, half = 0.14 * S;
  for (let y = 0; y < S; y++) {
    for (let x = 0; x < S; x++) {
      const i = (y * S + x) * 4;
      const a = coverage(x, y, inside);
      const b = backdrop(S, x, y);
      const sf = shadowFactor(S, x, y);
      const bg = [b[0] * sf, b[1] * sf, b[2] * sf];
      // Cylindrical shading lit from the upper left, a specular band; the handle is shaded flat-ish.
      const t = Math.max(-1, Math.min(1, (x + 0.5 - cx) / half));
      const lambert = Math.max(0, Math.cos(Math.acos(t) - Math.PI * 0.62));
      let fg: [number, number, number];
      if (white) {
        // White glaze: the lit side reaches the backdrop's own colour (a highlight that matches it).
        const hl = b[0];
        const v = 150 + (hl - 150) * Math.min(1, 0.15 + 1.1 * lambert);
        fg = [v, v - 1, v - 3];
        if (lambert > 0.8 && y > 0.34 * S && y < 0.62 * S) fg = [hl, hl - 1, hl - 4];
      } else {
        const spec = Math.exp(-(((t + 0.45) / 0.09) ** 2)) * (y > 0.3 * S && y < 0.7 * S ? 1 : 0.4);
        const s = 0.35 + 0.65 * lambert;
        fg = [190 * s + 65 * spec, 24 * s + 200 * spec, 28 * s + 200 * spec];
      }
      const n = gauss(r) * 1.6;
      for (let c = 0; c < 3; c++) {
        input[i + c] = a * fg[c]! + (1 - a) * bg[c]! + n;
        truth[i + c] = a > 0 ? fg[c]! : 0;
      }
      input[i + 3] = 255;
      truth[i + 3] = Math.round(a * 255);
    }
  }
  return { input: { width: S, height: S, data: input }, truth: { width: S, height: S, data: truth } };
}

function stormSky(S: number, seed: number): Scene {
  const r = rng(seed);
  const input = new Uint8ClampedArray(S * S * 4), truth = new Uint8ClampedArray(S * S * 4);
  // Silhouette: a lighthouse on a low hill standing on the bottom edge.
  const inside = (px: number, py: number): boolean => {
    const u = px / S, v = py / S;
    const hill = 0.86 + 0.05 * Math.cos((u - 0.5) * 5);
    if (v >= hill) return true;
    const w = 0.035 + (v - 0.45) * 0.06;
    if (v >= 0.45 && Math.abs(u - 0.62) <= w) return true;
    if (v >= 0.39 && v < 0.45 && Math.abs(u - 0.62) <= 0.03) return true;
    return v >= 0.35 && v < 0.39 && Math.abs(u - 0.62) <= 0.045 - (0.39 - v) * 1.1;
  };
  for (let y = 0; y < S; y++) {
    for (let x = 0; x < S; x++) {
      const i = (y * S + x) * 4;
      const a = coverage(x, y, inside);
      const c = fbm((x / S) * 2.5, (y / S) * 4, seed, 3);
      const light = Math.min(1, Math.max(0, (c - 0.3) * 1.8)) * (0.7 + 0.3 * (y / S));
      const sky = [95 + 70 * light, 100 + 66 * light, 112 + 60 * light];
      const fg: [number, number, number] = [18, 20, 24];
      const n = gauss(r) * 1.2;
      for (let k = 0; k < 3; k++) {
        input[i + k] = a * fg[k]! + (1 - a) * sky[k]! + n;
        truth[i + k] = a > 0 ? fg[k]! : 0;
      }
      input[i + 3] = 255;
      truth[i + 3] = Math.round(a * 255);
    }
  }
  return { input: { width: S, height: S, data: input }, truth: { width: S, height: S, data: truth } };
}

/** Build a scene at S x S pixels. */
export function scene(kind: SceneKind, S = 512, seed = 1): Scene {
  switch (kind) {
    case 'red-mug-shadow': return mug(S, false, seed);
    case 'white-mug-highlight': return mug(S, true, seed);
    case 'storm-sky': return stormSky(S, seed);
  }
}
