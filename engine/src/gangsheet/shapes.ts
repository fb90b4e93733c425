// What the nester sees of one item: its ink (alpha > 0) at print size, grown by half the spacing with the
// exact Euclidean distance transform, on a grid of NEST_CELLS_PER_IN cells per inch. Every step rounds
// outward (a cell is ink when any ink pixel touches it; the growth adds the rounding's worst case), so two
// shapes whose cells do not overlap have ink at least the spacing apart, whatever the grid hides.
import { squaredDistance } from '../raster/distance.js';
import type { Raster } from '../raster/types.js';

/**
 * Nesting grid: 0.05 in cells (placement steps and the outline's resolution). 0.025 in was measured
 * (docs/benchmarks/gangsheet.md): sheets 1.1 % (mixed) and 5.0 % (round) shorter for 3x the CPU, and a loaded
 * machine's wall-clock cap then cut the mixed set's first layout short; kept at 0.05 in.
 */
export const NEST_CELLS_PER_IN = 20;
/** The growth is measured on a 4x finer grid (0.0125 in) before it is pooled to the nesting grid. */
const FINE = 4;
const FINE_PER_IN = NEST_CELLS_PER_IN * FINE;

/** A right-angle turn, clockwise as seen on the film. */
export type Turn = 0 | 90 | 180 | 270;

/** An item's grown outline on the nesting grid, unturned, with the art's place in it. */
export interface ItemShape {
  /** Grid size in cells. */
  w: number;
  h: number;
  /** 1 where the grown outline covers the cell. */
  cells: Uint8Array;
  /** Cells of growth room the grid was made with around the art's box, before it was cropped to the outline. */
  pad: number;
  /**
   * Top-left of the art's box in the grid, cells (fractional; negative where transparent edges of the art lie
   * beyond the outline: the grid is cropped to the grown ink, so the art's empty margins take no film).
   */
  artX: number;
  artY: number;
  /** The art's print size in inches. */
  widthIn: number;
  heightIn: number;
  /** The ink's bounds in the grid (conservative: all ink is inside), cells, fractional: left, top, right, bottom. */
  ink: [number, number, number, number];
  /** Ink-bearing area at print size (alpha > 0), square inches. */
  inkSqIn: number;
  /** Area of the ink grown by half the spacing, square inches (measured on the 0.0125 in grid). */
  grownSqIn: number;
}

/** A turned outline as row runs: row r holds the runs runs[2k]..runs[2k+1] (exclusive) for k in rowStart[r]..rowStart[r+1]. */
export interface TurnedShape {
  turn: Turn;
  w: number;
  h: number;
  rowStart: Int32Array;
  runs: Int32Array;
  /** Offset of the art's box top-left in the turned grid, in cells (fractional). */
  artX: number;
  artY: number;
  /** The art's box on the film after the turn, inches. */
  boxWidthIn: number;
  boxHeightIn: number;
  /** Bottom of the ink in the turned grid, cells (fractional, conservative): where the sheet's length is measured. */
  inkBottom: number;
}

/**
 * The grown outline of `r` printed `widthIn` x `heightIn` with `spacingIn` between designs.
 * @example itemShape(raster, 3, 2, 0.125).cells
 */
