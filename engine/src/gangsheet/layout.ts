// From the decoded designs and the resolved options to placements: print sizes, per-item checks (a design
// index with no file, a design that fits the sheet in no allowed turn: `invalid_option` naming the item;
// art under 150 DPI at its print size: a warning), the outlines, the nesting order and the manifest numbers.
// The nesting works on each file's outline as before; each copy's box is then its design cut to its ink
// (trim.ts), so every placement box lies on the sheet inside the margins, and the outputs draw the cut art.
import { invalidOption } from '../errors.js';
import { DPI_ERROR } from '../print/resolution.js';
import type { Raster } from '../raster/types.js';
import type { UnderbaseWarning } from '../underbase/report.js';
import { nest, nestArea, NEST_PROBES_PER_MS, type NestGroup } from './nest.js';
import type { ResolvedGangsheet } from './options.js';
import { turnedRect, type GangPlacement, type InchRect } from './place.js';
import { itemShape, turnShape, turnsOf, NEST_CELLS_PER_IN } from './shapes.js';
import type { Box } from '../raster/trim.js';
import { inkBox } from './trim.js';

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

/**
 * What an item prints: its design file's print size, and the part of the file each copy places, draws and
 * embeds (the file cut to its ink: the box of its pixels with alpha > 0).
 */
export interface GangItemArt {
  /** Index in `items`. */
  item: number;
  /** Design file index. */
  design: number;
  /** The design file's print size, inches: the item's `width_in` (or `height_in`) and the file's aspect. */
  widthIn: number;
  heightIn: number;
  /**
   * The art placed: the file's ink box, unturned, in inches from the file's top-left at the print size, and in
   * the file's pixels. The whole file when it has no transparent edge; its top-left pixel when it has no ink at all.
   */
  art: { xIn: number; yIn: number; widthIn: number; heightIn: number; px: { x: number; y: number; width: number; height: number } };
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
  /** Per item (in `items` order): the design file's print size and the art its copies place. */
  items: GangItemArt[];
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
  const inkOf = new Map<number, Box>(); // per design file, found once
  const prepared = opts.items.map((item, i) => {
    const r = designs[item.design];
    if (!r) throw invalidOption(`items[${i}].design`, `the index of one of the ${designs.length} design files (0-${designs.length - 1})`, item.design);
    const px = inkOf.get(item.design) ?? inkBox(r);
    inkOf.set(item.design, px);
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
    // the ink box in inches, as fractions of the file (the whole file gives exactly 0, 0, widthIn, heightIn)
    const art: InchRect = { x: widthIn * (px.x / r.width), y: heightIn * (px.y / r.height), w: widthIn * (px.width / r.width), h: heightIn * (px.height / r.height) };
    return { item, i, widthIn, heightIn, shape, turns, px, art };
  });
  // a file no item names is most likely a mis-indexed `items` (one design printed twice, another never)
  const named = new Set(opts.items.map((it) => it.design));
  for (let d = 0; d < designs.length; d++) {
    if (!named.has(d)) warnings.push({ code: 'unused_design', design: d, message: `Design ${d}: no item uses this file (items name designs by their 0-based index in the order sent); check items[].design` });
  }
  const groups: NestGroup[] = prepared.map((p) => ({ item: p.i, quantity: p.item.quantity, shapes: p.turns, area: p.shape.grownSqIn }));
  const { spots, capped } = nest(groups, area, { capMs, workBudget: opts.timeBudgetMs * NEST_PROBES_PER_MS });
  const origin = opts.marginIn - half; // inches from the sheet's edge to the grid's first cell
  const placements: GangPlacement[] = spots.map((s) => {
    const p = prepared[s.item]!;
    // the art's box inside the file's turned box, whose top-left the nesting placed
    const a = turnedRect(s.shape.turn, p.widthIn, p.heightIn, p.art);
    return {
      item: s.item,
      copy: s.copy,
      design: p.item.design,
      sheet: s.sheet,
      xIn: round(origin + (s.x + s.shape.artX) / NEST_CELLS_PER_IN + a.x),
      yIn: round(origin + (s.y + s.shape.artY) / NEST_CELLS_PER_IN + a.y),
      widthIn: round(a.w),
      heightIn: round(a.h),
      rotation: s.shape.turn,
    };
  });
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
    // The ink keeps the margin (the outlines, grown by half the spacing, stay in the nesting area, and the ink's
    // box lies within its grown outline), so the art's box does too, up to the 0.0001 in rounding: a box the
    // rounding put past a margin is moved back by that much
    for (const p of on) {
      p.xIn = round(Math.max(opts.marginIn, Math.min(opts.sheetWidthIn - opts.marginIn - p.widthIn, p.xIn)));
      p.yIn = round(Math.max(opts.marginIn, Math.min(lengthIn - opts.marginIn - p.heightIn, p.yIn)));
    }
  }
  const ink = placements.reduce((s, p) => s + prepared[p.item]!.shape.inkSqIn, 0);
  const film = sheets.reduce((s, k) => s + k.widthIn * k.lengthIn, 0);
  return {
    sheets,
    placements,
    items: prepared.map((p) => ({
      item: p.i, design: p.item.design, widthIn: round(p.widthIn), heightIn: round(p.heightIn),
      art: { xIn: round(p.art.x), yIn: round(p.art.y), widthIn: round(p.art.w), heightIn: round(p.art.h), px: { ...p.px } },
    })),
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
    items: l.items.map((it) => ({
      item: it.item, design: it.design, width_in: it.widthIn, height_in: it.heightIn,
      art: { x_in: it.art.xIn, y_in: it.art.yIn, width_in: it.art.widthIn, height_in: it.art.heightIn, x_px: it.art.px.x, y_px: it.art.px.y, width_px: it.art.px.width, height_px: it.art.px.height },
    })),
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
