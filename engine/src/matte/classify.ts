// Stage 2: classify every pixel against the background model in CIELAB (CIE76 ΔE).
// Candidates = pixels within the noise-scaled tolerance of the model at their position. Background =
// candidate components (4-connected flood fill) that touch the border, plus enclosed candidate
// components (letter counters, gaps between elements) at least `minHoleArea` pixels large.
// Non-background pixels within `bandRadius` (Chebyshev) of the background form the uncertain band;
// the rest is certain foreground.
import { rgbToLab, srgbToLinear8, type Vec3 } from '../colour/convert.js';
import { evalModel } from './background.js';
import { BAND, BG, CAND, FG, type BackgroundModel, type Thresholds } from './types.js';

/** Tolerances from the background noise (ΔE) and the image size. */
export function thresholdsFor(model: BackgroundModel, width: number, height: number): Thresholds {
  const n = width * height;
  const slack = model.kind === 'quadratic' ? 1 : 0;
  return {
    bgDeltaE: Math.min(14, Math.max(2.5, 3.5 * model.noiseDeltaE) + slack),
    // Clean sources: enclosed background-coloured regions from 5 px (tight counters and gaps of script
    // lettering); noisy ones (JPEG) from 8 px so noise pinholes in pale art are not punched out.
    minHoleArea: model.noiseDeltaE >= 1.5 ? Math.max(8, Math.round(n * 8e-6)) : Math.max(5, Math.round(n * 5e-6)),
    bandRadius: 2,
    speckArea: Math.max(4, Math.round(n * 4e-6)),
  };
}

const CACHE_BITS = 16;
const CACHE_SIZE = 1 << CACHE_BITS;

/**
 * Per-pixel ΔE to the background model, quantised to quarter units in a Uint8 (255 = 63.75 or more).
 * Lab values of recent colours are kept in a small direct-mapped cache (flat art repeats colours).
 */
export function distanceMap(data: Uint8ClampedArray, width: number, height: number, m: BackgroundModel): Uint8Array {
  const n = width * height;
  const out = new Uint8Array(n);
  const keys = new Int32Array(CACHE_SIZE).fill(-1);
  const vals = new Float32Array(CACHE_SIZE * 3);
  const tmp: Vec3 = [0, 0, 0];
  const constant = m.kind === 'constant';
  let bL = m.lab[0]!, bA = m.lab[6]!, bB = m.lab[12]!;
  const sx = width > 1 ? 2 / (width - 1) : 0, sy = height > 1 ? 2 / (height - 1) : 0;
  let prevKey = -1, prevD = 0;
  for (let y = 0; y < height; y++) {
    const ny = y * sy - 1;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const r = data[i * 4]!, g = data[i * 4 + 1]!, b = data[i * 4 + 2]!;
      const key = (r << 16) | (g << 8) | b;
      if (constant && key === prevKey) { out[i] = prevD; continue; }
      const slot = Math.imul(key, 0x9e3779b1) >>> (32 - CACHE_BITS);
      let L: number, A: number, B: number;
      if (keys[slot] === key) {
        L = vals[slot * 3]!; A = vals[slot * 3 + 1]!; B = vals[slot * 3 + 2]!;
      } else {
        rgbToLab(r, g, b, tmp);
        L = tmp[0]; A = tmp[1]; B = tmp[2];
        keys[slot] = key;
        vals[slot * 3] = L; vals[slot * 3 + 1] = A; vals[slot * 3 + 2] = B;
      }
      if (!constant) {
        const nx = x * sx - 1;
        bL = evalModel(m.lab, 0, nx, ny); bA = evalModel(m.lab, 1, nx, ny); bB = evalModel(m.lab, 2, nx, ny);
      }
      const dL = L - bL, dA = A - bA, dB = B - bB;
      const d = Math.sqrt(dL * dL + dA * dA + dB * dB) * 4;
      prevD = out[i] = d >= 255 ? 255 : d + 0.5;
      prevKey = key;
    }
  }
  return out;
}

