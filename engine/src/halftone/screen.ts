// AM halftone screen in physical units: semi-transparent pixels become fully opaque round dots on a
// square grid rotated by `angle` (45°), one dot per cell of `dpi / lpi` px. Output alpha is 0 or 255.
//  - Ink is kept per cell: a cell's dot gets as many pixels as the ink of its semi-transparent pixels
//    (Σ alpha / 255), so the coverage follows alpha exactly, in glows and fades alike.
//  - Dots are drawn from fixed round pixel shapes (halftone/dots.ts), snapped to a pixel centre or corner,
//    so small dots are the same round dot in every cell (no crosses, dashes or 1-px slivers). A cell's
//    size is chosen between the two round sizes around its ink by an ordered dither (mean kept). Large
//    dots fill their cell and merge at the corners (the holes between them stay round).
//  - Minimum printable dot: MIN_DOT_MM (0.25 mm) across, at least 2 px, i.e. a 3x3 px dot at 300 DPI.
//    A cell with less ink than that gets either the minimum dot or none (the dither decides, in
//    proportion to its ink), so highlights stay at the right mean coverage with dots that hold on film.
//  - Cells below MIN_CELL_PX (4 px) cannot hold round dots: the screen is coarsened to 4 px cells and a
//    warning says so (e.g. 55 lpi at 75 DPI would be a 1.36 px checkerboard).
//  - Alpha below MIN_DOT_ALPHA (3 %) carries no ink. The 1-px anti-aliased rim of solid art (a
//    semi-transparent pixel with a fully opaque 8-neighbour) is cut at 50 % instead of screened, so solid
//    shapes keep smooth outlines.
import { alphaPlane } from '../raster/alpha-plane.js';
import type { Raster } from '../raster/types.js';
import { cellThreshold, dotShapes, type DotOrder, type RoundSize } from './dots.js';

export interface HalftoneParams {
  /** Lines per inch (dot frequency), 15..65 in the API. */
  lpi: number;
  /** Output resolution in dots per inch (width px / print width in inches; 300 when unknown). */
  dpi: number;
  /** Screen angle in degrees; default 45 (the least visible angle for a single screen). */
  angle?: number;
  /** Threshold at 50 % (not screen) the 1-px anti-aliased rim touching opaque pixels; default true. */
  keepEdges?: boolean;
  /** Smallest dot diameter that holds on film, mm; default MIN_DOT_MM. */
  minDotMm?: number;
}

/** Something the caller should know about the result (stable code + one sentence). */
export interface HalftoneWarning {
  code: 'halftone_cell_too_small';
  message: string;
}

export interface HalftoneResult {
  /** Screen cell size in pixels actually used (dpi / lpi, at least MIN_CELL_PX). */
  cellPx: number;
  /** Screen frequency actually used (lower than asked when the cell was too small). */
  lpi: number;
  angle: number;
  /** Pixels in the smallest dot drawn (the minimum printable dot at this DPI). */
  minDotPx: number;
  /** Semi-transparent pixels converted (now 0 or 255). */
  converted: number;
  /** Of those, how many became dot pixels (opaque). */
  dotPixels: number;
  /** Dots drawn. */
  dots: number;
  /** Rim pixels next to opaque art that were thresholded at 50 % instead of screened. */
  edgePixels: number;
  warnings: HalftoneWarning[];
}

/** Alpha below this carries no ink (about 3 % coverage). */
export const MIN_DOT_ALPHA = 8;
/** Smallest printable dot diameter in mm (a 3 px dot at 300 DPI). */
export const MIN_DOT_MM = 0.25;
/** Smallest screen cell in px that still holds round dots. */
export const MIN_CELL_PX = 4;
/** Default screen angle in degrees. */
export const DEFAULT_SCREEN_ANGLE = 45;

/** Area of a disc of radius r centred in the unit square, clipped to the square. */
export function clippedDiscArea(r: number): number {
  if (r <= 0) return 0;
  if (r <= 0.5) return Math.PI * r * r;
  if (r >= Math.SQRT1_2) return 1;
  // subtract the four circular segments that stick out of the square
  const seg = r * r * Math.acos(0.5 / r) - 0.5 * Math.sqrt(r * r - 0.25);
  return Math.PI * r * r - 4 * seg;
}

