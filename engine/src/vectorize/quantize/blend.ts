// Anti-aliasing blend detection: a pixel whose colour lies on the segment between its two opposite
// neighbours (in CIELAB), with enough contrast between them, is a coverage blend of two inks, not an ink.
// Blends get no weight when the palette is built, and take the label of the side they are closer to,
// which puts the traced boundary at 50 % coverage.

/** No blend: the pixel is an ink sample. */
export const NOT_BLEND = -1;

/** Minimum ΔE76 between the two opposite neighbours for the middle pixel to count as a blend. */
const MIN_CONTRAST = 10;

/**
 * For every traced pixel: NOT_BLEND, or the index of the neighbour whose ink the blend belongs to.
 * Tests the four directions (horizontal, vertical, two diagonals) and keeps the one with most contrast.
 */
export function detectBlends(lab: Float32Array, mask: Uint8Array, w: number, h: number, rgba?: Uint8ClampedArray): Int32Array {
  const out = new Int32Array(w * h).fill(NOT_BLEND);
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
      const o = i * 3;
      // Flat neighbourhood (equal opposite neighbours in every direction): no contrast, no blend.
      if (!px) {
        const l = o - 3, r = o + 3, u = o - w * 3, d = o + w * 3;
        if (lab[l] === lab[r] && lab[u] === lab[d] && lab[l + 1] === lab[r + 1] && lab[u + 1] === lab[d + 1] && lab[l + 2] === lab[r + 2] && lab[u + 2] === lab[d + 2]
          && lab[u - 3] === lab[d + 3] && lab[u + 3] === lab[d - 3] && lab[u - 2] === lab[d + 4] && lab[u + 4] === lab[d - 2] && lab[u - 1] === lab[d + 5] && lab[u + 5] === lab[d - 1]) continue;
      }
      const pL = lab[o]!, pA = lab[o + 1]!, pB = lab[o + 2]!;
      let bestL2 = 0;
      let partner = NOT_BLEND;
      for (let d = 0; d < 4; d++) {
        const off = offs[d]!;
        const ia = i - off, ib = i + off;
        if (!mask[ia] || !mask[ib]) continue;
        const qa = ia * 3, qb = ib * 3;
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
        partner = t < 0.5 ? ia : ib;
      }
      out[i] = partner;
    }
  }
  return out;
}
