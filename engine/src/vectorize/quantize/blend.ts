// Anti-aliasing blend detection: a pixel whose colour lies on the segment between its two opposite
// neighbours (in CIELAB), with enough contrast between them, is a coverage blend of two inks, not an ink.
// Blends get no weight when the palette is built, and take the label of the side they are closer to,
// which puts the traced boundary at 50 % coverage.
import type { LabImage } from './lab-image.js';
import type { Scratch } from '../scratch.js';
import { rowRuns, type ColourRuns } from './runs.js';

/** No blend: the pixel is an ink sample. */
export const NOT_BLEND = -1;

/**
 * Blend map: per pixel NOT_BLEND or a direction code 0-7 naming the neighbour whose ink the blend belongs to
 * (1 byte a pixel; `blendPartner` turns it into that neighbour's index).
 */
export type BlendMap = Int8Array;

/** Index of the neighbour a blend code points at (see detectBlends for the codes). */
export function blendPartner(i: number, code: number, w: number): number {
  // Directions d = code >> 1: horizontal, vertical, the two diagonals; bit 0: the far (+) side.
  const off = code >> 1 === 0 ? 1 : code >> 1 === 1 ? w : code >> 1 === 2 ? w + 1 : -w + 1;
  return code & 1 ? i + off : i - off;
}

/** Minimum ΔE76 between the two opposite neighbours for the middle pixel to count as a blend. */
const MIN_CONTRAST = 10;

/**
 * For every traced pixel: NOT_BLEND, or the code of the neighbour whose ink the blend belongs to (blendPartner).
 * Tests the four directions (horizontal, vertical, two diagonals) and keeps the one with most contrast.
 * `scratch`: the map is a view of its buffer (see scratch.ts). `found` (with `rgba`): receives the blend pixels in
 * scan order.
 */
export function detectBlends(img: LabImage, mask: Uint8Array, w: number, h: number, rgba?: Uint8ClampedArray, scratch?: Scratch, found?: number[]): BlendMap {
  const out = (scratch ? scratch.int8('quantize.blends', w * h) : new Int8Array(w * h)).fill(NOT_BLEND);
  const { index: ix, lab, varied } = img;
  // One Lab entry per pixel: the index is the identity (see LabImage), so entries are read without it.
  const direct = lab.length === 3 * ix.length;
  if (rgba) {
    blendsByRuns(img, mask, w, h, new Uint32Array(rgba.buffer, rgba.byteOffset, w * h), direct, out, found ?? []);
    return out;
  }
  const same = (a: number, b: number): boolean => {
    const ea = ix[a]! * 3, eb = ix[b]! * 3;
    return lab[ea] === lab[eb] && lab[ea + 1] === lab[eb + 1] && lab[ea + 2] === lab[eb + 2];
  };
  for (let y = 1; y < h - 1; y++) {
    const end = y * w + w - 1;
    for (let i = y * w + 1; i < end; i++) {
      // Jump over a run of flat windows at once.
      if (varied && !varied[i]) { i = varied.indexOf(1, i + 1); if (i === -1 || i >= end) break; }
      if (!mask[i]) continue;
      // Flat neighbourhood (equal opposite neighbours in every direction): no contrast, no blend.
      if (!direct && same(i - 1, i + 1) && same(i - w, i + w) && same(i - w - 1, i + w + 1) && same(i - w + 1, i + w - 1)) continue;
      out[i] = blendCode(lab, ix, direct, mask, w, i);
    }
  }
  return out;
}

/**
 * detectBlends on unsmoothed colours (`px`: packed pixels, where equal values have equal masks: traced pixels are
 * opaque, the rest all 0; see PreparedImage), visiting only the pixels that may be blends. Equal
 * opposite neighbours in every direction rule a blend out, and a pixel whose three window rows are each one colour
 * (no colour change in any of them at its column or the next) has that when the rows above and below match.
 * So each interior row is walked by the colour changes of the row and of its two neighbours: pixels next to a
 * change are judged one by one; between changes a stretch of pixels is ruled out at once (above = below) or judged
 * whole. Changes are rare in art (runs of one colour), so most pixels are never read.
 */
function blendsByRuns(img: LabImage, mask: Uint8Array, w: number, h: number, px: Uint32Array, direct: boolean, out: BlendMap, found: number[]): void {
  const { index: ix, lab, runs } = img;
  if (h < 3 || w < 3) return;
  // Colour changes of rows y - 1, y and y + 1: columns x with px[x] != px[x - 1], then a sentinel w.
  let above = new Int32Array(w + 1), mid = new Int32Array(w + 1), below = new Int32Array(w + 1);
  rowChanges(runs, px, 0, w, above);
  rowChanges(runs, px, 1, w, mid);
  for (let y = 1; y < h - 1; y++) {
    rowChanges(runs, px, y + 1, w, below);
    const row = y * w;
    let pa = 0, pm = 0, pb = 0;
    let x = 1;
    while (x < w - 1) {
      while (above[pa]! < x) pa++;
      while (mid[pm]! < x) pm++;
      while (below[pb]! < x) pb++;
      // First change at column x or later in any of the three rows.
      let next = above[pa]!;
      if (mid[pm]! < next) next = mid[pm]!;
      if (below[pb]! < next) next = below[pb]!;
      if (next <= x + 1) {
        // The window holds a change: judge the pixel.
        // A blend differs from both ends of some direction: its colour equal to an end puts it at t = 0 or 1 of
        // the segment (see onSegment), so such directions are ruled out by the packed colours alone.
        const i = row + x;
        const c = px[i]!;
        if (mask[i] && ((c !== px[i - 1] && c !== px[i + 1]) || (c !== px[i - w] && c !== px[i + w])
          || (c !== px[i - w - 1] && c !== px[i + w + 1]) || (c !== px[i + w - 1] && c !== px[i - w + 1]))) judge(lab, ix, direct, mask, w, i, out, found);
        x++;
        continue;
      }
      // Columns x .. next - 2: every window row is one colour, so every window is the same (colours and mask)
      // and gets the same code. Only vertical and diagonal pairs (above, below) can frame a blend, and only when
      // the middle colour is neither of them.
      const i0 = row + x;
      const a = px[i0 - w]!, b = px[i0 + w]!, c = px[i0]!;
      if (mask[i0] && a !== b && c !== a && c !== b) {
        const code = blendCode(lab, ix, direct, mask, w, i0);
        if (code !== NOT_BLEND) for (let i = i0, e = row + next - 1; i < e; i++) { out[i] = code; found.push(i); }
      }
      x = next - 1;
    }
    const t = above; above = mid; mid = below; below = t;
  }
}

