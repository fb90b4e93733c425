// Printability checks on the plates, by the rules DTF shops give for white: a white line narrower than 1 pt
// (0.014 in) does not hold on the film, and a knocked-out gap narrower than 2 pt fills in with ink and
// adhesive. A part of a shape is "narrower than m" when no disc of diameter m inside the shape covers it
// (a morphological opening, done with two exact distance transforms, so the verdict does not depend on where
// the shape sits). Square corners are also uncovered by the disc; regions smaller than m x m are not reported,
// so only real lines and slivers are.
import { labelRuns } from '../raster/components.js';
import { squaredDistance } from '../raster/distance.js';
import { KNOCKED, NO_INK, type PlateSet } from './plates.js';

/** Narrowest white line that prints, in points (0.014 in). */
export const MIN_WHITE_LINE_PT = 1;
/** Narrowest knocked-out gap that stays open, in points. */
export const MIN_KNOCKOUT_GAP_PT = 2;
/** Regions reported per warning (largest first). */
const MAX_BOXES = 10;

/** A pixel box, in the art's pixels. */
export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where a check failed: how many separate regions, their pixels, and the largest regions' boxes. */
export interface NarrowRegions {
  count: number;
  pixels: number;
  boxes: PixelBox[];
}

/**
 * Pixels of `mask` in parts narrower than `minPx` (diameter), grouped into regions of at least minPx x minPx
 * pixels. `outsideIsMask`: whether beyond the image counts as part of the shape.
 */
export function narrowRegions(width: number, height: number, mask: Uint8Array, minPx: number, outsideIsMask: boolean, count?: Uint8Array): NarrowRegions {
  const n = width * height;
  // distance from each pixel to the nearest pixel outside the shape; a part of width m holds a pixel at
  // distance about (m + 1) / 2 from the outside (pixel centres)
  const outside = new Uint8Array(n);
  for (let i = 0; i < n; i++) outside[i] = mask[i] ? 0 : 1;
  // both transforms are only compared with r2, so neither needs distances beyond it (limit), and the
  // second reuses the first's array
  const r = (minPx + 1) / 2;
  const r2 = r * r;
  const dOut = squaredDistance(width, height, outside, !outsideIsMask, r2);
  const core = outside;
  let anyCore = false;
  for (let i = 0; i < n; i++) {
    const c = mask[i] && dOut[i]! >= r2 ? 1 : 0;
    core[i] = c;
    if (c) anyCore = true;
  }
  // covered: within r of a core pixel (inside a disc of diameter >= minPx that fits in the shape)
  const dCore = anyCore ? squaredDistance(width, height, core, false, r2, dOut) : null;
  const narrow = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!mask[i] || (count && !count[i])) continue;
    if (!dCore || dCore[i]! > r2) narrow[i] = 1;
  }
  const cc = labelRuns({ data: narrow, width, height }, 8);
  const minArea = Math.max(2, Math.ceil(minPx) * Math.ceil(minPx));
  const kept: number[] = [];
  let pixels = 0;
  for (let c = 0; c < cc.count; c++) {
    if (cc.area[c]! < minArea) continue;
    kept.push(c);
    pixels += cc.area[c]!;
  }
  kept.sort((a, b) => cc.area[b]! - cc.area[a]!);
  const boxes = kept.slice(0, MAX_BOXES).map((c) => ({ x: cc.minX[c]!, y: cc.minY[c]!, width: cc.maxX[c]! - cc.minX[c]!, height: cc.maxY[c]! - cc.minY[c]! }));
  return { count: kept.length, pixels, boxes };
}

/** White plate parts narrower than MIN_WHITE_LINE_PT (after the choke). */
export function thinWhite(p: PlateSet): NarrowRegions {
  const mask = new Uint8Array(p.white.length);
  for (let i = 0; i < mask.length; i++) mask[i] = p.white[i]! > 0 ? 1 : 0;
  return narrowRegions(p.width, p.height, mask, (MIN_WHITE_LINE_PT / 72) * p.dpi, false);
}

/**
 * Knocked-out pixels in gaps narrower than MIN_KNOCKOUT_GAP_PT: the gap is everything without ink (knocked out
 * or transparent), so a knocked-out outline beside transparent background is not a gap; only knocked-out
 * pixels are reported (transparent slivers are the art's own, which scan reports).
 */
export function narrowKnockouts(p: PlateSet): NarrowRegions {
  const n = p.classes.length;
  const gap = new Uint8Array(n);
  const knocked = new Uint8Array(n);
  let any = false;
  for (let i = 0; i < n; i++) {
    const c = p.classes[i]!;
    if (c === NO_INK || c === KNOCKED) gap[i] = 1;
    if (c === KNOCKED) { knocked[i] = 1; any = true; }
  }
  if (!any) return { count: 0, pixels: 0, boxes: [] };
  // beyond the image there is no ink either: a gap at the border opens onto the garment
  return narrowRegions(p.width, p.height, gap, (MIN_KNOCKOUT_GAP_PT / 72) * p.dpi, true, knocked);
}
