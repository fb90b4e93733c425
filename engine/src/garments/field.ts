// Scalar-field helpers for the garment renderer: Gaussian-like blur (three box passes, Wells 1986),
// lattice value noise with fBm octaves, and coverage masks rasterised from SVG paths by librsvg (sharp).
import sharp from 'sharp';

/** A single-channel float image. */
export interface Field {
  width: number;
  height: number;
  data: Float32Array;
}

export function field(width: number, height: number): Field {
  return { width, height, data: new Float32Array(width * height) };
}

/** One horizontal + vertical box pass of radius r (window 2r+1) from src into dst, via tmp (edges clamped). */
function boxPass(src: Float32Array, dst: Float32Array, tmp: Float32Array, w: number, h: number, r: number): void {
  const inv = 1 / (2 * r + 1);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    for (let i = -r; i <= r; i++) acc += src[row + (i < 0 ? 0 : i >= w ? w - 1 : i)]!;
    for (let x = 0; x < w; x++) {
      tmp[row + x] = acc * inv;
      const add = x + r + 1;
      const sub = x - r;
      acc += src[row + (add >= w ? w - 1 : add)]! - src[row + (sub < 0 ? 0 : sub)]!;
    }
  }
  // Vertical pass row by row with one running sum per column (cache friendly).
  const acc = new Float64Array(w);
  for (let i = -r; i <= r; i++) {
    const row = (i < 0 ? 0 : i >= h ? h - 1 : i) * w;
    for (let x = 0; x < w; x++) acc[x] += tmp[row + x]!;
  }
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const add = y + r + 1;
    const sub = y - r;
    const ra = (add >= h ? h - 1 : add) * w;
    const rs = (sub < 0 ? 0 : sub) * w;
    for (let x = 0; x < w; x++) {
      dst[row + x] = acc[x]! * inv;
      acc[x] += tmp[ra + x]! - tmp[rs + x]!;
    }
  }
}

/** Approximate Gaussian blur with standard deviation `sigma` px (three box passes). Returns a new array. */
export function blur(src: Float32Array, w: number, h: number, sigma: number): Float32Array {
  // Wide blurs are done on a box-downsampled copy and upsampled bilinearly (the result is smooth anyway).
  const f = Math.floor(sigma / 4);
  if (f >= 2 && w >= f * 8 && h >= f * 8) return blurReduced(src, w, h, sigma, f);
  return blurDirect(src, w, h, sigma);
}

function blurReduced(src: Float32Array, w: number, h: number, sigma: number, f: number): Float32Array {
  const sw = Math.ceil(w / f), sh = Math.ceil(h / f);
  const small = new Float32Array(sw * sh);
  const cnt = new Float32Array(sw * sh);
  for (let y = 0; y < h; y++) {
    const row = ((y / f) | 0) * sw;
    for (let x = 0; x < w; x++) {
      const j = row + ((x / f) | 0);
      small[j] += src[y * w + x]!;
      cnt[j]++;
    }
  }
  for (let j = 0; j < small.length; j++) small[j] /= cnt[j]!;
  const b = blurDirect(small, sw, sh, Math.sqrt(Math.max(0.1, sigma * sigma - (f * f) / 12)) / f);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(sh - 1, Math.max(0, (y + 0.5) / f - 0.5));
    const y0 = sy | 0, y1 = Math.min(sh - 1, y0 + 1), ty = sy - y0;
    for (let x = 0; x < w; x++) {
      const sx = Math.min(sw - 1, Math.max(0, (x + 0.5) / f - 0.5));
      const x0 = sx | 0, x1 = Math.min(sw - 1, x0 + 1), tx = sx - x0;
      const a = b[y0 * sw + x0]!, bb = b[y0 * sw + x1]!, c = b[y1 * sw + x0]!, d = b[y1 * sw + x1]!;
      out[y * w + x] = (a + (bb - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
    }
  }
  // Smooth the kinks of the bilinear upsample (they would show as bands once lit through the gradient).
  return blurDirect(out, w, h, f * 0.6);
}

/** Separable [1 2 1]/4 smoothing (sigma ~0.71 px), edges clamped. Returns a new array. */
export function smooth121(src: Float32Array, w: number, h: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const l = src[row + (x > 0 ? x - 1 : 0)]!, r = src[row + (x < w - 1 ? x + 1 : x)]!;
      tmp[row + x] = (l + 2 * src[row + x]! + r) * 0.25;
    }
  }
  for (let y = 0; y < h; y++) {
    const up = (y > 0 ? y - 1 : 0) * w, dn = (y < h - 1 ? y + 1 : y) * w, row = y * w;
    for (let x = 0; x < w; x++) out[row + x] = (tmp[up + x]! + 2 * tmp[row + x]! + tmp[dn + x]!) * 0.25;
  }
  return out;
}