/** Smallest dot side in px at `dpi`: MIN_DOT_MM rounded to whole pixels, at least 2. */
export function minDotSidePx(dpi: number, mm = MIN_DOT_MM): number {
  return Math.max(2, Math.ceil((mm * dpi) / 25.4 - 0.05));
}

/**
 * Convert the semi-transparent pixels of `r` to halftone dots, in place. Opaque and transparent pixels
 * are unchanged; dot pixels keep their own colour at alpha 255, the rest become transparent (RGB 0).
 * @example halftoneRaster(raster, { lpi: 35, dpi: 300 }); // 8.57 px cells at 45 degrees
 */
export function halftoneRaster(r: Raster, p: HalftoneParams): HalftoneResult {
  const angle = p.angle ?? DEFAULT_SCREEN_ANGLE;
  const asked = p.dpi / p.lpi;
  const cell = Math.max(asked, MIN_CELL_PX);
  const lpi = p.dpi / cell;
  const warnings: HalftoneWarning[] = [];
  if (asked < MIN_CELL_PX) {
    warnings.push({
      code: 'halftone_cell_too_small',
      message: `At ${fmt(p.dpi)} DPI output, ${fmt(p.lpi)} lpi makes ${fmt(asked)} px screen cells, too small for round printable dots; the screen was coarsened to ${fmt(lpi)} lpi (${MIN_CELL_PX} px cells). For ${fmt(p.lpi)} lpi, output at least ${Math.ceil(p.lpi * MIN_CELL_PX)} DPI (resize_width_px or POST /api/v1/upscale) or choose a lower halftone_lpi.`,
    });
  }
  const { width: w, height: h, data } = r;
  const th = (angle * Math.PI) / 180;
  const c = Math.cos(th) / cell;
  const s = Math.sin(th) / cell;
  const A = alphaPlane(r);
  // a lone opaque pixel inside a soft area is part of the tone (alone it would print as a 1-px speck)
  for (let y = 0, q = 0; y < h; y++) for (let x = 0; x < w; x++, q++) if (A[q] === 255 && loneOpaque(A, w, h, x, y, q)) A[q] = 254;
  const keepEdges = p.keepEdges !== false;

  // Screen coordinates of pixel centres: u = (x c + y s), v = (-x s + y c), in cells. Cell index range:
  let uMin = Infinity, uMax = -Infinity, vMin = Infinity, vMax = -Infinity;
  for (const [x, y] of [[0, 0], [w, 0], [0, h], [w, h]] as const) {
    const u = x * c + y * s;
    const v = -x * s + y * c;
    uMin = Math.min(uMin, u); uMax = Math.max(uMax, u); vMin = Math.min(vMin, v); vMax = Math.max(vMax, v);
  }
  const iu0 = Math.floor(uMin) - 1;
  const iv0 = Math.floor(vMin) - 1;
  const nu = Math.floor(uMax) - iu0 + 2;
  const nv = Math.floor(vMax) - iv0 + 2;
  const cellOf = (x: number, y: number): number => {
    const px = x + 0.5;
    const py = y + 0.5;
    return (Math.floor(-px * s + py * c) - iv0) * nu + (Math.floor(px * c + py * s) - iu0);
  };
  // the region around a cell corner (cells shifted by half a cell), where holes of dark tones sit
  const cornerOf = (x: number, y: number): number => {
    const px = x + 0.5;
    const py = y + 0.5;
    return (Math.floor(-px * s + py * c - 0.5) - iv0) * nu + (Math.floor(px * c + py * s - 0.5) - iu0);
  };

  // Pass 1: classify semi pixels (1 = screened, 2 = rim cut at 50 %) and sum each cell's ink.
  const kind = new Uint8Array(w * h);
  const ink = new Float32Array(nu * nv);
  const count = new Float32Array(nu * nv);
  let converted = 0;
  let edges = 0;
  let anyScreened = false;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const q = y * w + x;
      const a = A[q]!;
      if (a === 0 || a === 255) continue;
      converted++;
      if (keepEdges && touchesOpaque(A, w, h, x, y, q)) {
        kind[q] = 2;
        edges++;
        continue;
      }
      kind[q] = 1;
      anyScreened = true;
      const k = cellOf(x, y);
      count[k]!++;
      if (a >= MIN_DOT_ALPHA) ink[k]! += a / 255;
    }
  }

  // Pass 2: one dot per cell up to 50 % ink, drawn from the fixed round shapes. Cells over 50 % are
  // filled and get round holes instead (pass 2b), centred on the cell corners, so dark tones are clean
  // dots of no ink rather than ragged slivers between over-grown dots.
  const shapes = dotShapes(cell, minDotSidePx(p.dpi, p.minDotMm));
  const sizes = shapes.sizes;
  // from about 55 % of the cell a dot reaches the cell edges: its round shape is cut by the cell anyway
  const exactFrom = Math.max(0.55 * cell * cell, shapes.min.size + 1);
  const on = new Uint8Array(w * h);
  const full = new Uint8Array(nu * nv);
  const drawn = new Int32Array(64);
  let dots = 0;
  if (anyScreened) {
    for (let iv = 0; iv < nv; iv++) {
      for (let iu = 0; iu < nu; iu++) {
        const k = iv * nu + iu;
        const m = ink[k]!;
        if (m <= 0) continue;
        if (m > 0.5 * count[k]!) {
          full[k] = 1;
          continue;
        }
        const size = pickSize(sizes, m, cellThreshold(iu + iu0, iv + iv0), exactFrom);
        if (!size) continue;
        const placed = drawDot(centreOf(iu + iu0 + 0.5, iv + iv0 + 0.5), size, k, cellOf, 1);
        if (placed > 0) dots++;
      }
    }
    // Pass 2b: fill the dark cells, sum the missing ink around each cell corner and cut a round hole there.
    const missing = new Float32Array(nu * nv);
    let anyFull = false;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const q = y * w + x;
        if (kind[q] !== 1 || !full[cellOf(x, y)]) continue;
        on[q] = 1;
        anyFull = true;
        const a = A[q]!;
        missing[cornerOf(x, y)]! += 1 - (a >= MIN_DOT_ALPHA ? a / 255 : 0);
      }
    }
    if (anyFull) {
      for (let jv = 0; jv < nv; jv++) {
        for (let ju = 0; ju < nu; ju++) {
          const j = jv * nu + ju;
          const m = missing[j]!;
          if (m <= 0) continue;
          const size = pickSize(sizes, m, cellThreshold(ju + iu0 + 4, jv + iv0 + 4), exactFrom);
          if (size) drawDot(centreOf(ju + iu0 + 1, jv + iv0 + 1), size, j, cornerOf, 0);
        }
      }
    }
  }
  let dotPixels = 0;
  for (let q = 0; q < w * h; q++) dotPixels += on[q]!;

  /** A dot (or hole) centred at screen point (U, V) cells, snapped to the pixel centre or corner its shape needs. */
  function centreOf(U: number, V: number): { cx: number; cy: number } {
    const X = U * cell;
    const Y = V * cell;
    return { cx: X * Math.cos(th) - Y * Math.sin(th), cy: X * Math.sin(th) + Y * Math.cos(th) };
  }

  /**
   * Set `value` on the first `size.size` screenable pixels of region `k` (a cell, or the corner region
   * for holes) along the size's pixel order; returns how many changed.
   */
  function drawDot(at: { cx: number; cy: number }, size: RoundSize, k: number, regionOf: (x: number, y: number) => number, value: 0 | 1): number {
    const order: DotOrder = size.kind === 'corner' ? shapes.corner : shapes.centre;
    const ox = size.kind === 'corner' ? Math.round(at.cx) : Math.floor(at.cx);
    const oy = size.kind === 'corner' ? Math.round(at.cy) : Math.floor(at.cy);
    let placed = 0;
    // a round dot stays within a pixel of its own radius; where the cell has too few screenable pixels
    // there it is drawn smaller rather than smeared into a sliver (big dots fill their cell as they are)
    const len = order.dx.length;
    const maxDist = size.side > 0 && size.size <= len ? order.dist[size.size - 1]! + 1 : Infinity;
    for (let j = 0; j < len && placed < size.size && order.dist[j]! <= maxDist; j++) {
      const x = ox + order.dx[j]!;
      const y = oy + order.dy[j]!;
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      const q = y * w + x;
      if (kind[q] !== 1 || on[q] === value || regionOf(x, y) !== k) continue;
      if (value === 0 && !full[cellOf(x, y)]) continue;
      on[q] = value;
      if (placed < drawn.length) drawn[placed] = q;
      placed++;
    }
    // a dot cut short (by the canvas edge, opaque art or the end of the soft area) below the minimum
    // would not hold on film: keep it only when it touches solid art
    if (value === 1 && placed > 0 && placed < shapes.min.size) {
      let attached = false;
      for (let m = 0; m < placed && !attached; m++) attached = touchesSolid(drawn[m]!);
      if (!attached) {
        for (let m = 0; m < placed; m++) on[drawn[m]!] = 0;
        return 0;
      }
    }
    return placed;
  }

  /** Does pixel q touch (8-neighbour) opaque art or a kept rim pixel? */
  function touchesSolid(q: number): boolean {
    const x = q % w;
    const y = (q - x) / w;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const xx = x + dx;
        const yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        const n = yy * w + xx;
        if ((kind[n] === 0 && A[n] === 255) || (kind[n] === 2 && A[n]! > 127)) return true;
      }
    }
    return false;
  }

  // Pass 3: write alpha 0/255.
  for (let q = 0, i = 3; q < w * h; q++, i += 4) {
    const kd = kind[q]!;
    if (kd === 0) continue;
    const keep = kd === 2 ? A[q]! > 127 : on[q] === 1;
    if (keep) {
      data[i] = 255;
    } else {
      data[i - 3] = 0;
      data[i - 2] = 0;
      data[i - 1] = 0;
      data[i] = 0;
    }
  }
  return { cellPx: cell, lpi, angle, minDotPx: shapes.min.size, converted, dotPixels, dots, edgePixels: edges, warnings };
}

