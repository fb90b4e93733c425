// From the decoded designs and the resolved options to placements: print sizes, per-item checks (a design
// index with no file, a design that fits the sheet in no allowed turn: `invalid_option` naming the item;
// art under 150 DPI at its print size: a warning), the outlines, the nesting order and the manifest numbers.
import { invalidOption } from '../errors.js';
import { DPI_ERROR } from '../print/resolution.js';
import type { Raster } from '../raster/types.js';
import type { UnderbaseWarning } from '../underbase/report.js';
import { nest, nestArea, NEST_PROBES_PER_MS, type NestGroup } from './nest.js';
import type { ResolvedGangsheet } from './options.js';
import type { GangPlacement } from './place.js';
import { itemShape, turnShape, turnsOf, NEST_CELLS_PER_IN } from './shapes.js';

/** A per-item warning (the sheet is still made): low resolution, or one of the white layer's underbase checks. */
export interface GangWarning {
  code: 'low_resolution' | 'unused_design' | UnderbaseWarning['code'];
  /** Index in `items` (every code but unused_design). */
  item?: number;
  /** Index of the design file no item uses (unused_design). */
  design?: number;
  message: string;
  /** The art's resolution at its print size (every code but unused_design). */
  dpi?: number;
  /** The white layer's warnings: how many separate regions the check found in the design. */
  regions?: number;
}

/** What made the white layer (the manifest's `white`): underbase's options and the white ink used. */
export interface GangWhiteReport {
  spotName: string;
  garmentColor: string | null;
  /** `style:color` when the garment colour came from the catalog. */
  garmentSource: string | null;
  knockout: 'none' | 'black' | 'garment';
  chokeMm: number;
  knockoutTolerance: number;
  whiteDensity: number;
  highlightWhite: number;
  fixed: 'alpha_threshold' | 'halftone' | null;
  /** Plate sets made: one per design and print size. */
  plateSets: number;
  /** White ink over every copy on every sheet, density-weighted square inches. */
  whiteInkSqIn: number;
}

/** One sheet of the job. */
export interface GangSheet {
  index: number;
  widthIn: number;
  /** Length to cut: the lowest ink plus the margin, rounded up to 0.01 in. */
  lengthIn: number;
  copies: number;
  /** Ink-bearing area (alpha > 0) on this sheet, square inches. */
  inkSqIn: number;
  /** inkSqIn over the sheet's area (0..1). */
  utilisation: number;
}

/** The layout of a job: every copy's place, the sheets and the numbers. */
export interface GangLayout {
  sheets: GangSheet[];
  placements: GangPlacement[];
  /** Ink area over all sheets' area (0..1). */
  utilisation: number;
  inkSqIn: number;
  /** Sum over copies of the ink grown by half the spacing: the area no layout can go under (square inches). */
  grownSqIn: number;
  /** Copies placed by the fast path after the time budget ran out (0 when the search finished). */
  fastPlaced: number;
  /**
   * True when the time budget (the wall-clock cap) cut the search short: the layout may then differ from run to
   * run with the machine's load. False: the work budget alone bounded it, and the same input gives this layout.
   */
  searchCapped: boolean;
  /** The highest art resolution at print size among the items (the PNG's, capped at 300). */
  maxDpi: number;
  warnings: GangWarning[];
  /** The white layer, when asked for (set by the op once the plates are made); null without it. */
  white: GangWhiteReport | null;
}

const round = (v: number, d = 4) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * Nest `opts.items` made from `designs` (decoded, in file order) on sheets. `capMs` (default the time budget)
 * is the wall-clock cap alone, for the bench: the work budget stays `opts.timeBudgetMs` x NEST_PROBES_PER_MS.
 * @example layoutGangsheet([logo], resolveGangsheet({ items: [{ design: 0, quantity: 5, widthIn: 3 }] }))
 */
