// Compaction of one sheet by overlap minimisation (the approach of strip-packing nesters such as sparrow, and
// the guided local search of Egeblad et al.): from a layout with no overlap, the strip is made shorter, the
// copies left below it are pulled in (now overlapping), and copies in collision are moved one by one to the
// spot of least weighted overlap until none overlaps (a new, shorter layout) or the search gives up (the last
// layout without overlap stays). Copies that stay in collision weigh more, so the others learn to leave them
// room instead of the search circling. Deterministic: a fixed pseudo-random sequence and a counted work
// measure; the wall clock only as a safety cap.
import { firstFit, type Probe } from './grid.js';
import { OverlapField } from './overlap.js';
import type { TurnedShape } from './shapes.js';

/** One copy on the sheet: the outlines it may take, the one it has and where (cells). */
export interface CompactPiece {
  shapes: readonly TurnedShape[];
  turn: number;
  x: number;
  y: number;
}

/** What compaction did. */
export interface CompactResult {
  /** The shortest layout without overlap found (the input's when none shorter was). */
  pieces: CompactPiece[];
  /** Rows used: the lowest outline's bottom. */
  rows: number;
  /** Work spent, in the field's units (outline rows evaluated or updated). */
  work: number;
  /** Strips tried and strips made to fit. */
  tries: number;
  shrinks: number;
  /** The wall-clock cap stopped it. */
  capped: boolean;
}

/** Random positions over the whole strip, then near the copy, tried per move (before the local refinement). */
const GLOBAL_SAMPLES = 40;
const LOCAL_SAMPLES = 20;
/** Sweeps over the copies in collision without a lower total overlap before a strike (restore the best and go on). */
const PATIENCE = 12;
/** Strikes before a strip is given up. */
const STRIKES = 3;
/**
 * Weights start here and grow by a third for every sweep a copy ends in collision, up to MAX_WEIGHT: a copy
 * much heavier than the rest makes the others flee it onto each other with large overlaps. Small whole
 * numbers, so the field's sums fit its 32-bit integers for any order the options allow.
 */
const BASE_WEIGHT = 16;
const MAX_WEIGHT = 128;
/**
 * Compaction works on the last rows of the sheet, where its length is decided: WINDOW_HEIGHTS heights of the
 * tallest outline, or WINDOW_CELLS cells' worth of rows if more (23 in of a 22 in roll). Copies above stay
 * where they are. On the bench's mixed set this window did better than the whole 175 in sheet (174.4 against
 * 175.3 in: the samples land where they matter), and it bounds the field's memory on a long sheet (about 7
 * bytes a cell).
 */
const WINDOW_CELLS = 200_000;
const WINDOW_HEIGHTS = 2;
/** Failed tries in a row, each to take one row off, before compaction stops. */
const GIVE_UP = 12;
/** First shrink of the strip (a share of its length); halved after each failure, down to one row. */
const FIRST_SHRINK = 0.005;

const bottom = (p: CompactPiece): number => p.y + p.shapes[p.turn]!.h;
const copyOf = (ps: readonly CompactPiece[]): CompactPiece[] => ps.map((p) => ({ ...p }));

/**
 * Make the layout of `start` (no overlaps, `cols` wide) shorter within `budget` work units, drawing from `rand`.
 * `deadline` (performance.now()) is the safety cap.
 * @example compact(pieces, 432, 2e7, lcg(1), performance.now() + 5000).rows
 */
export function compact(start: readonly CompactPiece[], cols: number, budget: number, rand: () => number, deadline: number): CompactResult {
  const rows0 = Math.max(0, ...start.map(bottom));
  const res: CompactResult = { pieces: copyOf(start), rows: rows0, work: 0, tries: 0, shrinks: 0, capped: false };
  if (start.length < 2) return res;
  // the window: the copies whose top is in the last few heights of the tallest outline move; those above are
  // fixed, and the ones reaching into the window are obstacles there
  const tallest = Math.max(...start.flatMap((p) => p.shapes.map((s) => s.h)));
  const top = Math.max(0, rows0 - Math.max(WINDOW_HEIGHTS * tallest, Math.floor(WINDOW_CELLS / cols)));
  const moving = start.flatMap((p, i) => (p.y >= top ? [i] : []));
  const obstacles = start.flatMap((p) => (p.y < top && bottom(p) > top ? [clipped(p, top)] : []));
  let best = moving.map((i) => ({ ...start[i]!, y: start[i]!.y - top }));
  let bestRows = rows0 - top;
  const field = new OverlapField(cols, bestRows);
  // no strip can be shorter than the tallest moving copy in its flattest turn
  const floor = Math.max(...best.map((p) => Math.min(...p.shapes.map((s) => s.h))));
  let shrink = FIRST_SHRINK;
  // failures in a row to take a single row off: past GIVE_UP the layout is taken as tight (a small order then
  // stops long before its budget)
  let misses = 0;
  const weights = new Int32Array(best.length);
  while (best.length > 1 && field.work < budget) {
    if (performance.now() > deadline) {
      res.capped = true;
      break;
    }
    const target = Math.min(bestRows - 1, Math.floor((bestRows + top) * (1 - shrink)) - top);
    if (target < floor) break;
    res.tries++;
    const cur = copyOf(best);
    const outcome = separate(field, cur, obstacles, weights, target, budget, rand, deadline);
    if (outcome === 'capped') {
      res.capped = true;
      break;
    }
    if (outcome === 'fit') {
      best = cur;
      bestRows = Math.max(...best.map(bottom), ...obstacles.map(bottom));
      res.shrinks++;
      misses = 0;
    } else {
      if (target === bestRows - 1 && ++misses >= GIVE_UP) break;
      shrink = Math.max(shrink / 2, 1 / (bestRows + top));
    }
  }
  moving.forEach((i, k) => {
    res.pieces[i] = { ...best[k]!, y: best[k]!.y + top };
  });
  res.rows = Math.max(...res.pieces.map(bottom));
  res.work = field.work;
  return res;
}

