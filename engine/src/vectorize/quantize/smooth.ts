// Edge-aware smoothing before clustering: a 3x3 bilateral filter in CIELAB (Tomasi & Manduchi 1998),
// run only when the art is noisy (JPEG ringing, chroma noise). Flat regions collapse to their ink and
// real edges stay sharp because neighbours across an edge get ~zero range weight.
import { rgbaToLabArray } from '../../colour/convert.js';

/** CIELAB of every pixel (3 floats per pixel; masked-out pixels are left as computed from their RGB). */
export function toLab(rgba: Uint8ClampedArray): Float32Array {
  return rgbaToLabArray(rgba);
}

/**
 * Share of traced pixels with no exactly equal right/bottom traced neighbour. Clean rendered art and
 * smooth gradients sit well under 0.3; JPEG uploads sit well above it.
 */
export function noiseScore(rgba: Uint8ClampedArray, mask: Uint8Array, w: number, h: number): number {
  let counted = 0;
  let unequal = 0;
  const px = new Uint32Array(rgba.buffer, rgba.byteOffset, w * h);
  for (let y = 0; y < h - 1; y += 2) {
    for (let x = 0; x < w - 1; x++) {
      const i = y * w + x;
      if (!mask[i] || !mask[i + 1] || !mask[i + w]) continue;
      counted++;
      const v = px[i]!;
      if (v !== px[i + 1] && v !== px[i + w] && v !== px[i - 1 < 0 ? i : i - 1]) unequal++;
    }
  }
  return counted ? unequal / counted : 0;
}

/**
 * Bilateral filter (3x3, spatial sigma 1 px) over traced pixels only, `passes` times.
 * @param sigmaR range sigma in ΔE76 units (noise below it is averaged, edges above it kept)
 */
export function bilateralLab(lab: Float32Array, mask: Uint8Array, w: number, h: number, sigmaR: number, passes: number): Float32Array {
  let src: Float32Array = lab;
  let dst: Float32Array = new Float32Array(lab.length);
  const TABLE = 1024;
  const maxD2 = 9 * sigmaR * sigmaR;
  const scale = (TABLE - 1) / maxD2;
  const range = new Float32Array(TABLE);
  for (let i = 0; i < TABLE; i++) range[i] = Math.exp(-(i / scale) / (2 * sigmaR * sigmaR));
  const sw = [Math.exp(-1), Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), 1, Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), Math.exp(-1)];
  for (let pass = 0; pass < passes; pass++) {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const o = i * 3;
        const L = src[o]!, A = src[o + 1]!, B = src[o + 2]!;
        if (!mask[i]) {
          dst[o] = L; dst[o + 1] = A; dst[o + 2] = B;
          continue;
        }
        let sL = 0, sA = 0, sB = 0, sWt = 0;
        let k = 0;
        for (let dy = -1; dy <= 1; dy++) {
          const yy = y + dy;
          for (let dx = -1; dx <= 1; dx++, k++) {
            const xx = x + dx;
            if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
            const j = yy * w + xx;
            if (!mask[j]) continue;
            const q = j * 3;
            const dL = src[q]! - L, dA = src[q + 1]! - A, dB = src[q + 2]! - B;
            const d2 = dL * dL + dA * dA + dB * dB;
            if (d2 >= maxD2) continue;
            const wt = sw[k]! * range[(d2 * scale) | 0]!;
            sL += wt * src[q]!; sA += wt * src[q + 1]!; sB += wt * src[q + 2]!; sWt += wt;
          }
        }
        dst[o] = sL / sWt; dst[o + 1] = sA / sWt; dst[o + 2] = sB / sWt;
      }
    }
    const t = src === lab ? new Float32Array(lab.length) : src;
    src = dst;
    dst = t;
  }
  return src;
}
