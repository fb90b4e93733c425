// The numbers a shop prices and checks an underbase with, and the warnings, from the plates and the checks.
import type { NarrowRegions, PixelBox } from './checks.js';
import { MIN_KNOCKOUT_GAP_PT, MIN_WHITE_LINE_PT } from './checks.js';
import { COLOUR, KNOCKED, NO_INK, WHITE_ONLY, type PlateSet } from './plates.js';

/**
 * `nothing_to_print` when under this share (percent) of the art's ink (inked pixels weighted by alpha) still
 * prints after the knock-out. Measured on the corpus on the catalog's colours (docs/benchmarks/underbase.md):
 * art the shirt swallows prints 0.00-0.02 % of its ink at 300-2000 px, the lowest printable art 13 %. Ink, not
 * pixels: the faint anti-aliased rim of art in the shirt's colour rounds to other colours and prints, about 1 %
 * of the pixels at 300 px.
 */
export const NOTHING_TO_PRINT_PERCENT = 1;

/** Ink areas in square inches at the print size, and the white's share of the print area. */
export interface UnderbaseStats {
  printWidthInches: number;
  printHeightInches: number;
  /** White ink, weighted by its density (a 50 % white square inch counts half). */
  whiteInkSqIn: number;
  /** Process (colour) ink, weighted by the art's alpha. */
  colourInkSqIn: number;
  /** Art printed with white ink alone. */
  whiteOnlySqIn: number;
  /** Art knocked out (no ink: the garment shows). */
  knockedOutSqIn: number;
  /** whiteInkSqIn over the print area, percent. */
  whiteCoveragePercent: number;
}

/** A stable code, one sentence, and where: how many regions, their pixels, the largest regions' boxes. */
export interface UnderbaseWarning {
  code: 'nothing_to_print' | 'white_too_thin' | 'knockout_gap_too_narrow' | 'semi_transparent_pixels';
  message: string;
  count: number;
  pixels: number;
  boxes: PixelBox[];
}

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

export function underbaseStats(p: PlateSet): UnderbaseStats {
  const perSqIn = 1 / (p.dpi * p.dpi);
  let white = 0;
  let colour = 0;
  let whiteOnly = 0;
  let knocked = 0;
  const px = p.colour.data;
  for (let i = 0; i < p.white.length; i++) {
    white += p.white[i]!;
    const c = p.classes[i]!;
    if (c === COLOUR) colour += px[i * 4 + 3]!;
    else if (c === WHITE_ONLY) whiteOnly++;
    else if (c === KNOCKED) knocked++;
  }
  const area = p.width * p.height * perSqIn;
  const whiteSqIn = (white / 255) * perSqIn;
  return {
    printWidthInches: round(p.width / p.dpi),
    printHeightInches: round(p.height / p.dpi),
    whiteInkSqIn: round(whiteSqIn),
    colourInkSqIn: round((colour / 255) * perSqIn),
    whiteOnlySqIn: round(whiteOnly * perSqIn),
    knockedOutSqIn: round(knocked * perSqIn),
    whiteCoveragePercent: area > 0 ? round((whiteSqIn / area) * 100, 2) : 0,
  };
}

/**
 * The art's inked pixels (alpha > 0), those that still print (colour or white-only), the share of the art's ink
 * (pixels weighted by alpha) that still prints, percent, and the inked pixels' bounding box
 * (inclusive-exclusive), or null when the art has none. Exported for the threshold's study
 * (bench/tools/underbase-nothing-to-print.ts).
 */
export function printedShare(p: PlateSet): { inked: number; printed: number; inkPercent: number; box: PixelBox | null } {
  let inked = 0, printed = 0;
  let x0 = p.width, y0 = p.height, x1 = -1, y1 = -1;
  for (let i = 0; i < p.classes.length; i++) {
    const c = p.classes[i]!;
    if (c === NO_INK) continue;
    inked++;
    if (c !== KNOCKED) printed++;
    const x = i % p.width, y = (i - x) / p.width;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  const inkPercent = p.inkAlpha.inked > 0 ? (p.inkAlpha.printed / p.inkAlpha.inked) * 100 : 0;
  return { inked, printed, inkPercent, box: x1 < 0 ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 } };
}

/** `nothing_to_print` when the art has no ink, or the knock-out leaves under NOTHING_TO_PRINT_PERCENT of it. */
function nothingToPrint(p: PlateSet): UnderbaseWarning | null {
  const { inked, printed, inkPercent, box } = printedShare(p);
  if (inked === 0) {
    return { code: 'nothing_to_print', message: 'The art has no opaque pixels: the film would be empty; check the file (a transparent export?)', count: 1, pixels: 0, boxes: [] };
  }
  if (inkPercent >= NOTHING_TO_PRINT_PERCENT) return null;
  return {
    code: 'nothing_to_print',
    message: `${inked - printed} of the art's ${inked} inked pixels are knocked out (they match the garment colour or black within knockout_tolerance), leaving ${round(inkPercent, 2)} % of its ink (under ${NOTHING_TO_PRINT_PERCENT} %) to print: the film would be all but empty; send knockout=none, a lower knockout_tolerance, or art in a colour that contrasts with the garment`,
    count: 1,
    pixels: inked - printed,
    boxes: box ? [box] : [],
  };
}

export function underbaseWarnings(p: PlateSet, thin: NarrowRegions, gaps: NarrowRegions): UnderbaseWarning[] {
  const out: UnderbaseWarning[] = [];
  const empty = nothingToPrint(p);
  if (empty) out.push(empty);
  if (thin.count > 0) {
    out.push({
      code: 'white_too_thin',
      message: `${thin.count} white area${thin.count > 1 ? 's are' : ' is'} narrower than ${MIN_WHITE_LINE_PT} pt (${round(MIN_WHITE_LINE_PT / 72, 3)} in) after the choke and may not hold on the film; thicken the art there or lower choke_mm`,
      ...thin,
    });
  }
  if (gaps.count > 0) {
    out.push({
      code: 'knockout_gap_too_narrow',
      message: `${gaps.count} knocked-out gap${gaps.count > 1 ? 's are' : ' is'} narrower than ${MIN_KNOCKOUT_GAP_PT} pt and will fill in; widen them in the art or use knockout=none`,
      ...gaps,
    });
  }
  if (p.semiTransparent > 0) {
    out.push({
      code: 'semi_transparent_pixels',
      message: `${p.semiTransparent} semi-transparent pixels get a white in proportion to their alpha, which prints unevenly; send fix_halftone=true or fix_alpha_threshold=true`,
      count: 1,
      pixels: p.semiTransparent,
      boxes: p.semiBox ? [p.semiBox] : [],
    });
  }
  return out;
}
