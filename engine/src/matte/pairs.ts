// Alpha of the uncertain band of a segmentation mask by sample pairs (after Gastal & Oliveira, "Shared Sampling
// for Real-Time Alpha Matting", 2010): from every band pixel, rays in 8 directions (rotated per pixel) walk
// outward until each meets its first certain-foreground and first certain-background pixel; of all pairs
// (F, B) of the samples found, the one that best explains the pixel as C = αF + (1-α)B gives α and the edge
// colour. Certain pixels come from the model (mask >= 0.95 / <= 0.05), so a gap the model left half-on keeps no
// background-coloured "foreground" samples: its texture is explained by the background samples around it.
// How far the pair is trusted (against the model's own mask value) is returned as a weight per pixel.
import { BG, FG } from './types.js';

export interface PairAlpha {
  /** α per band pixel (0-1). */
  alpha: Float32Array;
  /** Foreground colour of the chosen pair (3 floats, sRGB 0-255). */
  fg: Float32Array;
  /** Background colour of the chosen pair (3 floats). */
  bg: Float32Array;
  /** Trust in α (0-1): how well the pair explains the pixel and how far F and B stand apart. */
  weight: Float32Array;
}

/** Rays per pixel and the longest walk along one (pixels). */
const RAYS = 8;
const MAX_WALK = 160;

/**
 * Sample pairs for every band pixel. `state` marks the certain pixels (FG, BG; anything else is uncertain);
 * `noise` is the texture of the background near each band pixel (sRGB units, per channel).
 */