/** Columns (1 .. w - 1) where row y changes colour, into `out` (w + 1 slots), then the sentinel w. */
function rowChanges(runs: ColourRuns | undefined, px: Uint32Array, y: number, w: number, out: Int32Array): void {
  const m = rowRuns(runs, px, y, w, out);
  const row = y * w;
  for (let t = 1; t <= m; t++) out[t - 1] = out[t]! - row;
}

/** Blend code of pixel i into `out`, listed in `found` when it is a blend. */
function judge(lab: Float32Array, ix: Uint32Array, direct: boolean, mask: Uint8Array, w: number, i: number, out: BlendMap, found: number[]): void {
  const code = blendCode(lab, ix, direct, mask, w, i);
  if (code === NOT_BLEND) return;
  out[i] = code;
  found.push(i);
}

/**
 * Blend code of traced interior pixel i (NOT_BLEND when none). Directions in order: horizontal, vertical, the two
 * diagonals; a later one wins only with more contrast.
 */
function blendCode(lab: Float32Array, ix: Uint32Array, direct: boolean, mask: Uint8Array, w: number, i: number): number {
  const o = (direct ? i : ix[i]!) * 3;
  const pL = lab[o]!, pA = lab[o + 1]!, pB = lab[o + 2]!;
  let best = 0;
  let partner = NOT_BLEND;
  let s: number;
  if (mask[i - 1] && mask[i + 1]) {
    s = onSegment(lab, (direct ? i - 1 : ix[i - 1]!) * 3, (direct ? i + 1 : ix[i + 1]!) * 3, pL, pA, pB);
    if (s !== 0 && Math.abs(s) > best) { best = Math.abs(s); partner = s > 0 ? 0 : 1; }
  }
  if (mask[i - w] && mask[i + w]) {
    s = onSegment(lab, (direct ? i - w : ix[i - w]!) * 3, (direct ? i + w : ix[i + w]!) * 3, pL, pA, pB);
    if (s !== 0 && Math.abs(s) > best) { best = Math.abs(s); partner = s > 0 ? 2 : 3; }
  }
  if (mask[i - w - 1] && mask[i + w + 1]) {
    s = onSegment(lab, (direct ? i - w - 1 : ix[i - w - 1]!) * 3, (direct ? i + w + 1 : ix[i + w + 1]!) * 3, pL, pA, pB);
    if (s !== 0 && Math.abs(s) > best) { best = Math.abs(s); partner = s > 0 ? 4 : 5; }
  }
  if (mask[i + w - 1] && mask[i - w + 1]) {
    s = onSegment(lab, (direct ? i + w - 1 : ix[i + w - 1]!) * 3, (direct ? i - w + 1 : ix[i - w + 1]!) * 3, pL, pA, pB);
    if (s !== 0 && Math.abs(s) > best) { best = Math.abs(s); partner = s > 0 ? 6 : 7; }
  }
  return partner;
}

const MIN_CONTRAST2 = MIN_CONTRAST * MIN_CONTRAST;

/**
 * Whether the colour p lies on the segment from entry a to entry b (offsets into `lab`) as a blend: their ΔE76²
 * L2 when it does, positive when p is nearer a, negative when nearer b; 0 when it is not a blend of the two.
 */
function onSegment(lab: Float32Array, qa: number, qb: number, pL: number, pA: number, pB: number): number {
  const aL = lab[qa]!, aA = lab[qa + 1]!, aB = lab[qa + 2]!;
  const eL = lab[qb]! - aL, eA = lab[qb + 1]! - aA, eB = lab[qb + 2]! - aB;
  const L2 = eL * eL + eA * eA + eB * eB;
  if (L2 < MIN_CONTRAST2) return 0;
  const vL = pL - aL, vA = pA - aA, vB = pB - aB;
  const t = (vL * eL + vA * eA + vB * eB) / L2;
  if (t <= 0.06 || t >= 0.94) return 0;
  const perp2 = vL * vL + vA * vA + vB * vB - t * t * L2;
  const tol = 0.04 * L2;
  if (perp2 > (tol > 9 ? tol : 9)) return 0;
  return t < 0.5 ? L2 : -L2;
}
