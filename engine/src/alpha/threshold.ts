// Alpha threshold with colour decontamination ("defringe"): alpha below the threshold -> 0, at or above
// -> 255. Kept edge pixels get their matte removed: the colour is first un-mixed from the detected matte M
// (F = (c - (1-a) M) / a), then snapped to the closest colour of the fully opaque art within 2 px; last,
// opaque pixels within 3 px of the new edge that still carry the matte (alpha/band.ts) take the art colour
// found deeper inside, so the hard edge shows the art's own colour and no light or dark rim. A wide glow
// or shadow (soft rim over 6 px, as scan judges it) is design, not a matte: its kept pixels keep their colour.
import type { Raster } from '../raster/types.js';
import { detectFringe } from './fringe.js';
import { alphaStats } from './stats.js';
import { RIM_WIDE_PX } from './rim.js';
import { alphaPlane } from '../raster/alpha-plane.js';
import { decontaminateBand } from './band.js';

export interface ThresholdResult {
  /** Pixels made fully transparent. */
  removed: number;
  /** Semi-transparent pixels made fully opaque. */
  kept: number;
  /** Kept pixels whose colour was changed by decontamination. */
  recoloured: number;
  /** Matte colour removed from edges, or null when none was detected. */
  matte: [number, number, number] | null;
}

/**
 * Threshold alpha in place. `threshold` 0..255: alpha < threshold becomes 0, alpha >= threshold 255.
 * @example thresholdAlpha(raster, 144);
 */
export function thresholdAlpha(r: Raster, threshold: number): ThresholdResult {
  const { width: w, height: h, data } = r;
  // Original alpha: decontamination looks at the opaque art as it was.
  const alpha = alphaPlane(r);
  let anySemi = false;
  for (let p = 0; p < alpha.length && !anySemi; p++) if (alpha[p] !== 0 && alpha[p] !== 255) anySemi = true;
  if (!anySemi) return { removed: 0, kept: 0, recoloured: 0, matte: null };
  // as in scan: an off-colour edge under a wide soft rim is a glow or shadow (design), not a matte to remove
  // (its kept pixels keep their own colour: neither un-mixed nor snapped to the art next to them)
  const stats = alphaStats(r, alpha);
  const glow = stats.softRimPx > RIM_WIDE_PX;
  const matte = glow ? null : detectFringe(r, alpha, stats.edgeSemi).matte;
  const out: ThresholdResult = { removed: 0, kept: 0, recoloured: 0, matte };
  const f: [number, number, number] = [0, 0, 0];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const a = alpha[p]!;
      if (a === 0 || a === 255) continue;
      const i = p * 4;
      if (a < threshold) {
        data[i] = 0;
        data[i + 1] = 0;
        data[i + 2] = 0;
        data[i + 3] = 0;
        out.removed++;
        continue;
      }
      out.kept++;
      data[i + 3] = 255;
      if (glow) continue;
      // Step 1: un-mix the matte.
      f[0] = data[i]!;
      f[1] = data[i + 1]!;
      f[2] = data[i + 2]!;
      if (matte) {
        const al = a / 255;
        for (let c = 0; c < 3; c++) f[c] = clamp((f[c]! - (1 - al) * matte[c]!) / al);
      }
      // Step 2: snap to the closest opaque art colour within 2 px (3x3 first, then 5x5).
      let best = Infinity;
      let bj = -1;
      for (let rad = 1; rad <= 2 && bj < 0; rad++) {
        const y0 = Math.max(0, y - rad);
        const y1 = Math.min(h - 1, y + rad);
        const x0 = Math.max(0, x - rad);
        const x1 = Math.min(w - 1, x + rad);
        for (let yy = y0; yy <= y1; yy++) {
          for (let xx = x0; xx <= x1; xx++) {
            const q = yy * w + xx;
            if (alpha[q] !== 255) continue;
            const j = q * 4;
            const dr = data[j]! - f[0];
            const dg = data[j + 1]! - f[1];
            const db = data[j + 2]! - f[2];
            const d = dr * dr + dg * dg + db * db;
            if (d < best) {
              best = d;
              bj = j;
            }
          }
        }
      }
      const nr = bj >= 0 ? data[bj]! : Math.round(f[0]);
      const ng = bj >= 0 ? data[bj + 1]! : Math.round(f[1]);
      const nb = bj >= 0 ? data[bj + 2]! : Math.round(f[2]);
      if (nr !== data[i] || ng !== data[i + 1] || nb !== data[i + 2]) out.recoloured++;
      data[i] = nr;
      data[i + 1] = ng;
      data[i + 2] = nb;
    }
  }
  // opaque pixels next to the new edge that kept the matte (a generous cut-out) take the art colour too
  if (matte) out.recoloured += decontaminateBand(r, matte);
  return out;
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}