/** Region-by-region rules for clean sources (renders, PNG art); omitted for noisy ones (JPEG). */
export interface RegionRules {
  /** RGBA pixels: flat plateaus of one exact colour are kept whole when the match tolerance line crosses them
   * (on a gradient background a flat pale region of art is otherwise cut along a straight line). */
  data?: Uint8ClampedArray;
  /** Median ΔE (quarter units) from which an enclosed region counts as a colour of the art, not background
   * showing through: a counter shows the background itself (ΔE 0 on a clean source), the white of an eye or the
   * dots of a wing painted off-white do not. */
  offWhite?: number;
  /** Noisy sources (JPEG) on a single-colour background: the off-white test read where the codec leaves a
   * region's colour intact (its flat pixels), with the background's lightness for the lightness test. */
  codecOffWhite?: { data: Uint8ClampedArray; bgL: number };
}

/** Median of dist over the spans (start, length pairs) at least `min`? */
function isOffBackground(dist: Uint8Array, spans: number[], min: number): boolean {
  const hist = new Uint32Array(256);
  let total = 0;
  for (let k = 0; k < spans.length; k += 2) {
    const a = spans[k]!, len = spans[k + 1]!;
    for (let i = a; i < a + len; i++) hist[dist[i]!]++;
    total += len;
  }
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += hist[v]!;
    if (acc * 2 >= total) return v >= min;
  }
  return false;
}

/** JPEG off-white test (measured on the corpus and synthetic rings at q50-q95, issue 20; see isOffBackgroundCodec). */
export const CODEC_FLAT_MIN = 16;
export const CODEC_FLAT_QUARTER_DE = 4;
export const CODEC_FLAT_SHARE = 0.25;
export const CODEC_PLATEAU_DL = 0.85;
export const CODEC_INTERIOR_DL = 2.5;
export const CODEC_INTERIOR_MIN = 32;
/** A painted region larger than this holds whole 16 px chroma blocks, so it is flat somewhere: without a plateau
 * it is not paint (and the interior test, the costly one, is spared on large counters). */
export const CODEC_UNFLAT_MAX_AREA = 2048;

/**
 * Is an enclosed region of a JPEG a colour of the art rather than background showing through? The codec's
 * ringing and 4:2:0 chroma tint a counter by 1-3 ΔE throughout (chroma blocks are 16 px), so the clean rule's
 * median reads counters as off-white. Two readings the codec does not fake:
 * - a plateau: flat pixels (all 8 neighbours within 1 sRGB unit; ringing is never flat), at least
 *   CODEC_FLAT_MIN, the majority of them at least 1 ΔE from the background (a counter's flat pixels are the
 *   background itself, or at most 8 stray ones on the corpus at q60-q95), and either covering a quarter of the
 *   region or with the interior darker by CODEC_PLATEAU_DL in median L* (the butterfly's #fcfdfa wing dots:
 *   0.96-1.09; counters' luma ringing reads up to 1.23 there, but never with such a plateau);
 * - without a plateau (a small pale region, at most CODEC_UNFLAT_MAX_AREA px, tinted throughout by a saturated
 *   outline's chroma): the interior
 *   (pixels whose 5x5 window lies in the region) at least CODEC_INTERIOR_MIN px and its median L* off by
 *   CODEC_INTERIOR_DL (#f5f5f5: 3.5); counters read at most 1.23 (corpus) and 1.71 (synthetic rings and bold
 *   letters, q50-q95).
 */
