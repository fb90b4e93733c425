// Nesting on an occupancy grid of the film: each copy goes, among its first fit (lowest, then leftmost free
// position) and the leftmost fits of the next rows, to the one whose outline touches most ink and walls for
// the depth it goes to (the placement rule, `PLACEMENT`). Several deterministic runs (item orders,
// then order moves of a local search) each lay out every copy; the shortest layout wins, and its last
// sheet is then made shorter by compaction (compact.ts). Both are bounded by work budgets counted in outline
// probes and compaction's units, so the same input gives the same layout on any machine; the wall-clock cap is
// only a safety net (the one source of variation, reported as `capped`).
import { compact, type CompactPiece } from './compact.js';
import { collide, contact, firstFit, mark, newGrid, resetHint, type Grid, type Probe } from './grid.js';
import { NEST_CELLS_PER_IN, type TurnedShape, type Turn } from './shapes.js';

/** One item to place: its index, how many copies, the turned outlines it may take and its grown area. */
export interface NestGroup {
  item: number;
  quantity: number;
  shapes: readonly TurnedShape[];
  /** Grown outline area (the order's first key). */
  area: number;
}

/** Where a copy went, in grid cells of its sheet. */
export interface NestSpot {
  item: number;
  copy: number;
  sheet: number;
  shape: TurnedShape;
  x: number;
  y: number;
  /** True when the wall-clock cap had run out and the copy went in rows below the rest. */
  fast: boolean;
}

/** The grid a sheet offers, in cells: width across the roll and the longest length. */
export interface NestArea {
  cols: number;
  rows: number;
}

/** What the search did. */
export interface NestResult {
  spots: NestSpot[];
  /** Complete layouts tried (the winner is the shortest). */
  runs: number;
  /** Outline probes spent by the search over orders (the deterministic work measure; compaction's is in `compaction`). */
  work: number;
  /** True when the wall-clock cap cut the search (the layout then depends on the machine's speed). */
  capped: boolean;
  /** What compaction of the last sheet did (null when it did not run: no budget left, or the cap had passed). */
  compaction: CompactStats | null;
}

/** Compaction of the last sheet: its rows before and after, strips tried and made to fit, work in compaction's units. */
export interface CompactStats {
  rowsBefore: number;
  rowsAfter: number;
  tries: number;
  shrinks: number;
  work: number;
  capped: boolean;
}

/**
 * Outline probes of search per millisecond of the time budget: the work budget is the time budget times this,
 * a count, so it decides the layout the same way on every machine. A probe costs about 0.27 microseconds of
 * one core of the build machine (the bench's mixed set), so the search takes about a ninth of the budget on an
 * idle core: the budget's clock, a safety cap, should only cut it on a machine several times oversubscribed.
 */
export const NEST_PROBES_PER_MS = 400;

/**
 * Compaction's work budget per probe of the constructive search's: after the search over orders has spent its
 * probes, compaction of the last sheet spends `workBudget` x this in its own units (an outline row evaluated,
 * 4 field cells rewritten, a quarter of a first-fit probe: see overlap.ts and compact.ts). A unit cost about
 * 0.02 microseconds of one core of the loaded build machine: at the default budget (50,000,000 units)
 * compaction took about 1 s on the bench's sets, the whole layout 1.5 s.
 */
export const NEST_COMPACT_WORK_PER_PROBE = 8;

/** Area in cells of the roll width `widthIn` by `lengthIn` when ink keeps `marginIn` from the edges and outlines grow by `halfSpacingIn`. */
export function nestArea(widthIn: number, lengthIn: number, marginIn: number, halfSpacingIn: number): NestArea {
  const cells = (v: number) => Math.floor((v - 2 * marginIn + 2 * halfSpacingIn) * NEST_CELLS_PER_IN + 1e-9);
  return { cols: cells(widthIn), rows: cells(lengthIn) };
}

/** Thrown inside a run when the wall-clock cap passes. */
class Capped extends Error {}

/** A sheet being filled: its occupancy and, for the fast path, the shelf being filled. */
interface Sheet extends Grid {
  shelfX: number;
  shelfY: number;
  shelfH: number;
}

const newSheet = (area: NestArea): Sheet => ({ ...newGrid(area.cols, area.rows), shelfX: 0, shelfY: 0, shelfH: 0 });

/** A run of consecutive copies of one item in a placement order (a group may be split into several chunks). */
interface Chunk {
  /** Index in the groups. */
  g: number;
  count: number;
}

