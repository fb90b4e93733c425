// Despeckle: removes isolated noise by physical size, in alpha and in colour, exactly what scan counts
// as specks (scan/specks.ts: at most 0.5 mm across and no other ink within about 2 mm at the print size):
//  1. alpha specks: such visible components (alpha >= 1, 8-connected) are erased; on an opaque image with
//     a solid background, components that differ from the background colour are used instead and
//     painted over with the background colour (with their 1-px halo of compression noise);
//  2. pinholes: fully transparent components inside the art (not touching the border) that are as small
//     and as isolated from other transparency are filled from the pixel to their left (the holes of a
//     halftone screen are close together and stay);
//  3. colour specks: a single opaque pixel whose colour differs from all 8 opaque neighbours (RGB distance
//     > 64) while those neighbours agree with each other (within 24 of their mean) takes their mean.
import { forEachRunOf, labelRuns } from '../raster/components.js';
import type { Raster } from '../raster/types.js';
import { findSpecks, foregroundPlane, smallIsolated } from '../scan/specks.js';
import { detectBackground } from '../scan/background.js';
import { alphaPlane } from '../raster/alpha-plane.js';

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
  const { data, width: w, height: h } = r;
  const plane = alphaPlane(r);
  let transparent = 0;
  for (let p = 0; p < plane.length; p++) if (plane[p] === 0) transparent++;
  const bg = transparent / plane.length < 0.01 ? detectBackground(r, transparent / plane.length) : null;
  let specksRemoved: number;
  if (bg && bg.kind === 'solid' && bg.rgb) {
    const fg = foregroundPlane(r, bg.rgb);
    const specks = findSpecks(r, dpi, fg);
    const [br, bgc, bb] = bg.rgb;
    const cc = specks.components;
    for (let i = 0; i < cc.runCount; i++) {
      if (!specks.isSpeck[cc.runLabel[i]!]) continue;
      const y = cc.y[i]!;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
        for (let x = Math.max(0, cc.x0[i]! - 1); x <= Math.min(w - 1, cc.x1[i]!); x++) {
          const p = yy * w + x;
          if (yy !== y && fg[p] === 255) continue; // another component's pixel (never this speck's ring)
          data[p * 4] = br;
          data[p * 4 + 1] = bgc;
          data[p * 4 + 2] = bb;
        }
      }
    }
    specksRemoved = specks.count;
  } else {
    const specks = findSpecks(r, dpi, plane);
    forEachRunOf(specks.components, (c) => specks.isSpeck[c] === 1, (s, e) => data.fill(0, s * 4, e * 4));
    specksRemoved = specks.count;
  }

  // alpha after speck removal (specks were erased in `data`, not in `plane`)
  const after = specksRemoved > 0 ? alphaPlane(r) : plane;
  const holes = labelRuns({ data: after, width: r.width, height: r.height, min: 1, invert: true }, 4);
  const small = smallIsolated(holes, dpi).isSpeck;
  let pinholes = 0;
  const isHole = (c: number): boolean => !holes.touchesBorder[c] && small[c] === 1;
  for (let c = 0; c < holes.count; c++) if (isHole(c)) pinholes++;
  forEachRunOf(holes, isHole, (s, e) => {
    // s is never at the start of a row: the hole does not touch the border
    const src = (s - 1) * 4;
    for (let p = s; p < e; p++) data.copyWithin(p * 4, src, src + 4);
  });

  return { specksRemoved, pinholesFilled: pinholes, colourSpecksFixed: fixColourSpecks(r) };
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