function isOffBackgroundCodec(dist: Uint8Array, limit: number, data: Uint8ClampedArray, bgL: number, width: number, height: number, spans: number[], area: number): boolean {
  // Flat pixels at least 1 ΔE off first (few in a counter: an early exit), then, only while they could still be
  // the majority, the flat pixels closer to the background.
  const off = countFlat(dist, data, width, height, spans, (d) => d >= CODEC_FLAT_QUARTER_DE, Number.POSITIVE_INFINITY);
  let plateau = false;
  if (off >= CODEC_FLAT_MIN) {
    const near = countFlat(dist, data, width, height, spans, (d) => d < CODEC_FLAT_QUARTER_DE, off);
    if (near < off) {
      if (off + near >= CODEC_FLAT_SHARE * area) return true;
      plateau = true;
    }
  }
  // |ΔL*| <= ΔE: a median lightness offset of CODEC_INTERIOR_DL needs half the interior that far in ΔE; most
  // counters have not even CODEC_INTERIOR_MIN / 2 such pixels (a cheap exit before any Lab conversion).
  if (!plateau) {
    if (area > CODEC_UNFLAT_MAX_AREA) return false;
    const far = CODEC_INTERIOR_DL * 4;
    let count = 0;
    for (let k = 0; k < spans.length && count * 2 < CODEC_INTERIOR_MIN; k += 2) {
      const a = spans[k]!, len = spans[k + 1]!;
      for (let i = a; i < a + len; i++) if (dist[i]! >= far) count++;
    }
    if (count * 2 < CODEC_INTERIOR_MIN) return false;
  }
  // Interior lightness: pixels whose 5x5 window lies wholly in the region (all within the match tolerance);
  // is their median L* at least `dl` below (or above) the background's? Counted against the two lightness bounds
  // (no sort, no full Lab conversion).
  const dl = plateau ? CODEC_PLATEAU_DL : CODEC_INTERIOR_DL;
  let n = 0, darker = 0, lighter = 0;
  for (let k = 0; k < spans.length; k += 2) {
    const a = spans[k]!, len = spans[k + 1]!;
    const y = (a / width) | 0;
    if (y < 2 || y >= height - 2) continue;
    for (let i = a; i < a + len; i++) {
      const x = i - y * width;
      if (x < 2 || x >= width - 2 || !windowWithin(dist, limit, i, width)) continue;
      n++;
      const L = lightness(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!);
      if (L <= bgL - dl) darker++;
      else if (L >= bgL + dl) lighter++;
    }
  }
  if (n < (plateau ? CODEC_FLAT_MIN : CODEC_INTERIOR_MIN)) return false;
  return darker * 2 > n || lighter * 2 > n;
}

/** CIE L* of an sRGB colour (as rgbToLab's first component). */
function lightness(r: number, g: number, b: number): number {
  const y = 0.2126729 * srgbToLinear8(r) + 0.7151522 * srgbToLinear8(g) + 0.072175 * srgbToLinear8(b);
  return y > 216 / 24389 ? 116 * Math.cbrt(y) - 16 : (24389 / 27) * y;
}

/** Flat pixels of the region (spans) whose ΔE passes `which`, counting up to `stop`. */
function countFlat(dist: Uint8Array, data: Uint8ClampedArray, width: number, height: number, spans: number[], which: (d: number) => boolean, stop: number): number {
  let count = 0;
  for (let k = 0; k < spans.length; k += 2) {
    const a = spans[k]!, len = spans[k + 1]!;
    const y = (a / width) | 0;
    if (y < 1 || y >= height - 1) continue;
    for (let i = a; i < a + len; i++) {
      const x = i - y * width;
      if (x < 1 || x >= width - 1 || !which(dist[i]!) || !isFlat(data, i, width)) continue;
      if (++count >= stop) return count;
    }
  }
  return count;
}

/** All 8 neighbours of pixel i within 1 sRGB unit of it, per channel (i not on the image border). */
function isFlat(data: Uint8ClampedArray, i: number, width: number): boolean {
  const o = i * 4, r = data[o]!, g = data[o + 1]!, b = data[o + 2]!;
  for (let dy = -width; dy <= width; dy += width) {
    for (let dx = -1; dx <= 1; dx++) {
      const j = (i + dy + dx) * 4;
      if (Math.abs(data[j]! - r) > 1 || Math.abs(data[j + 1]! - g) > 1 || Math.abs(data[j + 2]! - b) > 1) return false;
    }
  }
  return true;
}

/** The 5x5 window around pixel i lies wholly within the match tolerance (i at least 2 px from the border). */
function windowWithin(dist: Uint8Array, limit: number, i: number, width: number): boolean {
  for (let dy = -2; dy <= 2; dy++) {
    const o = i + dy * width;
    for (let dx = -2; dx <= 2; dx++) if (dist[o + dx]! >= limit) return false;
  }
  return true;
}

