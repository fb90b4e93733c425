// Edge refinement of a segmentation model's mask with our matting, guided by the image.
// 1. Gaps in flat art (art-gaps.ts): background the model kept between letters or inside a ring of a flat
//    logo on a busy background is cleared from the mask.
// 2. Trimap: certain foreground (mask >= 0.95), certain background (mask <= 0.05), the rest plus a 1-pixel ring
//    on each side of every transition is the uncertain band.
// 3. Alpha in the band from sample pairs (pairs.ts: rays to the nearest certain foreground and background,
//    the pair that best explains the pixel, shared with the 5x5 neighbours); where the pair explains the pixel
//    poorly, F and B are alike, or the colour is one both sides show, the model's own mask value is blended in.
//    The texture of the background near each band pixel (RMS in the 5x5 window around the nearest certain
//    background pixel) sets the tolerance. Before issue 20 a 9x9 window of "foreground" samples took band
//    pixels the model half-believed as samples, so texture in narrow gaps explained itself and stayed, and the
//    nearest-background cells left blocky patches.
// 4. Edge colours are the pair's foreground colour (B is a local sample, unmixing would amplify its error).
import type { Raster } from '../raster/types.js';
import { clearArtGaps } from './art-gaps.js';
import { decontaminate } from './decontaminate.js';
import { despeckle } from './despeckle.js';
import { pairAlpha } from './pairs.js';
import { BAND, BG, FG } from './types.js';

export interface RefinedMatte {
  data: Uint8ClampedArray;
  bandPixels: number;
  specksRemoved: number;
  /** Pixels of background cleared inside flat art before refining (art-gaps.ts). */
  gapsCleared: number;
}

/** Refine a 0-255 mask at image size into a straight-alpha RGBA cut-out. */
export function refineMask(src: Raster, modelMask: Uint8Array): RefinedMatte {
  const { width, height, data } = src;
  const n = width * height;
  const mask = modelMask.slice();
  const gapsCleared = clearArtGaps(data, width, height, mask, Math.max(16, Math.round(n * GAP_AREA)));
  const state = new Uint8Array(n);
  for (let i = 0; i < n; i++) state[i] = mask[i]! >= 242 ? FG : mask[i]! <= 13 ? BG : BAND;
  settleFarBand(mask, state, width, height, Math.max(3, Math.round(Math.max(width, height) * FAR_BAND)));
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
  const p = pairAlpha(data, width, height, state, band, noise);
  for (let k = 0; k < band.length; k++) {
    const w = p.weight[k]!;
    p.alpha[k] = w * p.alpha[k]! + (1 - w) * (mask[band[k]!]! / 255);
  }
  decontaminate(data, out, band, p.alpha, p.fg, p.bg, 'sample');
  const specks = despeckle(out, width, height, band, Math.max(4, Math.round(n * 4e-6)), new Int32Array(n));
  return { data: out, bandPixels: band.length, specksRemoved: specks, gapsCleared };
}

/**
 * Distance from the model's 50 % contour, as a share of the long side, beyond which an uncertain mask value is
 * settled by that threshold (12 px at 1024). ISNet leaves wide areas of a subject at 0.6-0.9 (a cat's body
 * filling the frame, a product in shadow): refining them by colour pairs, with the nearest background far
 * away and a texture on both sides, punched holes through the subject. Soft edges (hair, fur, motion blur) sit
 * next to the contour and stay uncertain.
 */
const FAR_BAND = 12 / 1024;

/**
 * Uncertain pixels (BAND) farther than `reach` px (4-connected) from the mask's 50 % contour become certain
 * foreground (mask >= 128) or background.
 */
function settleFarBand(mask: Uint8Array, state: Uint8Array, width: number, height: number, reach: number): void {
  const n = width * height;
  const dist = new Uint16Array(n).fill(0xffff);
  const queue = new Int32Array(n);
  let head = 0, tail = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inside = mask[i]! >= 128;
      if ((x > 0 && (mask[i - 1]! >= 128) !== inside) || (x < width - 1 && (mask[i + 1]! >= 128) !== inside)
        || (y > 0 && (mask[i - width]! >= 128) !== inside) || (y < height - 1 && (mask[i + width]! >= 128) !== inside)) {
        dist[i] = 0; queue[tail++] = i;
      }
    }
  }
  while (head < tail) {
    const i = queue[head++]!;
    const d = dist[i]! + 1;
    if (d > reach) continue;
    const x = i % width, y = (i - x) / width;
    for (let k = 0; k < 4; k++) {
      const j = neighbour(i, x, y, k, width, height);
      if (j >= 0 && dist[j]! > d) { dist[j] = d; queue[tail++] = j; }
    }
  }
  for (let i = 0; i < n; i++) if (state[i] === BAND && dist[i]! > reach && mask[i]! >= 128) state[i] = FG;
}

/** Smallest gap cleared inside flat art, as a share of the pixels (42 px at 1024 x 1024). */
const GAP_AREA = 4e-5;

/** 4-neighbour d (0 left, 1 right, 2 up, 3 down) of pixel i at (x, y), or -1 outside the image. */
function neighbour(i: number, x: number, y: number, d: number, width: number, height: number): number {
  switch (d) {
    case 0: return x > 0 ? i - 1 : -1;
    case 1: return x < width - 1 ? i + 1 : -1;
    case 2: return y > 0 ? i - width : -1;
    default: return y < height - 1 ? i + width : -1;
  }
}
