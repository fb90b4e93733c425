// Where a design's pixels land on the film: the map from the image's unit square to sheet inches for a
// placement (top-left of its turned box, clockwise turn). The PDF's `cm` matrices and the PNG renderer both
// use it, so the two outputs and the manifest agree. The image a placement draws is its design cut to its ink
// (trim.ts), and its box is that art's box: `turnedRect` finds it inside the design file's turned box.
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
  /**
   * Top-left of the placed art's box from the sheet's top-left corner, inches: the design cut to its ink (its
   * transparent edges are not placed), after the turn. Always on the sheet, inside the margins.
   */
  xIn: number;
  yIn: number;
  /** The placed box's size (after the turn), inches: the design's ink box at the item's print size. */
  widthIn: number;
  heightIn: number;
  /** Clockwise turn on the film, degrees. */
  rotation: Turn;
}

/** A rectangle in inches: left, top, width, height. */
export interface InchRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Where `rect` (inches from the top-left of a `w` x `h` in image, unturned) lies in the image's box turned by
 * `turn` clockwise (inches from the turned box's top-left, its size turned). The whole image gives
 * { 0, 0, w, h } (or h, w) exactly.
 * @example turnedRect(90, 4, 2, { x: 1, y: 0.5, w: 2, h: 1 }) // { x: 0.5, y: 1, w: 1, h: 2 }
 */
export function turnedRect(turn: Turn, w: number, h: number, rect: InchRect): InchRect {
  const { x, y, w: rw, h: rh } = rect;
  switch (turn) {
    case 0: return { x, y, w: rw, h: rh };
    case 90: return { x: h - y - rh, y: x, w: rh, h: rw };
    case 180: return { x: w - x - rw, y: h - y - rh, w: rw, h: rh };
    default: return { x: y, y: w - x - rw, w: rh, h: rw };
  }
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