export function layoutGangsheet(designs: readonly Raster[], opts: ResolvedGangsheet, capMs = opts.timeBudgetMs): GangLayout {
  const half = opts.spacingIn / 2;
  const area = nestArea(opts.sheetWidthIn, opts.maxLengthIn, opts.marginIn, half);
  const warnings: GangWarning[] = [];
  let maxDpi = 0;
  const prepared = opts.items.map((item, i) => {
    const r = designs[item.design];
    if (!r) throw invalidOption(`items[${i}].design`, `the index of one of the ${designs.length} design files (0-${designs.length - 1})`, item.design);
    const widthIn = item.widthIn ?? (item.heightIn! * r.width) / r.height;
    const heightIn = item.heightIn ?? (item.widthIn! * r.height) / r.width;
    const dpi = r.width / widthIn;
    maxDpi = Math.max(maxDpi, dpi);
    if (dpi < DPI_ERROR) {
      warnings.push({ code: 'low_resolution', item: i, dpi: Math.round(dpi), message: `Item ${i}: the art is ${Math.round(dpi)} DPI at ${round(widthIn, 2)} in wide, under the ${DPI_ERROR} DPI a DTF print needs; it will print soft or jagged` });
    }
    const shape = itemShape(r, widthIn, heightIn, opts.spacingIn);
    const turns = turnsOf(item.rotation ?? opts.rotation).map((t) => turnShape(shape, t)).filter((s) => s.w <= area.cols && s.h <= area.rows);
    if (turns.length === 0) {
      const field = item.widthIn !== undefined ? 'width_in' : 'height_in';
      throw invalidOption(`items[${i}].${field}`,
        `a print size that fits the ${opts.sheetWidthIn} x ${opts.maxLengthIn} in sheet inside its margins and spacing in an allowed turn (the art would be ${round(widthIn, 2)} x ${round(heightIn, 2)} in)`,
        item.widthIn ?? item.heightIn);
    }
    return { item, i, widthIn, heightIn, shape, turns };
  });
  // a file no item names is most likely a mis-indexed `items` (one design printed twice, another never)
  const named = new Set(opts.items.map((it) => it.design));
  for (let d = 0; d < designs.length; d++) {
    if (!named.has(d)) warnings.push({ code: 'unused_design', design: d, message: `Design ${d}: no item uses this file (items name designs by their 0-based index in the order sent); check items[].design` });
  }
  const groups: NestGroup[] = prepared.map((p) => ({ item: p.i, quantity: p.item.quantity, shapes: p.turns, area: p.shape.grownSqIn }));
  const { spots, capped } = nest(groups, area, { capMs, workBudget: opts.timeBudgetMs * NEST_PROBES_PER_MS });
  const origin = opts.marginIn - half; // inches from the sheet's edge to the grid's first cell
  const placements: GangPlacement[] = spots.map((s) => ({
    item: s.item,
    copy: s.copy,
    design: prepared[s.item]!.item.design,
    sheet: s.sheet,
    xIn: round(origin + (s.x + s.shape.artX) / NEST_CELLS_PER_IN),
    yIn: round(origin + (s.y + s.shape.artY) / NEST_CELLS_PER_IN),
    widthIn: round(s.shape.boxWidthIn),
    heightIn: round(s.shape.boxHeightIn),
    rotation: s.shape.turn,
  }));
  // each copy's lowest ink (its outline's ink bounds, conservative), where the sheet is cut: art with
  // transparent edges would otherwise lengthen the sheet by its empty bottom rows
  const inkBottom = new Map(spots.map((s) => [`${s.item}:${s.copy}`, origin + (s.y + s.shape.inkBottom) / NEST_CELLS_PER_IN]));
  placements.sort((a, b) => a.sheet - b.sheet || a.item - b.item || a.copy - b.copy);
  const sheetCount = Math.max(...placements.map((p) => p.sheet)) + 1;
  const sheets: GangSheet[] = [];
  for (let k = 0; k < sheetCount; k++) {
    const on = placements.filter((p) => p.sheet === k);
    const bottom = Math.max(...on.map((p) => inkBottom.get(`${p.item}:${p.copy}`)!));
    const lengthIn = Math.min(opts.maxLengthIn, Math.ceil((bottom + opts.marginIn) * 100 - 1e-6) / 100);
    const ink = on.reduce((s, p) => s + prepared[p.item]!.shape.inkSqIn, 0);
    sheets.push({ index: k, widthIn: opts.sheetWidthIn, lengthIn, copies: on.length, inkSqIn: round(ink, 3), utilisation: round(ink / (opts.sheetWidthIn * lengthIn)) });
  }
  const ink = placements.reduce((s, p) => s + prepared[p.item]!.shape.inkSqIn, 0);
  const film = sheets.reduce((s, k) => s + k.widthIn * k.lengthIn, 0);
  return {
    sheets,
    placements,
    utilisation: round(ink / film),
    inkSqIn: round(ink, 3),
    grownSqIn: round(placements.reduce((s, p) => s + prepared[p.item]!.shape.grownSqIn, 0), 3),
    fastPlaced: spots.filter((s) => s.fast).length,
    searchCapped: capped,
    maxDpi: round(maxDpi, 2),
    warnings,
    white: null,
  };
}

/** The manifest as the API writes it (snake_case, as the contract's other answers). */
export function manifestJson(l: GangLayout): Record<string, unknown> {
  return {
    sheets: l.sheets.map((s) => ({ index: s.index, width_in: s.widthIn, length_in: s.lengthIn, copies: s.copies, ink_sq_in: s.inkSqIn, utilisation: s.utilisation })),
    utilisation: l.utilisation,
    ink_sq_in: l.inkSqIn,
    fast_placed: l.fastPlaced,
    search_capped: l.searchCapped,
    placements: l.placements.map((p) => ({ item: p.item, copy: p.copy, design: p.design, sheet: p.sheet, x_in: p.xIn, y_in: p.yIn, width_in: p.widthIn, height_in: p.heightIn, rotation: p.rotation })),
    warnings: l.warnings.map((w) => ({
      code: w.code,
      ...(w.item !== undefined ? { item: w.item } : {}),
      ...(w.design !== undefined ? { design: w.design } : {}),
      ...(w.dpi !== undefined ? { dpi: w.dpi } : {}),
      message: w.message,
      ...(w.regions !== undefined ? { regions: w.regions } : {}),
    })),
    white: l.white && {
      spot_name: l.white.spotName,
      garment_color: l.white.garmentColor,
      garment_source: l.white.garmentSource,
      knockout: l.white.knockout,
      choke_mm: l.white.chokeMm,
      knockout_tolerance: l.white.knockoutTolerance,
      white_density: l.white.whiteDensity,
      highlight_white: l.white.highlightWhite,
      fixed: l.white.fixed,
      plate_sets: l.white.plateSets,
      white_ink_sq_in: l.white.whiteInkSqIn,
    },
  };
}