/** The part of a fixed copy at and below row `top`, in the window's rows (an obstacle: one turn, never moved). */
function clipped(p: CompactPiece, top: number): CompactPiece {
  const s = p.shapes[p.turn]!;
  const r0 = top - p.y;
  const k0 = s.rowStart[r0]!;
  const part: TurnedShape = {
    ...s,
    h: s.h - r0,
    rowStart: s.rowStart.subarray(r0).map((k) => k - k0),
    runs: s.runs.subarray(2 * k0),
  };
  return { shapes: [part], turn: 0, x: p.x, y: 0 };
}

/**
 * Fit `ps` into `rows` rows: pull up the copies below, then move copies in collision until none is. Leaves `ps`
 * without overlap on 'fit'; otherwise `ps` is to be dropped.
 */
function separate(
  field: OverlapField, ps: CompactPiece[], obstacles: readonly CompactPiece[], weights: Int32Array, rows: number, budget: number,
  rand: () => number, deadline: number,
): 'fit' | 'failed' | 'capped' {
  weights.fill(BASE_WEIGHT);
  field.reset(rows);
  for (const o of obstacles) field.add(o.shapes[0]!, o.x, o.y, MAX_WEIGHT);
  const out = ps.filter((p) => bottom(p) > rows);
  ps.forEach((p, i) => {
    if (bottom(p) <= rows) field.add(p.shapes[p.turn]!, p.x, p.y, weights[i]!);
  });
  // the copies below the strip: into a hole if one takes them (the first fit over their turns, the highest
  // bottom), else pulled up where they are, overlapping
  for (const p of out) {
    const at = hole(field, p);
    if (at) Object.assign(p, at);
    else {
      if (p.shapes[p.turn]!.h > rows) p.turn = p.shapes.reduce((b, s, i) => (s.h < p.shapes[b]!.h ? i : b), 0);
      p.y = rows - p.shapes[p.turn]!.h;
    }
    field.add(p.shapes[p.turn]!, p.x, p.y, BASE_WEIGHT);
  }
  let bestOverlap = field.overlap;
  let bestAt = copyOf(ps);
  for (let strike = 0; strike < STRIKES; strike++) {
    for (let stale = 0; stale < PATIENCE;) {
      if (field.overlap === 0) return 'fit';
      if (field.work >= budget) return 'failed';
      if (performance.now() > deadline) return 'capped';
      const colliding = ps.map((_, i) => i).filter((i) => inCollision(field, ps[i]!, weights[i]!));
      shuffle(colliding, rand);
      for (const i of colliding) if (inCollision(field, ps[i]!, weights[i]!)) move(field, ps[i]!, weights[i]!, rand);
      if (field.overlap < bestOverlap) {
        bestOverlap = field.overlap;
        bestAt = copyOf(ps);
        stale = 0;
      } else {
        stale++;
      }
      if (field.overlap === 0) return 'fit';
      // guided local search: copies still in collision weigh more, so the others are pushed off them
      for (let i = 0; i < ps.length; i++) {
        const w = weights[i]!;
        if (w === MAX_WEIGHT || !inCollision(field, ps[i]!, w)) continue;
        const grown = Math.min(MAX_WEIGHT, w + Math.ceil(w / 3));
        field.add(ps[i]!.shapes[ps[i]!.turn]!, ps[i]!.x, ps[i]!.y, grown - w, 0);
        weights[i] = grown;
      }
    }
    // a strike: back to the least overlap seen, with fresh weights
    ps.splice(0, ps.length, ...copyOf(bestAt));
    weights.fill(BASE_WEIGHT);
    rebuild(field, ps, obstacles, weights, rows);
  }
  return field.overlap === 0 ? 'fit' : 'failed';
}

