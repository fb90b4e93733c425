// Bottom-left fill on an occupancy grid of the film: copies go one by one (largest outline first, ties by
// item order), each to the lowest, then leftmost, cell where its grown outline overlaps nothing, trying each
// allowed turn and keeping the one whose bottom ends highest. A sheet is the roll's width by max_length_in;
// a copy that fits no open sheet opens the next. When the time budget runs out, the copies left go in rows
// below everything placed (first fit): slower layouts, never dropped copies.
import { NEST_CELLS_PER_IN, type TurnedShape, type Turn } from './shapes.js';

/** One copy to place: its item, copy number and the turned outlines it may take. */
export interface NestCopy {
  item: number;
  copy: number;
  shapes: readonly TurnedShape[];
}

/** Where a copy went, in grid cells of its sheet. */
export interface NestSpot {
  item: number;
  copy: number;
  sheet: number;
  shape: TurnedShape;
  x: number;
  y: number;
  /** True when the time budget had run out and the copy went in rows below the rest. */
  fast: boolean;
}

interface Sheet {
  occ: Uint8Array;
  /** Rows below the last occupied one (where the fast path starts). */
  usedRows: number;
  /** Fast path: the shelf being filled. */
  shelfX: number;
  shelfY: number;
  shelfH: number;
}

/** The grid a sheet offers, in cells: width across the roll and the longest length. */
export interface NestArea {
  cols: number;
  rows: number;
}

/** Area in cells of the roll width `widthIn` by `lengthIn` when ink keeps `marginIn` from the edges and outlines grow by `halfSpacingIn`. */
export function nestArea(widthIn: number, lengthIn: number, marginIn: number, halfSpacingIn: number): NestArea {
  const cells = (v: number) => Math.floor((v - 2 * marginIn + 2 * halfSpacingIn) * NEST_CELLS_PER_IN + 1e-9);
  return { cols: cells(widthIn), rows: cells(lengthIn) };
}

/**
 * The first column from which `s` at (x, y) could fit: -1 when it fits there, else a column past the
 * rightmost occupied cell one of its runs hit (every column between would hit that cell again).
 */
function collide(occ: Uint8Array, cols: number, s: TurnedShape, x: number, y: number): number {
  const { rowStart, runs } = s;
  for (let r = 0; r < s.h; r++) {
    const base = (y + r) * cols + x;
    for (let k = rowStart[r]!; k < rowStart[r + 1]!; k++) {
      const x0 = runs[2 * k]!;
      for (let c = runs[2 * k + 1]! - 1; c >= x0; c--) {
        if (occ[base + c]) return x + c - x0 + 1;
      }
    }
  }
  return -1;
}

function mark(sheet: Sheet, cols: number, s: TurnedShape, x: number, y: number): void {
  const { rowStart, runs } = s;
  for (let r = 0; r < s.h; r++) {
    const base = (y + r) * cols + x;
    for (let k = rowStart[r]!; k < rowStart[r + 1]!; k++) sheet.occ.fill(1, base + runs[2 * k]!, base + runs[2 * k + 1]!);
  }
  sheet.usedRows = Math.max(sheet.usedRows, y + s.h);
}

/** Lowest-then-leftmost free spot of `s` from (startX, startY); null when none, 'timeout' when the clock ran out. */
function bottomLeft(sheet: Sheet, area: NestArea, s: TurnedShape, startX: number, startY: number, deadline: number): { x: number; y: number } | null | 'timeout' {
  for (let y = startY; y + s.h <= area.rows; y++) {
    if ((y & 31) === 0 && performance.now() > deadline) return 'timeout';
    let x = y === startY ? startX : 0;
    while (x + s.w <= area.cols) {
      const next = collide(sheet.occ, area.cols, s, x, y);
      if (next < 0) return { x, y };
      x = next;
    }
  }
  return null;
}

/**
 * Place every copy (in the order given) on as many sheets as it takes.
 * @example nest(copies, nestArea(22, 200, 0.25, 0.0625), 5000)
 */