export function itemShape(r: Raster, widthIn: number, heightIn: number, spacingIn: number): ItemShape {
  const half = (spacingIn / 2) * FINE_PER_IN; // growth in fine cells
  // the pooling's worst case: a point and its ink can sit at opposite corners of their fine cells
  const slack = Math.SQRT2;
  const pad = Math.ceil((half + slack + 1) / FINE);
  const padF = pad * FINE;
  const artFw = Math.ceil(widthIn * FINE_PER_IN - 1e-9);
  const artFh = Math.ceil(heightIn * FINE_PER_IN - 1e-9);
  const fw = Math.ceil((artFw + 2 * padF) / FINE) * FINE;
  const fh = Math.ceil((artFh + 2 * padF) / FINE) * FINE;
  const fine = new Uint8Array(fw * fh);
  const pxPerFineX = r.width / (widthIn * FINE_PER_IN);
  const pxPerFineY = r.height / (heightIn * FINE_PER_IN);
  // fine columns each source column touches (conservative: partial overlap counts)
  const c0 = new Int32Array(r.width);
  const c1 = new Int32Array(r.width);
  for (let x = 0; x < r.width; x++) {
    c0[x] = Math.floor(x / pxPerFineX + 1e-9);
    c1[x] = Math.min(artFw - 1, Math.ceil((x + 1) / pxPerFineX - 1e-9) - 1);
  }
  const rowMask = new Uint8Array(fw);
  let ink = 0;
  const d = r.data;
  for (let y = 0; y < r.height; y++) {
    rowMask.fill(0);
    let any = false;
    for (let x = 0, i = y * r.width * 4 + 3; x < r.width; x++, i += 4) {
      if (d[i]! > 0) {
        ink++;
        any = true;
        for (let c = c0[x]!; c <= c1[x]!; c++) rowMask[c + padF] = 1;
      }
    }
    if (!any) continue;
    const r0 = Math.floor(y / pxPerFineY + 1e-9);
    const r1 = Math.min(artFh - 1, Math.ceil((y + 1) / pxPerFineY - 1e-9) - 1);
    for (let fr = r0; fr <= r1; fr++) {
      const row = (fr + padF) * fw;
      for (let c = 0; c < fw; c++) if (rowMask[c]) fine[row + c] = 1;
    }
  }
  const dist = squaredDistance(fw, fh, fine);
  const reach = (half + slack) ** 2;
  const exact = half * half;
  const w = fw / FINE;
  const h = fh / FINE;
  const cells = new Uint8Array(w * h);
  let grown = 0;
  let x0 = fw, y0 = fh, x1 = -1, y1 = -1;
  for (let fy = 0; fy < fh; fy++) {
    const row = fy * fw;
    const cellRow = ((fy / FINE) | 0) * w;
    for (let fx = 0; fx < fw; fx++) {
      const v = dist[row + fx]!;
      if (v === 0) {
        // an ink cell: the ink's bounds
        if (fx < x0) x0 = fx;
        if (fx > x1) x1 = fx;
        if (fy < y0) y0 = fy;
        y1 = fy;
      }
      if (v <= exact) grown++;
      if (v <= reach) cells[cellRow + ((fx / FINE) | 0)] = 1;
    }
  }
  const dpiSq = (r.width / widthIn) * (r.height / heightIn);
  const inkSqIn = ink / dpiSq;
  const grownSqIn = grown / (FINE_PER_IN * FINE_PER_IN);
  if (x1 < 0) return { w, h, cells, pad, artX: pad, artY: pad, widthIn, heightIn, ink: [pad, pad, pad, pad], inkSqIn, grownSqIn };
  // crop the grid to the grown outline: the art's transparent margins then neither take film nor keep the
  // shape from a turn or a place it fits in (the cells are unchanged, so the spacing holds as before)
  let cx0 = w, cy0 = h, cx1 = -1, cy1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!cells[y * w + x]) continue;
      if (x < cx0) cx0 = x;
      if (x > cx1) cx1 = x;
      if (y < cy0) cy0 = y;
      cy1 = y;
    }
  }
  const cw = cx1 - cx0 + 1;
  const ch = cy1 - cy0 + 1;
  const cropped = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) cropped.set(cells.subarray((y + cy0) * w + cx0, (y + cy0) * w + cx0 + cw), y * cw);
  return {
    w: cw, h: ch, cells: cropped, pad, artX: pad - cx0, artY: pad - cy0, widthIn, heightIn,
    ink: [x0 / FINE - cx0, y0 / FINE - cy0, (x1 + 1) / FINE - cx0, (y1 + 1) / FINE - cy0],
    inkSqIn, grownSqIn,
  };
}

/** The outline turned by `turn` (clockwise), as row runs, with the art's box in the turned grid. */
export function turnShape(s: ItemShape, turn: Turn): TurnedShape {
  const quarter = turn === 90 || turn === 270;
  const w = quarter ? s.h : s.w;
  const h = quarter ? s.w : s.h;
  const at = (i: number, j: number): number => {
    // the unturned cell that lands on turned cell (i, j)
    if (turn === 0) return s.cells[j * s.w + i]!;
    if (turn === 90) return s.cells[(s.h - 1 - i) * s.w + j]!;
    if (turn === 180) return s.cells[(s.h - 1 - j) * s.w + (s.w - 1 - i)]!;
    return s.cells[i * s.w + (s.w - 1 - j)]!;
  };
  const rowStart = new Int32Array(h + 1);
  const runs: number[] = [];
  for (let j = 0; j < h; j++) {
    rowStart[j] = runs.length / 2;
    let i = 0;
    while (i < w) {
      if (!at(i, j)) { i++; continue; }
      const start = i;
      while (i < w && at(i, j)) i++;
      runs.push(start, i);
    }
  }
  rowStart[h] = runs.length / 2;
  const aw = s.widthIn * NEST_CELLS_PER_IN;
  const ah = s.heightIn * NEST_CELLS_PER_IN;
  const { artX: ax, artY: ay } = s;
  const art = turn === 0 ? [ax, ay] : turn === 90 ? [s.h - ay - ah, ax] : turn === 180 ? [s.w - ax - aw, s.h - ay - ah] : [ay, s.w - ax - aw];
  const [l, t, r, b] = s.ink;
  return {
    turn, w, h, rowStart, runs: Int32Array.from(runs), artX: art[0]!, artY: art[1]!,
    boxWidthIn: quarter ? s.heightIn : s.widthIn, boxHeightIn: quarter ? s.widthIn : s.heightIn,
    // the unturned ink edge that becomes the turned bottom
    inkBottom: turn === 0 ? b : turn === 90 ? r : turn === 180 ? s.h - t : s.w - l,
  };
}

/** Turns a rotation allowance permits. */
export function turnsOf(rotation: 'none' | '90' | 'any'): Turn[] {
  return rotation === 'none' ? [0] : rotation === '90' ? [0, 90] : [0, 90, 180, 270];
}
