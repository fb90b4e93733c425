// Decontamination of the opaque band along a cut edge: when art was anti-aliased against a matte (e.g.
// white) and then cut out generously, the outermost opaque pixels still carry the matte mixed into the
// art colour (a light rim that prints as an outline). After the alpha threshold, every opaque pixel within
// BAND_PX of transparency whose colour lies between the matte M and an art colour F found deeper inside
// (within REACH_PX) is given F: c ≈ F + t (M − F) with t > MIN_MIX, off that segment by at most
// MAX_OFF. Art whose own colour is near the matte (|F − M| <= MIN_CONTRAST) is left alone, and so is a
// pixel with no deeper art next to it.
import type { Raster } from '../raster/types.js';

/** Opaque pixels this close to transparency (chessboard px) can carry the matte. */
export const BAND_PX = 3;
/** How far inward the art colour is looked for, px. */
const REACH_PX = 5;
/** A pixel must be at least this far toward the matte to be recoloured. */
const MIN_MIX = 0.04;
/** Largest RGB distance of a pixel from the segment F-M. */
const MAX_OFF = 30;
/** Art colours closer than this to the matte are not decontaminated. */
const MIN_CONTRAST = 60;

/**
 * Recolour matte-contaminated opaque pixels next to transparency, in place; returns how many changed.
 * Expects binary alpha (0 or 255), as after the threshold.
 * @example decontaminateBand(raster, [255, 255, 255])
 */
export function decontaminateBand(r: Raster, matte: readonly [number, number, number]): number {
  const { width: w, height: h, data } = r;
  const depth = opaqueDepth(r, BAND_PX + REACH_PX);
  const [mr, mg, mb] = matte;
  const out: Array<[number, number, number, number]> = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const d = depth[p]!;
      if (d === 0 || d > BAND_PX) continue;
      const i = p * 4;
      const cr = data[i]!;
      const cg = data[i + 1]!;
      const cb = data[i + 2]!;
      let best = Infinity;
      let bj = -1;
      for (let yy = Math.max(0, y - REACH_PX); yy <= Math.min(h - 1, y + REACH_PX); yy++) {
        for (let xx = Math.max(0, x - REACH_PX); xx <= Math.min(w - 1, x + REACH_PX); xx++) {
          const q = yy * w + xx;
          if (depth[q]! <= d) continue;
          const j = q * 4;
          const fr = data[j]!;
          const fg = data[j + 1]!;
          const fb = data[j + 2]!;
          const dr = mr - fr;
          const dg = mg - fg;
          const db = mb - fb;
          const len2 = dr * dr + dg * dg + db * db;
          if (len2 <= MIN_CONTRAST * MIN_CONTRAST) continue;
          const t = ((cr - fr) * dr + (cg - fg) * dg + (cb - fb) * db) / len2;
          if (t < MIN_MIX || t > 1.1) continue;
          const er = fr + t * dr - cr;
          const eg = fg + t * dg - cg;
          const eb = fb + t * db - cb;
          // prefer a close fit, then deeper (cleaner) art
          const score = er * er + eg * eg + eb * eb - 4 * depth[q]!;
          if (er * er + eg * eg + eb * eb <= MAX_OFF * MAX_OFF && score < best) {
            best = score;
            bj = j;
          }
        }
      }
      if (bj >= 0) out.push([i, data[bj]!, data[bj + 1]!, data[bj + 2]!]);
    }
  }
  // write after the scan so recoloured pixels never serve as art for their neighbours
  for (const [i, rr, gg, bb] of out) {
    data[i] = rr;
    data[i + 1] = gg;
    data[i + 2] = bb;
  }
  return out.length;
}

/** Chessboard distance of each opaque pixel to the nearest non-opaque pixel or the canvas edge, capped at `cap`; 0 for non-opaque pixels. */
export function opaqueDepth(r: Raster, cap: number): Uint8Array {
  const { width: w, height: h, data } = r;
  const d = new Uint8Array(w * h);
  for (let p = 0, i = 3; p < w * h; p++, i += 4) d[p] = data[i] === 255 ? cap : 0;
  // two chamfer passes (forward, backward) with unit steps in all 8 directions
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      if (!d[p]) continue;
      let v = d[p]!;
      if (x === 0 || y === 0) v = 1;
      else v = Math.min(v, d[p - 1]! + 1, d[p - w]! + 1, d[p - w - 1]! + 1, x < w - 1 ? d[p - w + 1]! + 1 : 1);
      d[p] = v;
    }
  }
  for (let y = h - 1; y >= 0; y--) {
    for (let x = w - 1; x >= 0; x--) {
      const p = y * w + x;
      if (!d[p]) continue;
      let v = d[p]!;
      if (x === w - 1 || y === h - 1) v = 1;
      else v = Math.min(v, d[p + 1]! + 1, d[p + w]! + 1, d[p + w + 1]! + 1, x > 0 ? d[p + w - 1]! + 1 : 1);
      d[p] = v;
    }
  }
  return d;
}
