// Colour a neutral render: albedo (the garment colour in linear light, or per pixel a two-yarn heather
// mix) times the light multiplier, with a faint sheen on fold crests, over a studio backdrop with the
// garment's soft shadow. The light is calibrated so the lit body reads as the catalogue colour: the
// per-channel median of the body (print area: no ribs, openings or strings) is scaled onto the hex, so
// shading only moves pixels around the true colour (a black tee stays L* ~10, not charcoal). One pass
// over the pixels plus a sampled calibration pass: a new colour is cheap.
import { linearToSrgb, srgbToLinear8 as srgb8ToLinear } from '../colour/convert.js';
import { SHADE_SCALE, type NeutralRender } from './shade.js';

export interface ColorSpec {
  hex: string;
  heather?: { hex2: string; share: number };
}

/** Backdrop colour (light warm grey, like a photo studio sweep). */
export const BACKDROP = { r: 238, g: 238, b: 235 };

/** Brightness of the backdrop sweep at row y of h (a gentle vertical falloff, like a lit sweep). */
export function backdropSweep(y: number, h: number): number {
  return 1.01 - 0.05 * (y / h);
}

// Linear light -> 8-bit sRGB through a 4096-entry table (the hot loop must not call pow per pixel).
const LUT_N = 4096;
const TO_SRGB = new Uint8Array(LUT_N + 1);
for (let i = 0; i <= LUT_N; i++) TO_SRGB[i] = Math.round(linearToSrgb(i / LUT_N) * 255);
export function linearToSrgb8(c: number): number {
  return TO_SRGB[c <= 0 ? 0 : c >= 1 ? LUT_N : (c * LUT_N + 0.5) | 0]!;
}

// Sheen: only the part of the Blinn-Phong lobe above a flat panel's (~0.4) adds light, so fold crests
// gleam a little on dark cloth while flat cloth keeps its colour and noise does not mottle it.
const SHEEN_FLAT = 0.4;
const SHEEN_RAMP = new Float32Array(256);
for (let v = 0; v < 256; v++) SHEEN_RAMP[v] = 0.35 * Math.max(0, v / 255 - SHEEN_FLAT);

export function parseHex(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return [128, 128, 128];
  const v = parseInt(m[1]!, 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

// Calibration histograms bin sqrt(linear) (dark colours need fine steps) over [0, HMAX).
const HBINS = 2048;
const HMAX = 1.3;

function histMedian(h: Uint32Array, n: number): number {
  let acc = 0;
  for (let k = 0; k < HBINS; k++) {
    acc += h[k]!;
    if (acc * 2 >= n) {
      const s = ((k + 0.5) / HBINS) * HMAX;
      return s * s;
    }
  }
  return HMAX * HMAX;
}

/**
 * Per-pixel garment light (linear, before calibration) and albedo for pixel i, written to out[0..2].
 * Shared by the calibration pass and the colouring pass so both see the same values.
 */
function garmentLinear(n: NeutralRender, i: number, c1: readonly number[], c2: readonly number[], share: number, sheenK: number, out: number[]): void {
  let t = 0;
  let slub = 1;
  const yarnT = n.yarn[i]! / 255;
  // Heather: the share of the second yarn, around its mean share by the yarn field's deviation (0.5 = mean).
  if (share > 0) t = Math.min(1, Math.max(0, share + (yarnT - 0.5) * 2));
  else slub = 1 + 0.03 * (yarnT - 0.5);
  const s = n.shade[i]! / SHADE_SCALE;
  const sp = SHEEN_RAMP[n.sheen[i]!]! * sheenK;
  out[0] = (c1[0]! + (c2[0]! - c1[0]!) * t) * slub * s + sp;
  out[1] = (c1[1]! + (c2[1]! - c1[1]!) * t) * slub * s + sp;
  out[2] = (c1[2]! + (c2[2]! - c1[2]!) * t) * slub * s + sp;
}

/**
 * Gains per channel that put the median of the lit body on the catalogue colour `target` (linear).
 * Sampled on every other row and column of the print area (opaque garment, no ribs or openings).
 */
function calibrate(n: NeutralRender, target: readonly number[], c1: readonly number[], c2: readonly number[], share: number, sheenK: number): [number, number, number] {
  const hr = new Uint32Array(HBINS), hg = new Uint32Array(HBINS), hb = new Uint32Array(HBINS);
  const v = [0, 0, 0];
  let count = 0;
  const bin = (x: number) => Math.min(HBINS - 1, Math.max(0, Math.floor((Math.sqrt(Math.max(0, x)) / HMAX) * HBINS)));
  for (let y = 0; y < n.height; y += 2) {
    for (let x = 0; x < n.width; x += 2) {
      const i = y * n.width + x;
      if (n.print_mask[i]! < 255 || n.mask[i]! < 255) continue;
      garmentLinear(n, i, c1, c2, share, sheenK, v);
      hr[bin(v[0]!)]++; hg[bin(v[1]!)]++; hb[bin(v[2]!)]++;
      count++;
    }
  }
  if (count === 0) return [1, 1, 1];
  const g = (h: Uint32Array, t: number) => {
    const m = histMedian(h, count);
    return m > 1e-6 ? t / m : 1;
  };
  return [g(hr, target[0]!), g(hg, target[1]!), g(hb, target[2]!)];
}

/** The coloured garment as opaque RGBA (the backdrop included). */
export function colorize(n: NeutralRender, color: ColorSpec): Uint8ClampedArray {
  const N = n.width * n.height;
  const out = new Uint8ClampedArray(N * 4);
  const target = parseHex(color.hex).map(srgb8ToLinear);
  // Heather: the hex is the blend as seen; the two yarns sit either side of it (the second yarn `hex2`
  // is darker, the main yarn is lifted so that the mix at `share` averages back to the hex).
  let c1 = target;
  let c2 = target;
  let share = 0;
  if (color.heather) {
    share = color.heather.share;
    c2 = parseHex(color.heather.hex2).map(srgb8ToLinear);
    c1 = target.map((t, k) => Math.max(0, (t - share * c2[k]!) / (1 - share)));
  }
  const lum = 0.2126 * target[0]! + 0.7152 * target[1]! + 0.0722 * target[2]!;
  // Sheen reads on dark cloth and is lost in the diffuse light of pale cloth.
  const sheenK = 0.02 + 0.05 * (1 - Math.min(1, lum * 3));
  const gain = calibrate(n, target, c1, c2, share, sheenK);
  const bg = [srgb8ToLinear(BACKDROP.r), srgb8ToLinear(BACKDROP.g), srgb8ToLinear(BACKDROP.b)];
  const H = n.height;
  const W = n.width;
  const v = [0, 0, 0];
  for (let y = 0; y < H; y++) {
    const sweep = backdropSweep(y, H);
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const o = i * 4;
      const sh = 1 - 0.3 * (n.shadow[i]! / 255);
      const m = n.mask[i]! / 255;
      let r = bg[0]! * sweep * sh, g = bg[1]! * sweep * sh, b = bg[2]! * sweep * sh;
      if (m > 0) {
        garmentLinear(n, i, c1, c2, share, sheenK, v);
        r = r * (1 - m) + v[0]! * gain[0] * m;
        g = g * (1 - m) + v[1]! * gain[1] * m;
        b = b * (1 - m) + v[2]! * gain[2] * m;
      }
      out[o] = linearToSrgb8(r);
      out[o + 1] = linearToSrgb8(g);
      out[o + 2] = linearToSrgb8(b);
      out[o + 3] = 255;
    }
  }
  return out;
}