/** A run's layout: its spots and its cost (sheets, then the last sheet's used rows). */
interface Run {
  spots: NestSpot[];
  sheets: number;
  lastRows: number;
}

/** A position a copy may take, with its score under the placement rule (higher is better). */
interface Candidate {
  x: number;
  y: number;
  ti: number;
  bottom: number;
  score: number;
}

/** How a layout picks each copy's position among the free ones (see `PLACEMENT`). */
export interface PlacementRule {
  /** Positions scored per turn: the first fit, then the leftmost fit of each of the next rows that have one. */
  candidates: number;
  /** How far below the first fit those rows may go, in outline heights. */
  window: number;
  /** Score lost per row the copy's bottom goes lower; the score gained is its contact (0 when `contact` is off). */
  bottomWeight: number;
  contact: boolean;
}

/**
 * The placement rule, measured on the bench's two sets (docs/benchmarks/gangsheet.md, "Placement rule"): per
 * turn, the first fit and the leftmost fit of the next 2 rows that have one, at most a quarter of the outline's
 * height below it, scored by contact (edges of outline cells touching ink or a wall) less 2 per row of the
 * bottom's depth: a copy goes a little lower only where it touches much more, which leaves less film trapped.
 */
export const PLACEMENT: PlacementRule = { candidates: 3, window: 0.25, bottomWeight: 2, contact: true };

/** Bottom-left first fit alone (the rule before contact): the lowest bottom over the turns, then the leftmost. */
export const BOTTOM_LEFT: PlacementRule = { candidates: 1, window: 0, bottomWeight: 1, contact: false };

/** A contact count reads about twice the rows of a probe that finds a fit: counted as two probes of work. */
const CONTACT_PROBES = 2;

const better = (a: Run, b: Run): boolean => a.sheets < b.sheets || (a.sheets === b.sheets && a.lastRows < b.lastRows);

/**
 * One complete layout: the copies in `order`, each on the first open sheet where it fits, at the candidate
 * position and turn that `rule` scores best. When `fast` is set and the cap passes, the copies left go in rows below
 * (the first run must return a layout); otherwise `Capped` escapes.
 */
function run(groups: readonly NestGroup[], order: readonly Chunk[], area: NestArea, m: Probe, fast: boolean, rule: PlacementRule): Run {
  resetHint();
  const sheets: Sheet[] = [newSheet(area)];
  const spots: NestSpot[] = [];
  const done = groups.map(() => 0);
  // first-fit positions found so far, per sheet, group and turn: the film only fills up, so a position earlier
  // in scan order than one found can never open again, and a found one still free is still the first fit
  const cache = new Map<number, { x: number; y: number } | null>();
  const turns = Math.max(...groups.map((g) => g.shapes.length));
  const fitOf = (si: number, gi: number, ti: number): { x: number; y: number } | null => {
    const key = (si * groups.length + gi) * turns + ti;
    const s = groups[gi]!.shapes[ti]!;
    const had = cache.get(key);
    if (had === null) return null;
    if (had) {
      m.work++;
      if (collide(sheets[si]!, s, had.x, had.y) < 0) return had;
    }
    const at = s.w > area.cols || s.h > area.rows ? null : firstFit(sheets[si]!, s, had?.x ?? 0, had?.y ?? 0, m);
    cache.set(key, at);
    return at;
  };
  const place = (si: number, gi: number, x: number, y: number, shape: TurnedShape): void => {
    mark(sheets[si]!, shape, x, y);
    spots.push({ item: groups[gi]!.item, copy: done[gi]!++, sheet: si, shape, x, y, fast: false });
  };
  try {
    for (const { g: gi, count } of order) {
      const shapes = groups[gi]!.shapes;
      for (let n = 0; n < count; n++) {
        let placed = false;
        for (let si = 0; si < sheets.length && !placed; si++) {
          let best: Candidate | null = null;
          const consider = (c: Candidate): void => {
            if (!best || c.score > best.score || (c.score === best.score && (c.bottom < best.bottom || (c.bottom === best.bottom && c.x < best.x)))) best = c;
          };
          for (let ti = 0; ti < shapes.length; ti++) {
            const at = fitOf(si, gi, ti);
            if (!at) continue;
            const s = shapes[ti]!;
            const sheet = sheets[si]!;
            const scored = (p: { x: number; y: number }): Candidate => {
              let score = -rule.bottomWeight * (p.y + s.h);
              if (rule.contact) {
                m.work += CONTACT_PROBES;
                score += contact(sheet, s, p.x, p.y);
              }
              return { x: p.x, y: p.y, ti, bottom: p.y + s.h, score };
            };
            consider(scored(at));
            // more candidates: the leftmost fit of each of the next rows that have one, in a window below the first fit
            let p = at;
            for (let k = 1; k < rule.candidates; k++) {
              const next = firstFit(sheet, s, 0, p.y + 1, m, at.y + Math.ceil(s.h * rule.window));
              if (!next) break;
              consider(scored(next));
              p = next;
            }
          }
          const chosen = best as Candidate | null;
          if (chosen) {
            place(si, gi, chosen.x, chosen.y, shapes[chosen.ti]!);
            placed = true;
          }
        }
        if (!placed) {
          // fits no open sheet: a new one (the caller checked every copy fits an empty sheet)
          sheets.push(newSheet(area));
          place(sheets.length - 1, gi, 0, 0, shapes.find((s) => s.w <= area.cols && s.h <= area.rows)!);
        }
      }
    }
  } catch (err) {
    if (!(err instanceof Capped) || !fast) throw err;
    groups.forEach((g, gi) => {
      while (done[gi]! < g.quantity) spots.push(fastPlace(sheets, area, g, done[gi]!++));
    });
  }
  return { spots, sheets: sheets.length, lastRows: sheets[sheets.length - 1]!.usedRows };
}

