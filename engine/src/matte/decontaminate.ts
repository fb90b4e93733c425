// Stage 4: colour decontamination. For a band pixel with 0 < α < 1 the observed colour is
// C = α·F + (1-α)·B; the foreground colour is recovered by removing the background's share,
// F' = B + (C - B) / α (clamped to the sRGB cube). Where α is small that division amplifies noise,
// so F' is blended toward the sampled foreground colour F (weight rises from α 0.1 to 0.5). On noisy
// sources (JPEG ringing and chroma, a textured background) the division amplifies the noise at every α,
// so the sampled F (an opaque neighbour explaining the mix) is used as is (`mode: 'sample'`).
// The result is written as straight (non-premultiplied) RGBA, so the old background leaves no halo.

/** `unmix`: F' = B + (C - B) / α, blended toward F at low α (clean sources); `sample`: the sampled F (noisy sources). */
export type DecontaminationMode = 'unmix' | 'sample';

/** sRGB noise (per channel) from which `sample` is used. */
export const SAMPLE_MODE_NOISE = 4;

/** Write the band's colours and alphas into `out` (RGBA, straight alpha). */
export function decontaminate(
  data: Uint8ClampedArray, out: Uint8ClampedArray, band: Int32Array, alpha: Float32Array, fg: Float32Array, bg: Float32Array,
  mode: DecontaminationMode = 'unmix',
): void {
  const lo = mode === 'unmix' ? 0.1 : 2, hi = mode === 'unmix' ? 0.5 : 3;
  for (let k = 0; k < band.length; k++) {
    const i = band[k]!;
    const a = alpha[k]!;
    const o = i * 4;
    if (a <= 0) {
      out[o] = fg[k * 3]!; out[o + 1] = fg[k * 3 + 1]!; out[o + 2] = fg[k * 3 + 2]!; out[o + 3] = 0;
      continue;
    }
    if (a >= 1) {
      out[o] = data[o]!; out[o + 1] = data[o + 1]!; out[o + 2] = data[o + 2]!; out[o + 3] = 255;
      continue;
    }
    const w = a >= hi ? 1 : a <= lo ? 0 : (a - lo) / (hi - lo);
    for (let c = 0; c < 3; c++) {
      const b = bg[k * 3 + c]!;
      let f = b + (data[o + c]! - b) / a;
      f = f < 0 ? 0 : f > 255 ? 255 : f;
      out[o + c] = w * f + (1 - w) * fg[k * 3 + c]!;
    }
    out[o + 3] = Math.round(a * 255);
  }
}