export function pairAlpha(data: Uint8ClampedArray, width: number, height: number, state: Uint8Array, band: Int32Array, noise: Float32Array): PairAlpha {
  const m = band.length;
  const alpha = new Float32Array(m), fgOut = new Float32Array(m * 3), bgOut = new Float32Array(m * 3), weight = new Float32Array(m);
  const fs = new Int32Array(RAYS), bs = new Int32Array(RAYS);
  // Best pair of every band pixel (pixel indices of F and B; -1: none), for the gathering pass.
  const pairF = new Int32Array(m).fill(-1), pairB = new Int32Array(m).fill(-1);
  // Ray offsets, precomputed for the 9 rotations: steps of 1 px near the pixel, then growing (the far samples
  // only need to exist, not to be the first met).
  const dists: number[] = [];
  for (let d = 1, step = 1; d <= MAX_WALK; d += step, step = d < 12 ? 1 : d < 40 ? 2 : 4) dists.push(d);
  const S = dists.length;
  const offX = new Int16Array(9 * RAYS * S), offY = new Int16Array(9 * RAYS * S);
  for (let rot = 0; rot < 9; rot++) {
    for (let r = 0; r < RAYS; r++) {
      // Rotate the star per pixel (a 3x3 pattern) so neighbouring pixels see different samples; the gathering
      // pass below removes the pattern this would leave.
      const t = ((rot / 9) + r) * ((2 * Math.PI) / RAYS);
      for (let q = 0; q < S; q++) {
        offX[(rot * RAYS + r) * S + q] = Math.round(Math.cos(t) * dists[q]!);
        offY[(rot * RAYS + r) * S + q] = Math.round(Math.sin(t) * dists[q]!);
      }
    }
  }
  for (let k = 0; k < m; k++) {
    const i = band[k]!;
    const x = i % width, y = (i - x) / width;
    const rot = (x % 3) * 3 + (y % 3);
    let nf = 0, nb = 0;
    for (let r = 0; r < RAYS; r++) {
      let gotF = false, gotB = false;
      const o = (rot * RAYS + r) * S;
      for (let q = 0; q < S && !(gotF && gotB); q++) {
        const xx = x + offX[o + q]!, yy = y + offY[o + q]!;
        if (xx < 0 || yy < 0 || xx >= width || yy >= height) break;
        const j = yy * width + xx, s = state[j]!;
        if (!gotF && s & FG) { fs[nf++] = j; gotF = true; }
        else if (!gotB && s & BG) { bs[nb++] = j; gotB = true; }
      }
    }
    const cr = data[i * 4]!, cg = data[i * 4 + 1]!, cb = data[i * 4 + 2]!;
    if (nf === 0 || nb === 0) {
      // One side was never reached: nothing to mix with; the caller keeps the model's value (unless a
      // neighbour's pair explains this pixel, below).
      const j = nf ? fs[0]! : i;
      fgOut[k * 3] = data[j * 4]!; fgOut[k * 3 + 1] = data[j * 4 + 1]!; fgOut[k * 3 + 2] = data[j * 4 + 2]!;
      const q = nb ? bs[0]! : i;
      bgOut[k * 3] = data[q * 4]!; bgOut[k * 3 + 1] = data[q * 4 + 1]!; bgOut[k * 3 + 2] = data[q * 4 + 2]!;
      alpha[k] = nf ? 1 : 0;
      continue;
    }
    let best = Infinity, bestF = fs[0]!, bestB = bs[0]!;
    for (let a = 0; a < nf; a++) {
      const f = fs[a]!;
      const fr = data[f * 4]!, fg = data[f * 4 + 1]!, fb = data[f * 4 + 2]!;
      for (let b = 0; b < nb; b++) {
        const q = bs[b]!;
        const br = data[q * 4]!, bgc = data[q * 4 + 1]!, bb = data[q * 4 + 2]!;
        const vr = fr - br, vg = fg - bgc, vb = fb - bb;
        const l2 = vr * vr + vg * vg + vb * vb;
        const wr = cr - br, wg = cg - bgc, wb = cb - bb;
        let al = l2 > 1 ? (wr * vr + wg * vg + wb * vb) / l2 : 0.5;
        al = al < 0 ? 0 : al > 1 ? 1 : al;
        const er = wr - al * vr, eg = wg - al * vg, eb = wb - al * vb;
        const res = er * er + eg * eg + eb * eb;
        if (res < best) { best = res; bestF = f; bestB = q; }
      }
    }
    pairF[k] = bestF; pairB[k] = bestB;
  }
  // Gathering: each pixel takes, of its own pair and those of the band pixels in its 5x5 window, the one that
  // explains its colour best (the rays' directions differ from pixel to pixel; without this their pattern shows).
  const slot = new Int32Array(width * height).fill(-1);
  for (let k = 0; k < m; k++) slot[band[k]!] = k;
  for (let k = 0; k < m; k++) {
    const i = band[k]!;
    const x = i % width, y = (i - x) / width;
    const cr = data[i * 4]!, cg = data[i * 4 + 1]!, cb = data[i * 4 + 2]!;
    let best = Infinity, bestA = 0, bestF = -1, bestB = -1, bestSep = 0, dF = Infinity, dB = Infinity;
    for (let yy = Math.max(0, y - 2); yy <= Math.min(height - 1, y + 2); yy++) {
      for (let xx = Math.max(0, x - 2); xx <= Math.min(width - 1, x + 2); xx++) {
        const kk = slot[yy * width + xx]!;
        if (kk < 0 || pairF[kk]! < 0) continue;
        const f = pairF[kk]!, q = pairB[kk]!;
        const br = data[q * 4]!, bgc = data[q * 4 + 1]!, bb = data[q * 4 + 2]!;
        const vr = data[f * 4]! - br, vg = data[f * 4 + 1]! - bgc, vb = data[f * 4 + 2]! - bb;
        const l2 = vr * vr + vg * vg + vb * vb;
        const wr = cr - br, wg = cg - bgc, wb = cb - bb;
        let al = l2 > 1 ? (wr * vr + wg * vg + wb * vb) / l2 : 0.5;
        al = al < 0 ? 0 : al > 1 ? 1 : al;
        const er = wr - al * vr, eg = wg - al * vg, eb = wb - al * vb;
        const res = er * er + eg * eg + eb * eb;
        if (res < best) { best = res; bestA = al; bestF = f; bestB = q; bestSep = l2; }
        const b2 = wr * wr + wg * wg + wb * wb;
        if (b2 < dB) dB = b2;
        const fr = cr - data[f * 4]!, fgr = cg - data[f * 4 + 1]!, fb = cb - data[f * 4 + 2]!;
        const f2 = fr * fr + fgr * fgr + fb * fb;
        if (f2 < dF) dF = f2;
      }
    }
    if (bestF < 0) continue;
    const n = Math.max(6, noise[k]!);
    const sep = Math.sqrt(bestSep);
    // Trusted when the pair explains the pixel within the noise and F and B are well apart.
    // A colour that both a foreground and a background sample show (a textured background that shares colours
    // with the subject) says nothing: there the model's own value stands.
    const s2 = 2 * (2 * n) ** 2;
    const ambiguous = bestA < 0.5 ? Math.exp(-dF / s2) : Math.exp(-dB / s2);
    weight[k] = Math.exp(-best / s2) * Math.min(1, Math.max(0, (sep - 3 * n) / (3 * n))) * (1 - ambiguous);
    alpha[k] = bestA;
    fgOut[k * 3] = data[bestF * 4]!; fgOut[k * 3 + 1] = data[bestF * 4 + 1]!; fgOut[k * 3 + 2] = data[bestF * 4 + 2]!;
    bgOut[k * 3] = data[bestB * 4]!; bgOut[k * 3 + 1] = data[bestB * 4 + 1]!; bgOut[k * 3 + 2] = data[bestB * 4 + 2]!;
  }
  return { alpha, fg: fgOut, bg: bgOut, weight };
}