/** First fit in shelves below everything on the last sheet (the wall-clock cap ran out). */
function fastPlace(sheets: Sheet[], area: NestArea, g: NestGroup, copy: number): NestSpot {
  // the turn that takes the least length, among those that fit across
  const shape = [...g.shapes].filter((s) => s.w <= area.cols && s.h <= area.rows).sort((a, b) => a.h - b.h || a.turn - b.turn)[0]!;
  let sheet = sheets[sheets.length - 1]!;
  if (sheet.shelfH === 0 && sheet.shelfX === 0) sheet.shelfY = sheet.usedRows;
  if (sheet.shelfX + shape.w > area.cols) {
    sheet.shelfY += sheet.shelfH;
    sheet.shelfX = 0;
    sheet.shelfH = 0;
  }
  if (sheet.shelfY + shape.h > area.rows) {
    sheet = newSheet(area);
    sheets.push(sheet);
  }
  const x = sheet.shelfX;
  const y = sheet.shelfY;
  // below every placed outline by construction; checked anyway, since an overlap would print designs into each other
  if (collide(sheet, shape, x, y) >= 0) throw new Error('gangsheet: fast placement overlaps');
  mark(sheet, shape, x, y);
  sheet.shelfX += shape.w;
  sheet.shelfH = Math.max(sheet.shelfH, shape.h);
  return { item: g.item, copy, sheet: sheets.length - 1, shape, x, y, fast: true };
}

/** Item orders tried: each a sort of the groups (ties by item index). */
const ORDERS: readonly ((a: NestGroup, b: NestGroup) => number)[] = [
  // largest outline first: big designs shape the sheet, small ones fill the holes
  (a, b) => b.area - a.area,
  // longest side first: the designs that leave the widest strips go down first
  (a, b) => side(b, Math.max) - side(a, Math.max),
  (a, b) => side(b, Math.min) - side(a, Math.min),
  (a, b) => b.shapes[0]!.w * b.shapes[0]!.h - a.shapes[0]!.w * a.shapes[0]!.h,
];

function side(g: NestGroup, f: (a: number, b: number) => number): number {
  return f(g.shapes[0]!.w, g.shapes[0]!.h);
}

/** A fixed pseudo-random sequence (LCG): the local search's moves are the same on every machine. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `order` with its neighbouring chunks of one item merged (equal orders then look equal). */
function merged(order: readonly Chunk[]): Chunk[] {
  const out: Chunk[] = [];
  for (const c of order) {
    const last = out[out.length - 1];
    if (last && last.g === c.g) last.count += c.count;
    else out.push({ ...c });
  }
  return out;
}

/**
 * A neighbour of `order` for the local search: one chunk moved elsewhere (an insert move), or, one time in
 * three, the later half of a chunk split off and moved (so a few copies of an item can fill holes later on).
 */
