// Colour-space helpers shared by the algorithms: sRGB <-> linear light <-> CIELAB (D65) / OKLab, and ΔE.
// Array forms work on packed RGBA bytes and write 3 floats per pixel, with no per-pixel allocation.

const SRGB_TO_LINEAR = new Float32Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  SRGB_TO_LINEAR[i] = c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

/** 8-bit sRGB channel -> linear light in [0, 1] (table lookup). */
export function srgbToLinear8(v: number): number {
  return SRGB_TO_LINEAR[v & 255]!;
}

/** Linear light in [0, 1] -> sRGB in [0, 1]. */
export function linearToSrgb(c: number): number {
  if (c <= 0) return 0;
  if (c >= 1) return 1;
  return c <= 0.0031308 ? c * 12.92 : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
}

/** Linear light in [0, 1] -> 8-bit sRGB (rounded, clamped). */
export function linearToSrgb8(c: number): number {
  return Math.round(linearToSrgb(c) * 255);
}

/** A 3-component colour. */
export type Vec3 = [number, number, number];

const XN = 0.95047;
const YN = 1.0;
const ZN = 1.08883;
const EPS = 216 / 24389;
const KAPPA = 24389 / 27;

function labF(t: number): number {
  return t > EPS ? Math.cbrt(t) : (KAPPA * t + 16) / 116;
}

