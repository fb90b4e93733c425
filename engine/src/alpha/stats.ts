// Alpha-channel statistics in one pass: pixel classes, alpha-weighted ink, the length of the artwork's
// boundary and the soft-rim width. The boundary length is the total variation of alpha (sum of
// |grad alpha| / 255, with transparency assumed outside the canvas); by the coarea formula that is the average length of the alpha level lines, so for
// a crisp anti-aliased edge it equals the edge length. soft_rim_px = semi-transparent pixels (alpha 8..247)
// per unit of boundary length: ~1 for anti-aliasing, the band width for glows and fades. Semi-transparent 1-px seams
// between opaque pixels (where two shapes abut) are counted apart: they are not a rim around the art.
import { extractAlphaRow } from '../raster/alpha-plane.js';
import type { Raster } from '../raster/types.js';

/**
 * Alpha band of the pixels that make up a soft rim. Fainter (< 3 %) or nearly opaque (> 97 %) pixels are
 * rounding and resampling ringing (e.g. after a Lanczos resize) that print as transparent or opaque.
 */
export const RIM_MIN_ALPHA = 8;
export const RIM_MAX_ALPHA = 247;

/** hypot(x, y) for 0 <= x, y < 32, indexed (x << 5) | y. */
const HYPOT = new Float64Array(1024).map((_, k) => Math.hypot(k >> 5, k & 31));

export interface AlphaStats {
  pixels: number;
  /** alpha == 0 */
  transparent: number;
  /** 0 < alpha < 255 */
  semi: number;
  /** alpha == 255 */
  opaque: number;
  /** Semi-transparent 1-px seams between opaque pixels (opaque on both sides), e.g. where shapes abut. */
  seam: number;
  /** Sum of alpha / 255 over all pixels (ink area in pixels). */
  ink: number;
  /** Sum of alpha / 255 over the semi-transparent pixels only. */
  semiInk: number;
  /** Boundary length in px: total variation of alpha / 255. */
  edgeLength: number;
  /** Rim pixels (alpha 8..247, seams excluded) per px of boundary; 0 when there is no boundary. */
  softRimPx: number;
  /** Binary steps (|d alpha| >= 128 in x or y) and how many of them are staircase corners (both at once). */
  hardSteps: number;
  stairCorners: number;
  /** Pixel indices of the edge: semi-transparent pixels (alpha 16..239) with a fully opaque 4-neighbour. */
  edgeSemi: Int32Array;
  /** The alpha plane (one byte per pixel) the statistics were computed from. */
  plane: Uint8Array;
}

/**
 * Measure the alpha channel (pass the alpha plane when you already have it).
 * @example const s = alphaStats(raster); s.softRimPx // 1.0 for crisp anti-aliased art
 */
export function alphaStats(r: Raster, plane?: Uint8Array): AlphaStats {
  const { width: w, height: h } = r;
  // Without a plane, it is extracted one row ahead of the row being measured (one pass over the RGBA).
  const fill = !plane;
  const A = plane ?? new Uint8Array(w * h);
  if (fill && h > 0) extractAlphaRow(r, A, 0);
  let edge = new Int32Array(1024);
  let edgeN = 0;
  let transparent = 0;
  let opaque = 0;
  let semiInkSum = 0;
  let tv = 0;
  let hardSteps = 0;
  let stairCorners = 0;
  let seam = 0;
  let rimPixels = 0;
  // Whole words (4 pixels) that are uniformly 0 or 255 and equal to the word below and the next pixel
  // carry no gradient and no semi pixels: count them and skip (most of the canvas in typical art).
  const words = w % 4 === 0 && A.byteOffset % 4 === 0 ? new Uint32Array(A.buffer, A.byteOffset, (w * h) >> 2) : null;
  const wq = w >> 2;
  for (let y = 0; y < h; y++) {
    const base = y * w;
    const lastRow = y === h - 1;
    const end = base + w - 1;
    if (fill && !lastRow) extractAlphaRow(r, A, y + 1);
    for (let i = base; i <= end; i++) {
      if (words && (i & 3) === 0 && !lastRow && i + 4 <= end) {
        const W = words[i >> 2]!;
        if ((W === 0 || W === 0xffffffff) && words[(i >> 2) + wq] === W && A[i + 4] === (W & 255)) {
          if (W === 0) transparent += 4;
          else opaque += 4;
          i += 3;
          continue;
        }
      }
      const a = A[i]!;
      const right = i < end ? A[i + 1]! : a;
      const below = lastRow ? a : A[i + w]!;
      if (a === 0) {
        transparent++;
        if (right === 0 && below === 0) continue;
      } else if (a === 255) {
        opaque++;
        if (right === 255 && below === 255) continue;
      } else {
        semiInkSum += a;
        const left = i > base ? A[i - 1]! : 0;
        const up = y > 0 ? A[i - w]! : 0;
        const isSeam = (i > base && i < end && left === 255 && right === 255) || (y > 0 && !lastRow && up === 255 && below === 255);
        if (isSeam) seam++;
        else if (a >= RIM_MIN_ALPHA && a <= RIM_MAX_ALPHA) rimPixels++;
        if (a >= 16 && a <= 239 && (left === 255 || up === 255 || (i < end && right === 255) || (!lastRow && below === 255))) {
          if (edgeN === edge.length) {
            const bigger = new Int32Array(edge.length * 2);
            bigger.set(edge);
            edge = bigger;
          }
          edge[edgeN++] = i;
        }
      }
      const dx = right - a;
      const dy = below - a;
      if (dx !== 0 || dy !== 0) {
        // small gradients (glows, fades) come from a table; sqrt only for steep edges
        const ax = dx < 0 ? -dx : dx;
        const ay = dy < 0 ? -dy : dy;
        tv += ax < 32 && ay < 32 ? HYPOT[(ax << 5) | ay]! : Math.sqrt(dx * dx + dy * dy);
        const hx = dx >= 128 || dx <= -128;
        const hy = dy >= 128 || dy <= -128;
        if (hx || hy) {
          hardSteps++;
          if (hx && hy) stairCorners++;
        }
      }
    }
  }
  // The canvas edge is a boundary too (transparent outside): art cut by the border, or a semi-transparent
  // layer that fills the canvas, has an outline there.
  let border = 0;
  for (let x = 0; x < w; x++) border += A[x]! + A[(h - 1) * w + x]!;
  for (let y = 0; y < h; y++) border += A[y * w]! + A[y * w + w - 1]!;
  tv += border;
  const pixels = w * h;
  const semi = pixels - transparent - opaque;
  const edgeLength = tv / 255;
  const ink = opaque + semiInkSum / 255;
  return {
    pixels, transparent, semi, opaque, seam,
    ink,
    semiInk: semiInkSum / 255,
    edgeLength,
    softRimPx: edgeLength > 0 ? rimPixels / edgeLength : 0,
    hardSteps, stairCorners,
    edgeSemi: edge.subarray(0, edgeN),
    plane: A,
  };
}