function neighbour(order: readonly Chunk[], rand: () => number): Chunk[] {
  const out = order.map((c) => ({ ...c }));
  const from = Math.floor(rand() * out.length);
  let moved: Chunk;
  if (rand() < 1 / 3 && out[from]!.count > 1) {
    const keep = Math.ceil(out[from]!.count / 2);
    moved = { g: out[from]!.g, count: out[from]!.count - keep };
    out[from]!.count = keep;
  } else {
    moved = out.splice(from, 1)[0]!;
  }
  const to = Math.floor(rand() * (out.length + 1));
  out.splice(to, 0, moved);
  return merged(out);
}

const key = (order: readonly Chunk[]): string => order.map((c) => `${c.g}x${c.count}`).join(',');

/**
 * Place every copy on as many sheets as it takes, spending at most `workBudget` probes on the search and
 * stopping it when `capMs` of wall-clock time have passed; each copy's position chosen by `rule`.
 * @example nest(groups, nestArea(22, 200, 0.25, 0.0625), { capMs: 5000, workBudget: 5e6 })
 */
export function nest(groups: readonly NestGroup[], area: NestArea, limits: { capMs: number; workBudget: number }, rule: PlacementRule = PLACEMENT): NestResult {
  const budget = limits.workBudget;
  const deadline = performance.now() + limits.capMs;
  const m: Probe = {
    work: 0,
    check: () => {
      if (performance.now() > deadline) throw new Capped();
    },
  };
  const sorted = (cmp: (a: NestGroup, b: NestGroup) => number): Chunk[] =>
    groups.map((g, i) => ({ g: i, count: g.quantity })).sort((a, b) => cmp(groups[a.g]!, groups[b.g]!) || a.g - b.g);
  // the first run always completes (by the fast path if the cap passes): it is the layout of last resort
  let bestOrder = sorted(ORDERS[0]!);
  let best: Run = run(groups, bestOrder, area, m, true, rule);
  let runs = 1;
  let capped = best.spots.some((s) => s.fast);
  const seen = new Set([key(bestOrder)]);
  const tryRun = (order: Chunk[]): void => {
    if (capped || m.work >= budget || seen.has(key(order))) return;
    seen.add(key(order));
    try {
      const r = run(groups, order, area, m, false, rule);
      runs++;
      if (better(r, best)) {
        best = r;
        bestOrder = order;
      }
    } catch (err) {
      if (!(err instanceof Capped)) throw err;
      capped = true;
    }
  };
  for (const cmp of ORDERS.slice(1)) tryRun(sorted(cmp));
  // local search from the best order: moves that shorten the layout are kept
  const rand = lcg(32);
  for (let tries = 0; !capped && m.work < budget && tries < 1000; tries++) tryRun(neighbour(bestOrder, rand));
  let spots = best.spots;
  let compaction: CompactStats | null = null;
  // then the last sheet made shorter by compaction, on a budget of its own
  if (!capped && budget > 0) {
    const c = compactLast(groups, spots, area, budget * NEST_COMPACT_WORK_PER_PROBE, lcg(33), deadline);
    spots = c.spots;
    capped = c.stats.capped;
    compaction = c.stats;
  }
  return { spots, runs, work: m.work, capped, compaction };
}

export type { Turn };

/** The last sheet's copies compacted (earlier sheets are full and stay as they are). */
function compactLast(groups: readonly NestGroup[], spots: readonly NestSpot[], area: NestArea, budget: number, rand: () => number, deadline: number): { spots: NestSpot[]; stats: CompactStats } {
  const last = Math.max(...spots.map((s) => s.sheet));
  const on = spots.filter((s) => s.sheet === last);
  const shapesOf = new Map(groups.map((g) => [g.item, g.shapes]));
  const pieces: CompactPiece[] = on.map((s) => {
    const shapes = shapesOf.get(s.item)!;
    return { shapes, turn: shapes.indexOf(s.shape), x: s.x, y: s.y };
  });
  const rowsBefore = Math.max(...on.map((s) => s.y + s.shape.h));
  const c = compact(pieces, area.cols, budget, rand, deadline);
  const moved = on.map((s, i) => {
    const p = c.pieces[i]!;
    return { ...s, shape: p.shapes[p.turn]!, x: p.x, y: p.y };
  });
  return {
    spots: [...spots.filter((s) => s.sheet !== last), ...moved],
    stats: { rowsBefore, rowsAfter: c.rows, tries: c.tries, shrinks: c.shrinks, work: c.work, capped: c.capped },
  };
}
