// Despeckle: removes isolated noise by size, in alpha and in colour, without touching details larger
// than a speck (1/100 in at the print size, see scan/specks.ts):
//  1. alpha specks: visible components (alpha >= 1, 8-connected) smaller than the limit are erased;
//  2. pinholes: fully transparent components inside the art (not touching the border) smaller than the
//     limit are filled from the pixel to their left;
//  3. colour specks: a single opaque pixel whose colour differs from all 8 opaque neighbours (RGB distance
//     > 64) while those neighbours agree with each other (within 24 of their mean) takes their mean.
import { forEachRunOf, labelRuns } from '../raster/components.js';
import type { Raster } from '../raster/types.js';
import { findSpecks, speckAreaLimit } from '../scan/specks.js';

export interface DespeckleResult {
  specksRemoved: number;
  pinholesFilled: number;
  colourSpecksFixed: number;
}

const COLOUR_OFF = 64;
const COLOUR_AGREE = 24;

/**
 * Despeckle in place at a print resolution of `dpi`.
 * @example despeckle(raster, 300).specksRemoved
 */
export function despeckle(r: Raster, dpi: number): DespeckleResult {
  const { data } = r;
  const specks = findSpecks(r, dpi);
  forEachRunOf(specks.components, (c) => specks.isSpeck[c] === 1, (s, e) => data.fill(0, s * 4, e * 4));

  const limit = speckAreaLimit(dpi);
  const holes = labelRuns({ data, width: r.width, height: r.height, stride: 4, offset: 3, min: 1, invert: true }, 4);
  let pinholes = 0;
  const isHole = (c: number): boolean => !holes.touchesBorder[c] && holes.area[c]! < limit;
  for (let c = 0; c < holes.count; c++) if (isHole(c)) pinholes++;
  forEachRunOf(holes, isHole, (s, e) => {
    // s is never at the start of a row: the hole does not touch the border
    const src = (s - 1) * 4;
    for (let p = s; p < e; p++) data.copyWithin(p * 4, src, src + 4);
  });

  return { specksRemoved: specks.count, pinholesFilled: pinholes, colourSpecksFixed: fixColourSpecks(r) };
}

function fixColourSpecks(r: Raster): number {
  const { width: w, height: h, data } = r;
  let fixed = 0;
  const offs = [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1].map((o) => o * 4);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = (y * w + x) * 4;
      if (data[i + 3] !== 255) continue;
      const cr = data[i]!;
      const cg = data[i + 1]!;
      const cb = data[i + 2]!;
      // quick reject: the right neighbour has nearly the same colour
      const q = i + 4;
      if (Math.abs(data[q]! - cr) + Math.abs(data[q + 1]! - cg) + Math.abs(data[q + 2]! - cb) < COLOUR_OFF) continue;
      let sr = 0;
      let sg = 0;
      let sb = 0;
      let ok = true;
      for (const o of offs) {
        const j = i + o;
        if (data[j + 3] !== 255) { ok = false; break; }
        const dr = data[j]! - cr;
        const dg = data[j + 1]! - cg;
        const db = data[j + 2]! - cb;
        if (dr * dr + dg * dg + db * db <= COLOUR_OFF * COLOUR_OFF) { ok = false; break; }
        sr += data[j]!;
        sg += data[j + 1]!;
        sb += data[j + 2]!;
      }
      if (!ok) continue;
      sr /= 8;
      sg /= 8;
      sb /= 8;
      for (const o of offs) {
        const j = i + o;
        const dr = data[j]! - sr;
        const dg = data[j + 1]! - sg;
        const db = data[j + 2]! - sb;
        if (dr * dr + dg * dg + db * db > COLOUR_AGREE * COLOUR_AGREE) { ok = false; break; }
      }
      if (!ok) continue;
      data[i] = Math.round(sr);
      data[i + 1] = Math.round(sg);
      data[i + 2] = Math.round(sb);
      fixed++;
    }
  }
  return fixed;
}