/** Smallest flat plateau (pixels of one exact colour) that is kept whole when the tolerance line crosses it. */
const MIN_PLATEAU = 40;

/**
 * A flat plateau (4-connected pixels of one exact RGB) that is partly within the match tolerance and partly
 * not is one region of the art that a smooth background model happens to approach: the whole plateau is art
 * (its candidate pixels are cleared) instead of being cut along the straight line where the model crosses
 * the tolerance. The background itself never straddles: its exact-colour plateaus lie wholly within tolerance.
 */
function keepFlatPlateaus(data: Uint8ClampedArray, dist: Uint8Array, limit: number, width: number, height: number, state: Uint8Array, stack: Int32Array): void {
  const n = width * height;
  const d32 = new Uint32Array(data.buffer, data.byteOffset, n);
  const seen = new Uint8Array(n);
  const members: number[] = [];
  for (let s = 0; s < n; s++) {
    if (seen[s] || state[s] !== CAND) continue;
    const colour = d32[s]!;
    members.length = 0;
    let sp = 0, inside = 0, outside = 0;
    stack[sp++] = s;
    seen[s] = 1;
    while (sp > 0) {
      const i = stack[--sp]!;
      members.push(i);
      if (dist[i]! < limit) inside++; else outside++;
      const x = i % width;
      if (x > 0 && !seen[i - 1] && d32[i - 1] === colour) { seen[i - 1] = 1; stack[sp++] = i - 1; }
      if (x < width - 1 && !seen[i + 1] && d32[i + 1] === colour) { seen[i + 1] = 1; stack[sp++] = i + 1; }
      if (i >= width && !seen[i - width] && d32[i - width] === colour) { seen[i - width] = 1; stack[sp++] = i - width; }
      if (i + width < n && !seen[i + width] && d32[i + width] === colour) { seen[i + width] = 1; stack[sp++] = i + width; }
    }
    if (inside + outside >= MIN_PLATEAU && outside >= 0.1 * (inside + outside) && inside > 0) {
      for (const i of members) state[i] = 0;
    }
  }
}

export interface Classification {
  /** Per-pixel flags: CAND, BG, BAND, FG (see types.ts). */
  state: Uint8Array;
  /** Indices of the band pixels, in scan order. */
  band: Int32Array;
  holesRemoved: number;
  /** Share of border pixels that ended up background. */
  borderBackground: number;
}

/**
 * Flood-fill the background from the border, add enclosed background-coloured regions, then mark the band.
 * `queue` is a scratch Int32Array of at least width·height entries (reused by later stages).
 */
