// Where a design's pixels land on the film: the map from the image's unit square to sheet inches for a
// placement (top-left of its turned box, clockwise turn). The PDF's `cm` matrices and the PNG renderer both
// use it, so the two outputs and the manifest agree.
import type { Turn } from './shapes.js';

/** One copy on a sheet, as the manifest gives it. */
export interface GangPlacement {
  /** Index in `items`. */
  item: number;
  /** Copy number within the item, from 0. */
  copy: number;
  /** Design file index. */
  design: number;
  /** Sheet index, from 0. */
  sheet: number;
  /** Top-left of the placed (turned) art box from the sheet's top-left corner, inches. */
  xIn: number;
  yIn: number;
  /** The placed box's size (after the turn), inches. */
  widthIn: number;
  heightIn: number;
  /** Clockwise turn on the film, degrees. */
  rotation: Turn;
}

/**
 * Sheet position (inches, y down) of image point (s, t): s across the image from its left, t down from its
 * top, both 0..1. `w`, `h`: the art's unturned print size.
 */
export function imageToSheet(p: GangPlacement, s: number, t: number): [number, number] {
  const w = p.rotation === 90 || p.rotation === 270 ? p.heightIn : p.widthIn;
  const h = p.rotation === 90 || p.rotation === 270 ? p.widthIn : p.heightIn;
  switch (p.rotation) {
    case 0: return [p.xIn + s * w, p.yIn + t * h];
    case 90: return [p.xIn + (1 - t) * h, p.yIn + s * w];
    case 180: return [p.xIn + (1 - s) * w, p.yIn + (1 - t) * h];
    default: return [p.xIn + t * h, p.yIn + (1 - s) * w];
  }
}

/** The inverse: image (s, t) of sheet point (x, y) inches (may fall outside 0..1). */
export function sheetToImage(p: GangPlacement, x: number, y: number): [number, number] {
  const w = p.rotation === 90 || p.rotation === 270 ? p.heightIn : p.widthIn;
  const h = p.rotation === 90 || p.rotation === 270 ? p.widthIn : p.heightIn;
  const u = x - p.xIn;
  const v = y - p.yIn;
  switch (p.rotation) {
    case 0: return [u / w, v / h];
    case 90: return [v / w, 1 - u / h];
    case 180: return [1 - u / w, 1 - v / h];
    default: return [1 - v / w, u / h];
  }
}