function rebuild(field: OverlapField, ps: readonly CompactPiece[], obstacles: readonly CompactPiece[], weights: Int32Array, rows: number): void {
  field.reset(rows);
  for (const o of obstacles) field.add(o.shapes[0]!, o.x, o.y, MAX_WEIGHT);
  ps.forEach((p, i) => field.add(p.shapes[p.turn]!, p.x, p.y, weights[i]!));
}

/** Where `p` fits without overlap: the first fit of each turn on the field's bit grid, the highest bottom. */
function hole(field: OverlapField, p: CompactPiece): { turn: number; x: number; y: number } | null {
  field.syncGrid();
  const probe: Probe = { work: 0, check: () => {} };
  let best: { turn: number; x: number; y: number } | null = null;
  p.shapes.forEach((s, t) => {
    if (s.w > field.cols || s.h > field.rows) return;
    const at = firstFit(field.grid, s, 0, 0, probe);
    if (at && (!best || at.y + s.h < best.y + p.shapes[best.turn]!.h)) best = { turn: t, ...at };
  });
  field.work += probe.work * PROBE_WORK;
  return best;
}

/** Whether the copy's cells meet another's (its own weight taken out of the sum). */
function inCollision(field: OverlapField, p: CompactPiece, w: number): boolean {
  const s = p.shapes[p.turn]!;
  return field.cost(s, p.x, p.y, Infinity) - w * field.massOf(s) > 0;
}

/** Move one copy to the spot of least weighted overlap found: samples over the strip and near it, every turn, then refined. */
function move(field: OverlapField, p: CompactPiece, w: number, rand: () => number): void {
  const rows = field.rows;
  field.add(p.shapes[p.turn]!, p.x, p.y, -w);
  let bt = p.turn;
  let bx = p.x;
  let by = p.y;
  let bc = field.cost(p.shapes[bt]!, bx, by, Infinity);
  const turns = p.shapes.length;
  const fits = (t: number): boolean => p.shapes[t]!.w <= field.cols && p.shapes[t]!.h <= rows;
  const tryAt = (t: number, x: number, y: number): void => {
    const c = field.cost(p.shapes[t]!, x, y, bc);
    if (c < bc) {
      bc = c;
      bt = t;
      bx = x;
      by = y;
    }
  };
  for (let k = 0; k < GLOBAL_SAMPLES && bc > 0; k++) {
    const t = Math.floor(rand() * turns);
    if (!fits(t)) continue;
    const s = p.shapes[t]!;
    tryAt(t, Math.floor(rand() * (field.cols - s.w + 1)), Math.floor(rand() * (rows - s.h + 1)));
  }
  // near the best so far (where the copy was, or a better sample): a window of a quarter of the outline's size
  const cx = bx;
  const cy = by;
  for (let k = 0; k < LOCAL_SAMPLES && bc > 0; k++) {
    const t = rand() < 0.5 ? bt : Math.floor(rand() * turns);
    if (!fits(t)) continue;
    const s = p.shapes[t]!;
    const rx = Math.max(2, s.w >> 2);
    const ry = Math.max(2, s.h >> 2);
    const x = clamp(cx + Math.round((rand() * 2 - 1) * rx), 0, field.cols - s.w);
    const y = clamp(cy + Math.round((rand() * 2 - 1) * ry), 0, rows - s.h);
    tryAt(t, x, y);
  }
  // refinement: a pattern search around the best, steps halving down to one cell
  const s = p.shapes[bt]!;
  for (let step = Math.max(1, Math.max(s.w, s.h) >> 3); step >= 1 && bc > 0; step >>= 1) {
    for (let improved = true; improved && bc > 0;) {
      improved = false;
      const before = bc;
      const x0 = bx;
      const y0 = by;
      if (x0 + step <= field.cols - s.w) tryAt(bt, x0 + step, y0);
      if (x0 - step >= 0) tryAt(bt, x0 - step, y0);
      if (y0 + step <= rows - s.h) tryAt(bt, x0, y0 + step);
      if (y0 - step >= 0) tryAt(bt, x0, y0 - step);
      if (bc < before) improved = true;
    }
  }
  p.turn = bt;
  p.x = bx;
  p.y = by;
  field.add(p.shapes[bt]!, bx, by, w);
}

/** Field work units per probe of the bit grid's first fit (about the same CPU time). */
const PROBE_WORK = 4;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

function shuffle(a: number[], rand: () => number): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
}
