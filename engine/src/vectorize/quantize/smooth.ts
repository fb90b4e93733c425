// Edge-aware smoothing before clustering: a 3x3 bilateral filter in CIELAB (Tomasi & Manduchi 1998),
// run only when the art is noisy (JPEG ringing, chroma noise). Flat regions collapse to their ink and
// real edges stay sharp because neighbours across an edge get ~zero range weight.
import { rgbToLab, type Vec3 } from '../../colour/convert.js';

/**
 * CIELAB of every pixel (3 floats per pixel). Art repeats colours in runs, so a pixel equal to its left
 * neighbour copies its Lab; other colours go through a small open-addressing cache.
 */
export function toLab(rgba: Uint8ClampedArray): Float32Array {
  const n = rgba.length >> 2;
  const out = new Float32Array(n * 3);
  const px = new Uint32Array(rgba.buffer, rgba.byteOffset, n);
  const SIZE = 1 << 16;
  const keys = new Uint32Array(SIZE);
  const used = new Uint8Array(SIZE);
  const vals = new Float32Array(SIZE * 3);
  const tmp: Vec3 = [0, 0, 0];
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const v = px[i]!;
    const o = i * 3;
    if (v === prev) {
      out[o] = out[o - 3]!; out[o + 1] = out[o - 2]!; out[o + 2] = out[o - 1]!;
      continue;
    }
    prev = v;
    const rgb = v & 0xffffff;
    const slot = (Math.imul(rgb, 0x9e3779b1) >>> 16) & (SIZE - 1);
    if (used[slot] && keys[slot] === rgb) {
      out[o] = vals[slot * 3]!; out[o + 1] = vals[slot * 3 + 1]!; out[o + 2] = vals[slot * 3 + 2]!;
      continue;
    }
    rgbToLab(rgb & 255, (rgb >>> 8) & 255, (rgb >>> 16) & 255, tmp);
    out[o] = tmp[0]; out[o + 1] = tmp[1]; out[o + 2] = tmp[2];
    used[slot] = 1; keys[slot] = rgb;
    vals[slot * 3] = tmp[0]; vals[slot * 3 + 1] = tmp[1]; vals[slot * 3 + 2] = tmp[2];
  }
  return out;
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
 * Bilateral filter (3x3, spatial sigma 1 px) over traced pixels only, `passes` times, in place: the result is
 * written over `lab` (and returned).
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
  const sw = Float64Array.of(Math.exp(-1), Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), 1, Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), Math.exp(-1));
  // Spatial times range weight per neighbour k and table slot, each product computed once (the same double).
  const kw = new Float64Array(9 * TABLE);
  for (let k = 0; k < 9; k++) for (let t = 0; t < TABLE; t++) kw[k * TABLE + t] = sw[k]! * range[t]!;
  const offs = Int32Array.of(-w - 1, -w, -w + 1, -1, 0, 1, w - 1, w, w + 1);
  // Pixels that took the flat path in the previous pass (1) and in this one. A pixel that was flat and whose
  // four neighbours were flat too kept its value and still equals them, so it is flat again: five byte reads
  // instead of twelve float compares (most of a JPEG of flat art is flat).
  let wasFlat = passes > 1 ? new Uint8Array(w * h) : null;
  let isFlat = passes > 1 ? new Uint8Array(w * h) : null;
  for (let pass = 0; pass < passes; pass++) {
    for (let y = 0; y < h; y++) {
      const inner = y > 0 && y < h - 1;
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const o = i * 3;
        const L = src[o]!, A = src[o + 1]!, B = src[o + 2]!;
        if (!mask[i]) {
          dst[o] = L; dst[o + 1] = A; dst[o + 2] = B;
          continue;
        }
        let sL = 0, sA = 0, sB = 0, sWt = 0;
        if (inner && x > 0 && x < w - 1) {
          // Interior pixel: flat (equal to its four neighbours, e.g. clean paper) means nothing to average;
          // else the 3x3 window without bounds checks (same summation order as the border path).
          if ((pass > 0 && wasFlat![i] && wasFlat![i - 1] && wasFlat![i + 1] && wasFlat![i - w] && wasFlat![i + w])
            || (mask[i - 1] && mask[i + 1] && mask[i - w] && mask[i + w]
            && src[o - 3] === L && src[o + 3] === L && src[o - w * 3] === L && src[o + w * 3] === L
            && src[o - 2] === A && src[o + 4] === A && src[o - w * 3 + 1] === A && src[o + w * 3 + 1] === A
            && src[o - 1] === B && src[o + 5] === B && src[o - w * 3 + 2] === B && src[o + w * 3 + 2] === B)) {
            dst[o] = L; dst[o + 1] = A; dst[o + 2] = B;
            if (isFlat) isFlat[i] = 1;
            continue;
          }
          for (let k = 0; k < 9; k++) {
            // The centre: ΔE 0, weight exactly 1 * 1.
            if (k === 4) { sL += L; sA += A; sB += B; sWt += 1; continue; }
            const j = i + offs[k]!;
            if (!mask[j]) continue;
            const q = j * 3;
            const qL = src[q]!, qA = src[q + 1]!, qB = src[q + 2]!;
            const dL = qL - L, dA = qA - A, dB = qB - B;
            const d2 = dL * dL + dA * dA + dB * dB;
            if (d2 >= maxD2) continue;
            const wt = kw[k * TABLE + ((d2 * scale) | 0)]!;
            sL += wt * qL; sA += wt * qA; sB += wt * qB; sWt += wt;
          }
        } else {
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
        }
        dst[o] = sL / sWt; dst[o + 1] = sA / sWt; dst[o + 2] = sB / sWt;
      }
    }
    const t = src;
    src = dst;
    dst = t;
    if (isFlat && pass + 1 < passes) {
      const f = wasFlat!;
      wasFlat = isFlat;
      isFlat = f;
      isFlat.fill(0);
    }
  }
  // Ping-pong between `lab` and one scratch image: the result ends in `lab`.
  if (src !== lab) lab.set(src);
  return lab;
}