/**
 * The dot size for a cell with `ink` px of ink: the round size at or below it or the next one up, chosen
 * by the cell's dither threshold `t` in proportion to how close `ink` is to each (none below the minimum
 * dot), so the expected size equals the ink. From `exactFrom` px the ink is used as is (dithered to
 * whole pixels).
 */
function pickSize(sizes: RoundSize[], ink: number, t: number, exactFrom: number): RoundSize | null {
  let lo = 0;
  let hi = sizes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sizes[mid]!.size <= ink) lo = mid + 1;
    else hi = mid;
  }
  // sizes[lo - 1] <= ink < sizes[lo]
  const below = lo > 0 ? sizes[lo - 1]! : null;
  const above = lo < sizes.length ? sizes[lo]! : null;
  if (!above || ink >= exactFrom) {
    // a dot this big fills most of its cell and is clipped by it: draw the ink as it is
    const n = Math.floor(ink) + (ink - Math.floor(ink) > t ? 1 : 0);
    return { size: n, kind: (below ?? above)!.kind, side: 0 };
  }
  const a = below ? below.size : 0;
  return (ink - a) / (above.size - a) > t ? above : below;
}

/** Is pixel q = (x, y) opaque with no opaque 8-neighbour but a semi-transparent one? */
function loneOpaque(A: Uint8Array, w: number, h: number, x: number, y: number, q: number): boolean {
  let semi = false;
  for (let dy = y > 0 ? -1 : 0, y1 = y < h - 1 ? 1 : 0; dy <= y1; dy++) {
    for (let dx = x > 0 ? -1 : 0, x1 = x < w - 1 ? 1 : 0; dx <= x1; dx++) {
      if (dx === 0 && dy === 0) continue;
      const a = A[q + dy * w + dx]!;
      if (a === 255) return false;
      if (a > 0) semi = true;
    }
  }
  return semi;
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

function fmt(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** Output DPI used for halftone cells: width px / print width, or 300 when no print width is given. */
export function halftoneDpi(widthPx: number, printWidthInches: number | undefined): number {
  return printWidthInches ? widthPx / printWidthInches : 300;
}
