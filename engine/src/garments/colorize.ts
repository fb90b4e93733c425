// Colour a neutral render: albedo (the garment colour in linear light, or per pixel a two-yarn heather
// mix) times the light multiplier, plus a faint sheen that keeps folds readable on dark cloth, over a
// studio backdrop with the garment's soft shadow. One pass over the pixels: a new colour is cheap.
import { linearToSrgb, srgbToLinear8 as srgb8ToLinear } from '../colour/convert.js';
import { SHADE_SCALE, type NeutralRender } from './shade.js';

export interface ColorSpec {
  hex: string;
  heather?: { hex2: string; share: number };
}

/** Backdrop colour (light warm grey, like a photo studio sweep). */
export const BACKDROP = { r: 238, g: 238, b: 235 };

// Linear light -> 8-bit sRGB through a 4096-entry table (the hot loop must not call pow per pixel).
const LUT_N = 4096;
const TO_SRGB = new Uint8Array(LUT_N + 1);
for (let i = 0; i <= LUT_N; i++) TO_SRGB[i] = Math.round(linearToSrgb(i / LUT_N) * 255);
export function linearToSrgb8(c: number): number {
  return TO_SRGB[c <= 0 ? 0 : c >= 1 ? LUT_N : (c * LUT_N + 0.5) | 0]!;
}

// Sheen with its variation damped: a flat panel facing the camera sits near 0.4 of the Blinn-Phong lobe,
// and the knit/wrinkle noise there, added at full strength, read as cloudy mottling on dark colours (navy,
// maroon). The lift on flat cloth is halved and deviations from it are scaled by 0.35, so fold ridges still
// gleam and shaded sides stay darker, but the small-scale wander is ~3x fainter.
const SHEEN_FLAT = 0.4;
const SHEEN_RAMP = new Float32Array(256);
for (let v = 0; v < 256; v++) SHEEN_RAMP[v] = Math.max(0, 0.5 * SHEEN_FLAT + 0.35 * (v / 255 - SHEEN_FLAT));

export function parseHex(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return [128, 128, 128];
  const v = parseInt(m[1]!, 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** The coloured garment as opaque RGBA (the backdrop included). */
export function colorize(n: NeutralRender, color: ColorSpec): Uint8ClampedArray {
  const N = n.width * n.height;
  const out = new Uint8ClampedArray(N * 4);
  const c1 = parseHex(color.hex).map(srgb8ToLinear) as [number, number, number];
  const c2 = color.heather ? (parseHex(color.heather.hex2).map(srgb8ToLinear) as [number, number, number]) : c1;
  const share = color.heather ? color.heather.share : 0;
  const lum = 0.2126 * c1[0] + 0.7152 * c1[1] + 0.0722 * c1[2];
  // Black cotton still reflects a few percent; without a floor the folds vanish.
  const floor = 0.012;
  const sheenK = 0.03 + 0.06 * (1 - Math.min(1, lum * 2));
  const exposure = 1.02;
  const bg = [srgb8ToLinear(BACKDROP.r), srgb8ToLinear(BACKDROP.g), srgb8ToLinear(BACKDROP.b)];
  const H = n.height;
  const W = n.width;
  const a0 = [0, 0, 0];
  for (let y = 0; y < H; y++) {
    // Backdrop: a gentle vertical falloff, like a lit sweep.
    const sweep = 1.01 - 0.05 * (y / H);
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const o = i * 4;
      const sh = 1 - 0.3 * (n.shadow[i]! / 255);
      const m = n.mask[i]! / 255;
      let r = bg[0]! * sweep * sh, g = bg[1]! * sweep * sh, b = bg[2]! * sweep * sh;
      if (m > 0) {
        const yarnT = n.yarn[i]! / 255;
        // Heather: the second yarn where the streak field is high, in proportion to its share.
        const t = share > 0 ? Math.min(1, Math.max(0, (yarnT - (1 - share)) / 0.45)) : 0;
        const slub = share > 0 ? 1 : 1 + 0.03 * (yarnT - 0.5);
        a0[0] = (c1[0] + (c2[0] - c1[0]) * t) * slub;
        a0[1] = (c1[1] + (c2[1] - c1[1]) * t) * slub;
        a0[2] = (c1[2] + (c2[2] - c1[2]) * t) * slub;
        const s = (n.shade[i]! / SHADE_SCALE) * exposure;
        const sp = SHEEN_RAMP[n.sheen[i]!]! * sheenK;
        const gr = (floor + (1 - floor) * a0[0]!) * s + sp;
        const gg = (floor + (1 - floor) * a0[1]!) * s + sp;
        const gb = (floor + (1 - floor) * a0[2]!) * s + sp;
        r = r * (1 - m) + gr * m;
        g = g * (1 - m) + gg * m;
        b = b * (1 - m) + gb * m;
      }
      out[o] = linearToSrgb8(r);
      out[o + 1] = linearToSrgb8(g);
      out[o + 2] = linearToSrgb8(b);
      out[o + 3] = 255;
    }
  }
  return out;
}
