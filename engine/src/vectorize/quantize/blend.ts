// Anti-aliasing blend detection: a pixel whose colour lies on the segment between its two opposite
// neighbours (in CIELAB), with enough contrast between them, is a coverage blend of two inks, not an ink.
// Blends get no weight when the palette is built, and take the label of the side they are closer to,
// which puts the traced boundary at 50 % coverage.
import type { LabImage } from './lab-image.js';

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
 */
export function detectBlends(img: LabImage, mask: Uint8Array, w: number, h: number, rgba?: Uint8ClampedArray): BlendMap {
  const out = new Int8Array(w * h).fill(NOT_BLEND);
  const { index: ix, lab } = img;
  const same = (a: number, b: number): boolean => {
    const ea = ix[a]! * 3, eb = ix[b]! * 3;
    return lab[ea] === lab[eb] && lab[ea + 1] === lab[eb + 1] && lab[ea + 2] === lab[eb + 2];
  };
  // With unsmoothed colours, equal opposite neighbours in every direction rule a blend out cheaply.
  const px = rgba ? new Uint32Array(rgba.buffer, rgba.byteOffset, w * h) : null;
  const minC2 = MIN_CONTRAST * MIN_CONTRAST;
  // Offsets of the four directions: horizontal, vertical, the two diagonals.
  const offs = Int32Array.of(1, w, w + 1, -w + 1);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (!mask[i]) continue;
      if (px && px[i - 1] === px[i + 1] && px[i - w] === px[i + w] && px[i - w - 1] === px[i + w + 1] && px[i - w + 1] === px[i + w - 1]) continue;
      const o = ix[i]! * 3;
      // Flat neighbourhood (equal opposite neighbours in every direction): no contrast, no blend.
      if (!px && same(i - 1, i + 1) && same(i - w, i + w) && same(i - w - 1, i + w + 1) && same(i - w + 1, i + w - 1)) continue;
      const pL = lab[o]!, pA = lab[o + 1]!, pB = lab[o + 2]!;
      let bestL2 = 0;
      let partner = NOT_BLEND;
      for (let d = 0; d < 4; d++) {
        const off = offs[d]!;
        const ia = i - off, ib = i + off;
        if (!mask[ia] || !mask[ib]) continue;
        const qa = ix[ia]! * 3, qb = ix[ib]! * 3;
        const aL = lab[qa]!, aA = lab[qa + 1]!, aB = lab[qa + 2]!;
        const eL = lab[qb]! - aL, eA = lab[qb + 1]! - aA, eB = lab[qb + 2]! - aB;
        const L2 = eL * eL + eA * eA + eB * eB;
        if (L2 < minC2 || L2 <= bestL2) continue;
        const vL = pL - aL, vA = pA - aA, vB = pB - aB;
        const t = (vL * eL + vA * eA + vB * eB) / L2;
        if (t <= 0.06 || t >= 0.94) continue;
        const perp2 = vL * vL + vA * vA + vB * vB - t * t * L2;
        const tol = 0.04 * L2;
        if (perp2 > (tol > 9 ? tol : 9)) continue;
        bestL2 = L2;
        partner = t < 0.5 ? d * 2 : d * 2 + 1;
      }
      out[i] = partner;
    }
  }
  return out;
}