export function nest(copies: readonly NestCopy[], area: NestArea, budgetMs: number): NestSpot[] {
  const deadline = performance.now() + budgetMs;
  const sheets: Sheet[] = [];
  const open = (): Sheet => {
    const s = { occ: new Uint8Array(area.cols * area.rows), usedRows: 0, shelfX: 0, shelfY: 0, shelfH: 0 };
    sheets.push(s);
    return s;
  };
  open();
  // an outline never fits higher than where its previous copy went (the film only fills up): search from there
  const resume = new Map<string, { x: number; y: number }>();
  const out: NestSpot[] = [];
  let outOfTime = false;
  for (const c of copies) {
    let placed: NestSpot | null = null;
    for (let si = 0; si < sheets.length && !placed && !outOfTime; si++) {
      let best: { x: number; y: number; shape: TurnedShape } | null = null;
      for (const shape of c.shapes) {
        if (shape.w > area.cols || shape.h > area.rows) continue;
        const key = `${si}:${c.item}:${shape.turn}`;
        const from = resume.get(key) ?? { x: 0, y: 0 };
        const at = bottomLeft(sheets[si]!, area, shape, from.x, from.y, deadline);
        if (at === 'timeout') { outOfTime = true; break; }
        if (!at) { resume.set(key, { x: 0, y: area.rows }); continue; }
        resume.set(key, at);
        if (!best || at.y + shape.h < best.y + best.shape.h || (at.y + shape.h === best.y + best.shape.h && at.x < best.x)) best = { ...at, shape };
      }
      if (best && !outOfTime) {
        mark(sheets[si]!, area.cols, best.shape, best.x, best.y);
        placed = { item: c.item, copy: c.copy, sheet: si, shape: best.shape, x: best.x, y: best.y, fast: false };
      }
    }
    if (!placed && !outOfTime) {
      // fits no open sheet: a new one (the caller checked every copy fits an empty sheet)
      const si = sheets.length;
      const sheet = open();
      const shape = c.shapes.find((s) => s.w <= area.cols && s.h <= area.rows)!;
      mark(sheet, area.cols, shape, 0, 0);
      placed = { item: c.item, copy: c.copy, sheet: si, shape, x: 0, y: 0, fast: false };
    }
    if (!placed) placed = fastPlace(sheets, open, area, c);
    out.push(placed);
  }
  return out;
}

/** First fit in shelves below everything on the last sheet (the time budget ran out). */
function fastPlace(sheets: Sheet[], open: () => Sheet, area: NestArea, c: NestCopy): NestSpot {
  // the turn that takes the least length, among those that fit across
  const shape = [...c.shapes].filter((s) => s.w <= area.cols && s.h <= area.rows).sort((a, b) => a.h - b.h || a.turn - b.turn)[0]!;
  let si = sheets.length - 1;
  let sheet = sheets[si]!;
  if (sheet.shelfH === 0 && sheet.shelfX === 0) sheet.shelfY = sheet.usedRows;
  if (sheet.shelfX + shape.w > area.cols) {
    sheet.shelfY += sheet.shelfH;
    sheet.shelfX = 0;
    sheet.shelfH = 0;
  }
  if (sheet.shelfY + shape.h > area.rows) {
    sheet = open();
    si = sheets.length - 1;
  }
  const x = sheet.shelfX;
  const y = sheet.shelfY;
  // below every placed outline by construction; checked anyway, since an overlap would print designs into each other
  if (collide(sheet.occ, area.cols, shape, x, y) >= 0) throw new Error('gangsheet: fast placement overlaps');
  const used = sheet.usedRows;
  mark(sheet, area.cols, shape, x, y);
  sheet.usedRows = Math.max(used, y + shape.h);
  sheet.shelfX += shape.w;
  sheet.shelfH = Math.max(sheet.shelfH, shape.h);
  return { item: c.item, copy: c.copy, sheet: si, shape, x, y, fast: true };
}

export type { Turn };
