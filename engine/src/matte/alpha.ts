// Stage 3: alpha in the uncertain band from the colour mixing model  C = α·F + (1-α)·B.
// B is the background at the pixel (the fitted model, or for the segmentation backend the nearest
// certain background). F is chosen among the non-background pixels of the 5x5 window (9x9 for a model mask) (the pixel itself
// included) as in sampling-based matting (Wang & Cohen, "Optimized colour sampling", 2007): of the
// candidates (not background, not flagged NO_SAMPLE) that explain C as a mix with B within the noise (small distance from the B-F line), take
// the one farthest from B (the most opaque sample); if none does, the best-fitting one. α is the
// projection of C-B on F-B, clamped to [0, 1]; values within the noise of 0 or 1 are snapped.
import { BG, NO_SAMPLE } from './types.js';

export interface BandAlpha {
  /** α per band pixel, 0-1. */
  alpha: Float32Array;
  /** Chosen foreground colour per band pixel (3 floats, sRGB 0-255). */
  fg: Float32Array;
  /** 1 where the mixing model decided α; 0 where no pixel nearby differs from B beyond the noise (α set to 0). */
  sampled: Uint8Array;
}

/**
 * Estimate α and F for every band pixel.
 * @param bg background colour per band pixel (3 floats, sRGB 0-255)
 * @param radius half-size of the sampling window (2 = 5x5)
 * @param noiseRgb typical sRGB noise of the background (per channel), one value or one per band pixel; scales the tolerances
 */
export function estimateAlpha(
  data: Uint8ClampedArray, width: number, height: number, state: Uint8Array, band: Int32Array, bg: Float32Array, noiseRgb: number | Float32Array,
  radius = 2,
): BandAlpha {
  const m = band.length;
  const alpha = new Float32Array(m);
  const fg = new Float32Array(m * 3);
  const sampled = new Uint8Array(m);
  const perPixel = typeof noiseRgb !== 'number';
  let noise = Math.max(1, perPixel ? 1 : noiseRgb);
  let rTol = Math.max(8, 4 * noise);
  const R = radius;
  for (let k = 0; k < m; k++) {
    if (perPixel) {
      noise = Math.max(1, noiseRgb[k]!);
      rTol = Math.max(8, 4 * noise);
    }
    const i = band[k]!;
    const x = i % width, y = (i - x) / width;
    const br = bg[k * 3]!, bgc = bg[k * 3 + 1]!, bb = bg[k * 3 + 2]!;
    const cr = data[i * 4]! - br, cg = data[i * 4 + 1]! - bgc, cb = data[i * 4 + 2]! - bb;
    let bestJ = i, bestL2 = -1, bestA = 1;
    let fitJ = i, fitR = Infinity, fitA = 1, opposite = false;
    const y0 = Math.max(0, y - R), y1 = Math.min(height - 1, y + R), x0 = Math.max(0, x - R), x1 = Math.min(width - 1, x + R);
    for (let yy = y0; yy <= y1; yy++) {
      for (let xx = x0; xx <= x1; xx++) {
        const j = yy * width + xx;
        if (state[j]! & (BG | NO_SAMPLE)) continue;
        const vr = data[j * 4]! - br, vg = data[j * 4 + 1]! - bgc, vb = data[j * 4 + 2]! - bb;
        const l2 = vr * vr + vg * vg + vb * vb;
        if (l2 < 9 * noise * noise) continue;
        let a = (cr * vr + cg * vg + cb * vb) / l2;
        if (a <= 0) { opposite = true; continue; }
        if (a > 1) a = 1;
        const er = cr - a * vr, eg = cg - a * vg, eb = cb - a * vb;
        const res = Math.sqrt(er * er + eg * eg + eb * eb);
        if (res <= rTol) {
          if (l2 > bestL2) { bestL2 = l2; bestJ = j; bestA = a; }
        } else if (res < fitR) {
          fitR = res; fitJ = j; fitA = a;
        }
      }
    }
    let j = bestJ, a = bestA, l2 = bestL2;
    if (bestL2 >= 0) sampled[k] = 1;
    else {
      j = fitJ; a = fitA;
      // No foreground sample lies on this pixel's side of B (or none stands out from B beyond the noise):
      // the pixel is background. Only the first case is evidence the mixing model is sure of.
      if (fitR === Infinity) {
        a = 0;
        if (opposite) sampled[k] = 1;
      } else sampled[k] = 1;
      const vr = data[j * 4]! - br, vg = data[j * 4 + 1]! - bgc, vb = data[j * 4 + 2]! - bb;
      l2 = vr * vr + vg * vg + vb * vb;
    }
    // Snap values within the noise of 0 or 1 (noise in α is noise / |F-B|).
    const eps = Math.min(0.25, (2 * noise) / Math.sqrt(Math.max(1, l2)));
    if (a < eps) a = 0;
    else if (a > 1 - eps) a = 1;
    alpha[k] = a;
    fg[k * 3] = data[j * 4]!; fg[k * 3 + 1] = data[j * 4 + 1]!; fg[k * 3 + 2] = data[j * 4 + 2]!;
  }
  return { alpha, fg, sampled };
}