/** 8-bit sRGB -> CIELAB (D65), written into out (or a new array). */
export function rgbToLab(r: number, g: number, b: number, out: Vec3 = [0, 0, 0]): Vec3 {
  const lr = SRGB_TO_LINEAR[r & 255]!;
  const lg = SRGB_TO_LINEAR[g & 255]!;
  const lb = SRGB_TO_LINEAR[b & 255]!;
  const x = (0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / XN;
  const y = (0.2126729 * lr + 0.7151522 * lg + 0.072175 * lb) / YN;
  const z = (0.0193339 * lr + 0.119192 * lg + 0.9503041 * lb) / ZN;
  const fx = labF(x);
  const fy = labF(y);
  const fz = labF(z);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
  return out;
}

/** CIELAB (D65) -> 8-bit sRGB (clamped). */
export function labToRgb(L: number, a: number, bb: number, out: Vec3 = [0, 0, 0]): Vec3 {
  const fy = (L + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - bb / 200;
  const x = (fx ** 3 > EPS ? fx ** 3 : (116 * fx - 16) / KAPPA) * XN;
  const y = (L > KAPPA * EPS ? fy ** 3 : L / KAPPA) * YN;
  const z = (fz ** 3 > EPS ? fz ** 3 : (116 * fz - 16) / KAPPA) * ZN;
  const lr = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z;
  const lg = -0.969266 * x + 1.8760108 * y + 0.041556 * z;
  const lb = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z;
  out[0] = linearToSrgb8(lr);
  out[1] = linearToSrgb8(lg);
  out[2] = linearToSrgb8(lb);
  return out;
}

/** 8-bit sRGB -> OKLab (Björn Ottosson, 2020). */
export function rgbToOklab(r: number, g: number, b: number, out: Vec3 = [0, 0, 0]): Vec3 {
  const lr = SRGB_TO_LINEAR[r & 255]!;
  const lg = SRGB_TO_LINEAR[g & 255]!;
  const lb = SRGB_TO_LINEAR[b & 255]!;
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  out[0] = 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s;
  out[1] = 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s;
  out[2] = 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s;
  return out;
}

/** OKLab -> 8-bit sRGB (clamped). */
export function oklabToRgb(L: number, a: number, b: number, out: Vec3 = [0, 0, 0]): Vec3 {
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  out[0] = linearToSrgb8(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s);
  out[1] = linearToSrgb8(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s);
  out[2] = linearToSrgb8(-0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s);
  return out;
}

/** Packed RGBA bytes -> 3 CIELAB floats per pixel (alpha ignored). */
export function rgbaToLabArray(rgba: Uint8Array | Uint8ClampedArray, out = new Float32Array((rgba.length / 4) * 3)): Float32Array {
  // Cache by packed RGB: art has few distinct colours, so this is mostly lookups.
  const cache = new Map<number, number>();
  const tmp: Vec3 = [0, 0, 0];
  const n = rgba.length >> 2;
  const vals: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = rgba[i * 4]!, g = rgba[i * 4 + 1]!, b = rgba[i * 4 + 2]!;
    const key = (r << 16) | (g << 8) | b;
    let idx = cache.get(key);
    if (idx === undefined) {
      rgbToLab(r, g, b, tmp);
      idx = vals.length;
      vals.push(tmp[0], tmp[1], tmp[2]);
      if (cache.size < 1 << 20) cache.set(key, idx);
    }
    out[i * 3] = vals[idx]!;
    out[i * 3 + 1] = vals[idx + 1]!;
    out[i * 3 + 2] = vals[idx + 2]!;
  }
  return out;
}

/** Packed RGBA bytes -> 3 OKLab floats per pixel (alpha ignored). */
export function rgbaToOklabArray(rgba: Uint8Array | Uint8ClampedArray, out = new Float32Array((rgba.length / 4) * 3)): Float32Array {
  const tmp: Vec3 = [0, 0, 0];
  const n = rgba.length >> 2;
  for (let i = 0; i < n; i++) {
    rgbToOklab(rgba[i * 4]!, rgba[i * 4 + 1]!, rgba[i * 4 + 2]!, tmp);
    out[i * 3] = tmp[0];
    out[i * 3 + 1] = tmp[1];
    out[i * 3 + 2] = tmp[2];
  }
  return out;
}

/** CIE76 ΔE between two Lab colours. */
export function deltaE76(L1: number, a1: number, b1: number, L2: number, a2: number, b2: number): number {
  const dL = L1 - L2, da = a1 - a2, db = b1 - b2;
  return Math.sqrt(dL * dL + da * da + db * db);
}

/** CIEDE2000 ΔE between two Lab colours (Sharma, Wu, Dalal 2005). */
export function deltaE2000(L1: number, a1: number, b1: number, L2: number, a2: number, b2: number): number {
  const rad = Math.PI / 180;
  const C1 = Math.hypot(a1, b1), C2 = Math.hypot(a2, b2);
  const Cb = (C1 + C2) / 2;
  const G = 0.5 * (1 - Math.sqrt(Cb ** 7 / (Cb ** 7 + 25 ** 7)));
  const a1p = (1 + G) * a1, a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1), C2p = Math.hypot(a2p, b2);
  const h1p = C1p === 0 ? 0 : (Math.atan2(b1, a1p) / rad + 360) % 360;
  const h2p = C2p === 0 ? 0 : (Math.atan2(b2, a2p) / rad + 360) % 360;
  const dLp = L2 - L1, dCp = C2p - C1p;
  let dhp = 0;
  if (C1p * C2p !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(C1p * C2p) * Math.sin((dhp / 2) * rad);
  const Lbp = (L1 + L2) / 2, Cbp = (C1p + C2p) / 2;
  let hbp = h1p + h2p;
  if (C1p * C2p !== 0) {
    if (Math.abs(h1p - h2p) > 180) hbp = h1p + h2p < 360 ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2;
    else hbp = (h1p + h2p) / 2;
  }
  const T = 1 - 0.17 * Math.cos((hbp - 30) * rad) + 0.24 * Math.cos(2 * hbp * rad) + 0.32 * Math.cos((3 * hbp + 6) * rad) - 0.2 * Math.cos((4 * hbp - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hbp - 275) / 25) ** 2));
  const Rc = 2 * Math.sqrt(Cbp ** 7 / (Cbp ** 7 + 25 ** 7));
  const Sl = 1 + (0.015 * (Lbp - 50) ** 2) / Math.sqrt(20 + (Lbp - 50) ** 2);
  const Sc = 1 + 0.045 * Cbp;
  const Sh = 1 + 0.015 * Cbp * T;
  const Rt = -Math.sin(2 * dTheta * rad) * Rc;
  return Math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh));
}

/** CIE76 ΔE between two 8-bit sRGB colours. */
export function deltaERgb(r1: number, g1: number, b1: number, r2: number, g2: number, b2: number): number {
  const p = rgbToLab(r1, g1, b1);
  const q = rgbToLab(r2, g2, b2);
  return deltaE76(p[0], p[1], p[2], q[0], q[1], q[2]);
}

/** `#rrggbb` of an 8-bit colour. */
export function toHex(r: number, g: number, b: number): string {
  return '#' + ((1 << 24) | ((r & 255) << 16) | ((g & 255) << 8) | (b & 255)).toString(16).slice(1);
}