function blurDirect(src: Float32Array, w: number, h: number, sigma: number): Float32Array {
  const out = new Float32Array(src);
  if (sigma < 0.35) return out;
  // Box radius giving the requested sigma over three passes: sigma^2 = 3 * ((2r+1)^2 - 1) / 12.
  const r = Math.max(1, Math.round((Math.sqrt(4 * sigma * sigma + 1) - 1) / 2));
  const tmp = new Float32Array(w * h);
  const b = new Float32Array(w * h);
  boxPass(out, b, tmp, w, h, r);
  boxPass(b, out, tmp, w, h, r);
  boxPass(out, b, tmp, w, h, r);
  return b;
}

export function smoothstep(e0: number, e1: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
}

function hash2(ix: number, iy: number, seed: number): number {
  let h = (ix * 374761393 + iy * 668265263 + seed * 2147483647) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** Smooth value noise in [0, 1) at continuous coordinates. */
export function valueNoise(x: number, y: number, seed: number): number {
  const ix = Math.floor(x);
  const iy = Math.floor(y);
  const fx = x - ix;
  const fy = y - iy;
  const ux = fx * fx * (3 - 2 * fx);
  const uy = fy * fy * (3 - 2 * fy);
  const a = hash2(ix, iy, seed);
  const b = hash2(ix + 1, iy, seed);
  const c = hash2(ix, iy + 1, seed);
  const d = hash2(ix + 1, iy + 1, seed);
  return a + (b - a) * ux + (c - a) * uy + (a - b - c + d) * ux * uy;
}

/**
 * Fractal value noise in roughly [-1, 1]: `octaves` layers, each twice the frequency and half the amplitude.
 * `cellX`, `cellY`: size of the coarsest lattice cell in px (anisotropic cells give streaks). Each octave is a
 * random lattice interpolated with smoothstep weights precomputed per column and per row.
 */
export function fbm(w: number, h: number, cellX: number, cellY: number, octaves: number, seed: number): Float32Array {
  const out = new Float32Array(w * h);
  let amp = 1;
  let norm = 0;
  let cx = cellX;
  let cy = cellY;
  const ix = new Int32Array(w);
  const ux = new Float32Array(w);
  for (let o = 0; o < octaves; o++) {
    const gw = Math.ceil(w / cx) + 2;
    const gh = Math.ceil(h / cy) + 2;
    const grid = new Float32Array(gw * gh);
    for (let gy = 0; gy < gh; gy++) for (let gx = 0; gx < gw; gx++) grid[gy * gw + gx] = hash2(gx, gy, seed + o * 7919) * 2 - 1;
    for (let x = 0; x < w; x++) {
      const fx = x / cx;
      const i0 = Math.floor(fx);
      const f = fx - i0;
      ix[x] = i0;
      ux[x] = f * f * (3 - 2 * f);
    }
    for (let y = 0; y < h; y++) {
      const fy = y / cy;
      const j0 = Math.floor(fy);
      const g = fy - j0;
      const uy = g * g * (3 - 2 * g);
      const r0 = j0 * gw;
      const r1 = r0 + gw;
      const row = y * w;
      for (let x = 0; x < w; x++) {
        const i0 = ix[x]!;
        const u = ux[x]!;
        const a = grid[r0 + i0]!, b = grid[r0 + i0 + 1]!, c = grid[r1 + i0]!, d = grid[r1 + i0 + 1]!;
        const top = a + (b - a) * u;
        const bot = c + (d - c) * u;
        out[row + x] += amp * (top + (bot - top) * uy);
      }
    }
    norm += amp;
    amp *= 0.5;
    cx /= 2;
    cy /= 2;
  }
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}

/** Per-pixel white noise in [-1, 1] (deterministic). */
export function whiteNoise(w: number, h: number, seed: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = hash2(i % w, (i / w) | 0, seed) * 2 - 1;
  return out;
}

/** Rasterise SVG markup (drawn in white) to a coverage mask in [0, 1] of size w x h. */
export async function rasterSvg(body: string, w: number, h: number): Promise<Float32Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`;
  const buf = await sharp(Buffer.from(svg), { density: 72, limitInputPixels: false }).ensureAlpha().extractChannel(3).raw().toBuffer();
  const out = new Float32Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = buf[i]! / 255;
  return out;
}
