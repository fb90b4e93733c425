// Specks: stray bits of ink too small to be a detail and far from everything else, judged in physical
// units at the print resolution so scan (speck_count) and fix (fix_despeckle) agree exactly:
//  - small: the component (visible pixels, alpha >= 1, 8-connected) fits in a square SPECK_MAX_MM
//    (0.5 mm) across, i.e. 6x6 px at 300 DPI (at least 1 px);
//  - isolated: no other visible pixel within ISOLATION_MM (2 mm, rounded to whole px; Euclidean distance
//    from its bounding box) so the dot of an i, serifs, a halftone screen's dots (neighbours one cell away)
//    and texture stay. The same speck at the same distance from other ink gets the same verdict anywhere.
// On an opaque image with a solid background (e.g. a JPEG on white) the components are those of the
// pixels that differ from the background colour (RGB distance >= 40, well above JPEG noise). An image
// with a single component has no specks. The same test finds pinholes (isolated small transparent holes).
import { labelRuns, type RunComponents } from '../raster/components.js';
import type { Raster } from '../raster/types.js';

/** RGB distance from a solid background colour that makes a pixel foreground. */
export const FOREGROUND_DISTANCE = 40;
/** Largest speck, mm across (bounding box side). */
export const SPECK_MAX_MM = 0.5;
/** A speck has no other visible pixel this close, mm. */
export const ISOLATION_MM = 2;

/** 255 where a pixel differs from the background colour by >= FOREGROUND_DISTANCE, else 0. */
export function foregroundPlane(r: Raster, bg: readonly [number, number, number]): Uint8Array {
  const n = r.width * r.height;
  const out = new Uint8Array(n);
  const d = r.data;
  const t2 = FOREGROUND_DISTANCE * FOREGROUND_DISTANCE;
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const er = d[i]! - bg[0];
    const eg = d[i + 1]! - bg[1];
    const eb = d[i + 2]! - bg[2];
    if (er * er + eg * eg + eb * eb >= t2) out[p] = 255;
  }
  return out;
}

/** Largest speck side in px at a print resolution: 0.5 mm rounded to whole pixels, at least 1. */
export function speckMaxPx(dpi: number): number {
  return Math.max(1, Math.ceil((SPECK_MAX_MM * dpi) / 25.4 - 0.05));
}

/** Isolation distance in px at a print resolution (at least 2). */
export function isolationPx(dpi: number): number {
  return Math.max(2, Math.round((ISOLATION_MM * dpi) / 25.4));
}

export interface SpeckReport {
  /** Components of visible pixels. */
  components: RunComponents;
  /** Which components are specks (1) or not (0). */
  isSpeck: Uint8Array;
  count: number;
  /** Largest speck side used, px. */
  maxPx: number;
  /** Isolation distance used, px. */
  isolationPx: number;
}

/**
 * Find specks. `plane`: the mask to judge (default: alpha >= 1 of the raster).
 * @example findSpecks(raster, 300).count
 */
export function findSpecks(r: Raster, dpi: number, plane?: Uint8Array): SpeckReport {
  const components = plane
    ? labelRuns({ data: plane, width: r.width, height: r.height, min: 1 }, 8)
    : labelRuns({ data: r.data, width: r.width, height: r.height, stride: 4, offset: 3, min: 1 }, 8);
  const { isSpeck, count } = smallIsolated(components, dpi);
  return { components, isSpeck, count, maxPx: speckMaxPx(dpi), isolationPx: isolationPx(dpi) };
}

/**
 * Which components of `cc` are small and isolated at `dpi`. Isolated means exactly: no pixel of another
 * component within `isolationPx(dpi)` px (Euclidean, centre to centre) of the component's bounding box. The
 * verdict depends only on the component and where the other ink sits relative to it, never on where the pair
 * sits in the image (issue 30: a tiled count reached 24..26 px out depending on the tile grid, so equal specks
 * 26 px apart were kept or removed by position).
 */
export function smallIsolated(cc: RunComponents, dpi: number): { isSpeck: Uint8Array; count: number } {
  const isSpeck = new Uint8Array(cc.count);
  if (cc.count <= 1) return { isSpeck, count: 0 };
  const max = speckMaxPx(dpi);
  let anySmall = false;
  for (let c = 0; c < cc.count && !anySmall; c++) if (cc.maxX[c]! - cc.minX[c]! <= max && cc.maxY[c]! - cc.minY[c]! <= max) anySmall = true;
  if (!anySmall) return { isSpeck, count: 0 };
  const R = isolationPx(dpi);
  // reach[d]: how far out along a row the disc of radius R reaches d rows above or below the box
  const reach = new Int32Array(R + 1);
  for (let d = 0; d <= R; d++) {
    let r = Math.floor(Math.sqrt(R * R - d * d));
    while (r * r + d * d > R * R) r--;
    while ((r + 1) * (r + 1) + d * d <= R * R) r++;
    reach[d] = r;
  }
  // labelRuns emits runs row by row, left to right: rowStart[y]..rowStart[y + 1] are row y's runs
  const rowStart = new Int32Array(cc.height + 1);
  for (let i = 0; i < cc.runCount; i++) rowStart[cc.y[i]! + 1]!++;
  for (let y = 0; y < cc.height; y++) rowStart[y + 1]! += rowStart[y]!;
  let count = 0;
  for (let c = 0; c < cc.count; c++) {
    if (cc.maxX[c]! - cc.minX[c]! > max || cc.maxY[c]! - cc.minY[c]! > max) continue;
    if (hasInkNear(cc, rowStart, reach, c)) continue;
    isSpeck[c] = 1;
    count++;
  }
  return { isSpeck, count };
}

/** Whether a run of another component than `c` has a pixel within the disc radius of c's bounding box. */
function hasInkNear(cc: RunComponents, rowStart: Int32Array, reach: Int32Array, c: number): boolean {
  const R = reach.length - 1;
  const x0 = cc.minX[c]!;
  const x1 = cc.maxX[c]! - 1;
  const y0 = cc.minY[c]!;
  const y1 = cc.maxY[c]! - 1;
  // rows nearest the box first: ink close by ends the search soonest
  for (let d = 0; d <= R; d++) {
    const lo = x0 - reach[d]!;
    const hi = x1 + reach[d]!;
    if (d === 0) {
      for (let y = y0; y <= y1; y++) if (rowHasOther(cc, rowStart, y, lo, hi, c)) return true;
      continue;
    }
    if (y0 - d >= 0 && rowHasOther(cc, rowStart, y0 - d, lo, hi, c)) return true;
    if (y1 + d < cc.height && rowHasOther(cc, rowStart, y1 + d, lo, hi, c)) return true;
  }
  return false;
}

/** Whether row y has a run of a component other than `c` overlapping columns lo..hi (inclusive). */
function rowHasOther(cc: RunComponents, rowStart: Int32Array, y: number, lo: number, hi: number, c: number): boolean {
  let a = rowStart[y]!;
  let b = rowStart[y + 1]!;
  // first run of the row ending after lo (x1 is exclusive)
  while (a < b) {
    const m = (a + b) >>> 1;
    if (cc.x1[m]! <= lo) a = m + 1;
    else b = m;
  }
  for (let i = a, e = rowStart[y + 1]!; i < e && cc.x0[i]! <= hi; i++) if (cc.runLabel[i] !== c) return true;
  return false;
}
