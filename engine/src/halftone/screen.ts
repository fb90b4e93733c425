// AM halftone screen: semi-transparent pixels become fully opaque round dots on a rotated square grid.
// Each screen cell is `cell` px wide (cell = output DPI / LPI) and the grid is rotated by `angle` degrees.
// A pixel at distance d (in cell units) from its cell centre is switched on when alpha/255 > A(d), where
// A(d) is the area of the disc of radius d clipped to the unit cell. Thresholding a round spot function
// by its own area makes dot area proportional to alpha (exact in the continuous limit): dots are round
// discs up to 78.5 % coverage, then merge at the cell corners. Output alpha is only ever 0 or 255.
// Alpha below MIN_DOT_ALPHA (3 %) prints no dot: dots that small do not hold on the film.
// The anti-aliasing ring of solid art (semi-transparent pixels with a fully opaque 8-neighbour) is
// thresholded at 50 % instead of screened, so the outline of solid shapes stays smooth, not dotted.
import { alphaPlane } from '../raster/alpha-plane.js';
import type { Raster } from '../raster/types.js';

export interface HalftoneParams {
  /** Lines per inch (dot frequency), 15..65 in the API. */
  lpi: number;
  /** Output resolution in dots per inch (width px / print width in inches; 300 when unknown). */
  dpi: number;
  /** Screen angle in degrees; default 45 (the least visible angle for a single screen). */
  angle?: number;
  /** Threshold at 50 % (not screen) the 1-px anti-aliased rim touching opaque pixels; default true. */
  keepEdges?: boolean;
}

export interface HalftoneResult {
  /** Screen cell size in pixels (dpi / lpi). */
  cellPx: number;
  angle: number;
  /** Semi-transparent pixels converted (now 0 or 255). */
  converted: number;
  /** Of those, how many became dot pixels (opaque). */
  dotPixels: number;
  /** Rim pixels next to opaque art that were thresholded at 50 % instead of screened. */
  edgePixels: number;
}

/** Alpha below this never makes a dot (about 3 % coverage; too small to print). */
export const MIN_DOT_ALPHA = 8;

/** Default screen angle in degrees. */
export const DEFAULT_SCREEN_ANGLE = 45;

const LUT_SIZE = 4096;
/** Threshold (in alpha units 0..255) by squared distance from the cell centre, d^2 in [0, 0.5]. */
const AREA_LUT = buildAreaLut();

/** Area of a disc of radius r centred in the unit square, clipped to the square. */
export function clippedDiscArea(r: number): number {
  if (r <= 0) return 0;
  if (r <= 0.5) return Math.PI * r * r;
  if (r >= Math.SQRT1_2) return 1;
  // subtract the four circular segments that stick out of the square
  const seg = r * r * Math.acos(0.5 / r) - 0.5 * Math.sqrt(r * r - 0.25);
  return Math.PI * r * r - 4 * seg;
}

function buildAreaLut(): Float32Array {
  const lut = new Float32Array(LUT_SIZE + 1);
  for (let k = 0; k <= LUT_SIZE; k++) lut[k] = 255 * clippedDiscArea(Math.sqrt((k / LUT_SIZE) * 0.5));
  return lut;
}

/**
 * Convert the semi-transparent pixels of `r` to halftone dots, in place. Opaque and transparent pixels
 * are unchanged; dot pixels keep their own colour at alpha 255, the rest become transparent (RGB 0).
 * @example halftoneRaster(raster, { lpi: 35, dpi: 300 }); // 8.57 px cells at 45 degrees
 */
export function halftoneRaster(r: Raster, p: HalftoneParams): HalftoneResult {
  const angle = p.angle ?? DEFAULT_SCREEN_ANGLE;
  const cell = p.dpi / p.lpi;
  const { width: w, height: h, data } = r;
  const th = (angle * Math.PI) / 180;
  const c = Math.cos(th) / cell;
  const s = Math.sin(th) / cell;
  const scale = LUT_SIZE / 0.5;
  let converted = 0;
  let dots = 0;
  let edges = 0;
  // original alpha: pixels already turned into dots must not count as opaque art
  const A = p.keepEdges === false ? null : alphaPlane(r);
  for (let y = 0; y < h; y++) {
    const py = y + 0.5;
    // screen coordinates of the pixel centre: u = (x c + y s), v = (-x s + y c), in cells
    let u = 0.5 * c + py * s;
    let v = -0.5 * s + py * c;
    let i = y * w * 4;
    for (let x = 0; x < w; x++, i += 4, u += c, v -= s) {
      const a = data[i + 3]!;
      if (a === 0 || a === 255) continue;
      converted++;
      let t: number;
      const q = y * w + x;
      if (A && touchesOpaque(A, w, h, x, y, q)) {
        t = 127;
        edges++;
      } else {
        const fu = u - Math.floor(u) - 0.5;
        const fv = v - Math.floor(v) - 0.5;
        const d2 = fu * fu + fv * fv;
        t = AREA_LUT[Math.min(LUT_SIZE, Math.round(d2 * scale))]!;
      }
      if (a > t && a >= MIN_DOT_ALPHA) {
        data[i + 3] = 255;
        dots++;
      } else {
        data[i] = 0;
        data[i + 1] = 0;
        data[i + 2] = 0;
        data[i + 3] = 0;
      }
    }
  }
  return { cellPx: cell, angle, converted, dotPixels: dots, edgePixels: edges };
}

/** Does pixel q = (x, y) have a fully opaque 8-neighbour? */
function touchesOpaque(A: Uint8Array, w: number, h: number, x: number, y: number, q: number): boolean {
  const x0 = x > 0 ? -1 : 0;
  const x1 = x < w - 1 ? 1 : 0;
  for (let dy = y > 0 ? -1 : 0, y1 = y < h - 1 ? 1 : 0; dy <= y1; dy++) {
    const row = q + dy * w;
    for (let dx = x0; dx <= x1; dx++) if (A[row + dx] === 255) return true;
  }
  return false;
}

/** Output DPI used for halftone cells: width px / print width, or 300 when no print width is given. */
export function halftoneDpi(widthPx: number, printWidthInches: number | undefined): number {
  return printWidthInches ? widthPx / printWidthInches : 300;
}
