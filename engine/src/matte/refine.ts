// Edge refinement of a segmentation model's mask with the matting step, guided by the image.
// Trimap from the mask: certain foreground (mask >= 0.95), certain background (mask <= 0.05), the rest
// plus a 1-pixel ring on each side of every transition is the uncertain band; band pixels the model
// is not sure of (mask < 0.75) are not used as foreground samples. In the band, B is the colour
// of the certain background around the nearest certain-background pixel (multi-source BFS, 5x5 mean), F is sampled as in
// alpha.ts, α comes from the mixing model; where F and B are too alike for the mixing model to be
// reliable, the model's own mask value is blended in. Edge colours are the sampled foreground colours (B is
// only a local estimate there, so unmixing would amplify its error).
import type { Raster } from '../raster/types.js';
import { estimateAlpha } from './alpha.js';
import { decontaminate } from './decontaminate.js';
import { despeckle } from './despeckle.js';
import { BAND, BG, FG, NO_SAMPLE } from './types.js';

export interface RefinedMatte {
  data: Uint8ClampedArray;
  bandPixels: number;
  specksRemoved: number;
}

/** Refine a 0-255 mask at image size into a straight-alpha RGBA cut-out. */
export function refineMask(src: Raster, mask: Uint8Array): RefinedMatte {
  const { width, height, data } = src;
  const n = width * height;
  const state = new Uint8Array(n);
  for (let i = 0; i < n; i++) state[i] = mask[i]! >= 242 ? FG : mask[i]! <= 13 ? BG : BAND;
  // A transition between certain classes with no band in between (a hard mask) gets a 1-px band each side.
  const grow: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const s = state[i]!;
      if (s === BAND) continue;
      const other = s === FG ? BG : FG;
      if ((x > 0 && state[i - 1] === other) || (x < width - 1 && state[i + 1] === other) || (y > 0 && state[i - width] === other) || (y < height - 1 && state[i + width] === other)) grow.push(i);
    }
  }
  for (const i of grow) state[i] = BAND;
  let m = 0;
  for (let i = 0; i < n; i++) if (state[i] === BAND) m++;
  const band = new Int32Array(m);
  const slot = new Int32Array(n).fill(-1);
  m = 0;
  for (let i = 0; i < n; i++) if (state[i] === BAND) { slot[i] = m; band[m++] = i; }

  // Nearest certain background colour for every band pixel (BFS from the background pixels next to the band).
  const bg = new Float32Array(band.length * 3);
  const noise = new Float32Array(band.length).fill(6);
  const src0 = new Int32Array(band.length).fill(-1);
  const queue = new Int32Array(Math.max(band.length, 1));
  let head = 0, tail = 0;
  for (let k = 0; k < band.length; k++) {
    const i = band[k]!;
    const x = i % width, y = (i - x) / width;
    for (let d = 0; d < 4; d++) {
      const j = neighbour(i, x, y, d, width, height);
      if (j >= 0 && state[j] === BG) { src0[k] = j; queue[tail++] = k; break; }
    }
  }
  while (head < tail) {
    const k = queue[head++]!;
    const i = band[k]!;
    const x = i % width, y = (i - x) / width;
    for (let d = 0; d < 4; d++) {
      const j = neighbour(i, x, y, d, width, height);
      if (j < 0) continue;
      const kk = slot[j]!;
      if (kk >= 0 && src0[kk]! < 0) { src0[kk] = src0[k]!; queue[tail++] = kk; }
    }
  }
  // B = mean of the certain-background pixels in the 5x5 window around the nearest one (a textured
  // background makes a single pixel a poor estimate of the colour mixed into the edge).
  for (let k = 0; k < band.length; k++) {
    const j = src0[k]!;
    if (j < 0) {
      const i = band[k]!;
      bg[k * 3] = data[i * 4]!; bg[k * 3 + 1] = data[i * 4 + 1]!; bg[k * 3 + 2] = data[i * 4 + 2]!;
      continue;
    }
    const jx = j % width, jy = (j - jx) / width;
    let r = 0, g = 0, b = 0, c = 0, sq = 0;
    for (let y = Math.max(0, jy - 2); y <= Math.min(height - 1, jy + 2); y++) {
      for (let x = Math.max(0, jx - 2); x <= Math.min(width - 1, jx + 2); x++) {
        const q = y * width + x;
        if (state[q] !== BG) continue;
        const qr = data[q * 4]!, qg = data[q * 4 + 1]!, qb = data[q * 4 + 2]!;
        r += qr; g += qg; b += qb; sq += qr * qr + qg * qg + qb * qb; c++;
      }
    }
    bg[k * 3] = r / c; bg[k * 3 + 1] = g / c; bg[k * 3 + 2] = b / c;
    // Texture of the background there: RMS deviation per channel.
    const v = sq / c - (bg[k * 3]! ** 2 + bg[k * 3 + 1]! ** 2 + bg[k * 3 + 2]! ** 2);
    noise[k] = Math.max(6, Math.sqrt(Math.max(0, v) / 3));
  }

  const out = data.slice();
  const out32 = new Uint32Array(out.buffer);
  for (let i = 0; i < n; i++) {
    if (state[i] === FG) out[i * 4 + 3] = 255;
    else out32[i] = 0;
  }
  // Band pixels the model is not sure of are never used as foreground colour samples.
  for (let k = 0; k < band.length; k++) if (mask[band[k]!]! < 192) state[band[k]!] |= NO_SAMPLE;
  const est = estimateAlpha(data, width, height, state, band, bg, noise, 4);
  for (let k = 0; k < band.length; k++) {
    const o = k * 3;
    const dist = Math.hypot(est.fg[o]! - bg[o]!, est.fg[o + 1]! - bg[o + 1]!, est.fg[o + 2]! - bg[o + 2]!);
    // Trust the mixing model when it found a sample well apart from B, or when every sample lies on the
    // far side of B (the pixel is background); otherwise lean on the model's mask.
    const w = src0[k]! < 0 || !est.sampled[k] ? 0 : est.alpha[k] === 0 ? 1 : Math.min(1, Math.max(0, (dist - 20) / 40));
    est.alpha[k] = w * est.alpha[k]! + (1 - w) * (mask[band[k]!]! / 255);
  }
  decontaminate(data, out, band, est.alpha, est.fg, bg, 'sample');
  const specks = despeckle(out, width, height, band, Math.max(4, Math.round(n * 4e-6)), new Int32Array(n));
  return { data: out, bandPixels: band.length, specksRemoved: specks };
}

/** 4-neighbour d (0 left, 1 right, 2 up, 3 down) of pixel i at (x, y), or -1 outside the image. */
function neighbour(i: number, x: number, y: number, d: number, width: number, height: number): number {
  switch (d) {
    case 0: return x > 0 ? i - 1 : -1;
    case 1: return x < width - 1 ? i + 1 : -1;
    case 2: return y > 0 ? i - width : -1;
    default: return y < height - 1 ? i + width : -1;
  }
}