export function classify(dist: Uint8Array, width: number, height: number, t: Thresholds, queue: Int32Array, regions: RegionRules = {}): Classification {
  const n = width * height;
  const state = new Uint8Array(n);
  const limit = Math.round(t.bgDeltaE * 4);
  for (let i = 0; i < n; i++) if (dist[i]! < limit) state[i] = CAND;
  if (regions.data) keepFlatPlateaus(regions.data, dist, limit, width, height, state, queue);
  const VISITED = 128;
  let holes = 0;
  // Scanline (span) flood fill: the border component first, marked BG directly.
  const seedRow = (y: number, x: number): void => {
    const i = y * width + x;
    if (state[i] === CAND) fillSpans(state, width, height, i, BG | VISITED, queue, null);
  };
  for (let x = 0; x < width; x++) { seedRow(0, x); seedRow(height - 1, x); }
  for (let y = 0; y < height; y++) { seedRow(y, 0); seedRow(y, width - 1); }
  // What is left of the candidates is enclosed: keep components above noise size (counters, gaps).
  const spans: number[] = [];
  for (let s = 0; s < n; s++) {
    if (state[s] !== CAND) continue;
    spans.length = 0;
    const area = fillSpans(state, width, height, s, VISITED, queue, spans);
    const artColour = area >= t.minHoleArea && ((regions.offWhite !== undefined && isOffBackground(dist, spans, regions.offWhite))
      || (regions.codecOffWhite !== undefined && isOffBackgroundCodec(dist, limit, regions.codecOffWhite.data, regions.codecOffWhite.bgL, width, height, spans, area)));
    if (area >= t.minHoleArea && !artColour) {
      holes++;
      for (let k = 0; k < spans.length; k += 2) {
        const a = spans[k]!, len = spans[k + 1]!;
        for (let i = a; i < a + len; i++) state[i] = state[i]! | BG;
      }
    }
  }
  // Chebyshev dilation of BG by bandRadius: rows first into `rowNear`, then columns, all in row order
  // (a column-wise walk over a large image thrashes the cache).
  const r = t.bandRadius;
  const rowNear = new Uint8Array(n);
  for (let y = 0; y < height; y++) {
    const o = y * width;
    let last = -1e9;
    for (let x = 0; x < width; x++) { if (state[o + x]! & BG) last = x; if (x - last <= r) rowNear[o + x] = 1; }
    last = 1e9;
    for (let x = width - 1; x >= 0; x--) { if (state[o + x]! & BG) last = x; if (last - x <= r) rowNear[o + x] = 1; }
  }
  const lastAbove = new Int32Array(width).fill(-1e9);
  for (let y = 0; y < height; y++) {
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const i = o + x;
      if (rowNear[i]) lastAbove[x] = y;
      if (!(state[i]! & BG)) state[i] = (state[i]! & CAND) | (y - lastAbove[x]! <= r ? BAND : FG);
    }
  }
  const nextBelow = new Int32Array(width).fill(1e9);
  for (let y = height - 1; y >= 0; y--) {
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const i = o + x;
      if (rowNear[i]) nextBelow[x] = y;
      if (state[i]! & FG && nextBelow[x]! - y <= r) state[i] = (state[i]! & CAND) | BAND;
    }
  }
  let bandCount = 0;
  for (let i = 0; i < n; i++) if (state[i]! & BAND) bandCount++;
  for (let i = 0; i < n; i++) state[i] = state[i]! & ~VISITED;
  const band = new Int32Array(bandCount);
  let k = 0;
  for (let i = 0; i < n; i++) if (state[i]! & BAND) band[k++] = i;
  let borderBg = 0, borderAll = 0;
  for (let x = 0; x < width; x++) {
    borderAll += 2;
    if (state[x]! & BG) borderBg++;
    if (state[(height - 1) * width + x]! & BG) borderBg++;
  }
  for (let y = 0; y < height; y++) {
    borderAll += 2;
    if (state[y * width]! & BG) borderBg++;
    if (state[y * width + width - 1]! & BG) borderBg++;
  }
  return { state, band, holesRemoved: holes, borderBackground: borderBg / Math.max(1, borderAll) };
}

/**
 * Span flood fill (4-connected) of the unmarked CAND pixels reachable from `seed`, OR-ing `bits` into them.
 * Records (start, length) pairs into `spans` when given. Returns the area filled.
 */
function fillSpans(state: Uint8Array, width: number, height: number, seed: number, bits: number, stack: Int32Array, spans: number[] | null): number {
  let sp = 0, area = 0;
  stack[sp++] = seed;
  while (sp > 0) {
    const i = stack[--sp]!;
    if (state[i] !== CAND) continue;
    const y = (i / width) | 0, row = y * width;
    let l = i, r = i;
    while (l > row && state[l - 1] === CAND) l--;
    while (r < row + width - 1 && state[r + 1] === CAND) r++;
    for (let k = l; k <= r; k++) state[k] = CAND | bits;
    area += r - l + 1;
    if (spans) spans.push(l, r - l + 1);
    if (y > 0) sp = pushRuns(state, l - width, r - width, stack, sp);
    if (y < height - 1) sp = pushRuns(state, l + width, r + width, stack, sp);
  }
  return area;
}

function pushRuns(state: Uint8Array, a: number, b: number, stack: Int32Array, sp: number): number {
  let inRun = false;
  for (let k = a; k <= b; k++) {
    if (state[k] === CAND) {
      if (!inRun) { stack[sp++] = k; inRun = true; }
    } else inRun = false;
  }
  return sp;
}
