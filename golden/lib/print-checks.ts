// Print-readiness measurements of fix output, shared by the round-trip tests and the `fix-print` bench:
// halftone dot sizes and shapes, coverage, colour of the hard edge next to transparency, and the
// scan -> apply suggestions -> fix -> scan round trip as a client of POST /scan and POST /fix would run it.
import { textOptions, type Engine, type Raster, type ScanReport } from '@inkprep/engine';
import { deltaE76, labelRuns, rgbToLab } from '@inkprep/engine/internals';
import type { RGB } from './customer-art.js';

export interface DotStats {
  /** Dots (8-connected opaque components not touching the border) counted. */
  dots: number;
  onePx: number;
  twoPx: number;
  /** Dots narrower than `minSide` px in width or height (too small to hold on film). */
  belowMin: number;
  /** Share of the separate dots (area <= maxArea) that are round: at least `minSide` px across, bounding box square within 1 px, filled 60-100 %. */
  roundShare: number;
  /** Share of the canvas that is opaque. */
  coverage: number;
}

/** Dot statistics of a binary halftone (opaque = ink). `maxArea`: larger components are merged dots, skipped for roundness. */
export function dotStats(r: Raster, minSide: number, maxArea = Infinity): DotStats {
  const cc = labelRuns({ data: r.data, width: r.width, height: r.height, stride: 4, offset: 3, min: 255 }, 8);
  let dots = 0, onePx = 0, twoPx = 0, belowMin = 0, separate = 0, round = 0;
  for (let c = 0; c < cc.count; c++) {
    if (cc.touchesBorder[c]) continue;
    dots++;
    const a = cc.area[c]!;
    const bw = cc.maxX[c]! - cc.minX[c]!;
    const bh = cc.maxY[c]! - cc.minY[c]!;
    if (a === 1) onePx++;
    if (a === 2) twoPx++;
    if (Math.min(bw, bh) < minSide) belowMin++;
    if (a <= maxArea) {
      separate++;
      const fill = a / (bw * bh);
      if (Math.min(bw, bh) >= minSide && Math.abs(bw - bh) <= 1 && fill >= 0.6) round++;
    }
  }
  let on = 0;
  for (let i = 3; i < r.data.length; i += 4) if (r.data[i] === 255) on++;
  return { dots, onePx, twoPx, belowMin, roundShare: separate ? round / separate : 1, coverage: on / (r.width * r.height) };
}

/** Mean alpha / 255 of a raster (the coverage a halftone should reproduce). */
export function meanAlpha(r: Raster): number {
  let s = 0;
  for (let i = 3; i < r.data.length; i += 4) s += r.data[i]!;
  return s / 255 / (r.width * r.height);
}

export interface EdgeColourStats {
  /** Opaque pixels with a transparent 4-neighbour. */
  edge: number;
  /** Share of them farther than RGB 40 from the art colour. */
  offRgb40: number;
  /** Share of them farther than CIE76 ΔE 10 from the art colour. */
  offDeltaE10: number;
  /** Any pixel with 0 < alpha < 255. */
  semi: number;
}

/** How far the hard edge of one-colour art is from the art colour `rgb`. */
export function edgeColour(r: Raster, rgb: RGB): EdgeColourStats {
  const { width: w, height: h, data } = r;
  const ref = rgbToLab(rgb[0], rgb[1], rgb[2]);
  let edge = 0, off40 = 0, off10 = 0, semi = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const a = data[p * 4 + 3]!;
      if (a !== 0 && a !== 255) semi++;
      if (a !== 255) continue;
      const t = (q: number): boolean => data[q * 4 + 3] === 0;
      if (!((x > 0 && t(p - 1)) || (x < w - 1 && t(p + 1)) || (y > 0 && t(p - w)) || (y < h - 1 && t(p + w)))) continue;
      edge++;
      const i = p * 4;
      if (Math.hypot(data[i]! - rgb[0], data[i + 1]! - rgb[1], data[i + 2]! - rgb[2]) > 40) off40++;
      const lab = rgbToLab(data[i]!, data[i + 1]!, data[i + 2]!);
      if (deltaE76(lab[0], lab[1], lab[2], ref[0], ref[1], ref[2]) > 10) off10++;
    }
  }
  return { edge, offRgb40: edge ? off40 / edge : 0, offDeltaE10: edge ? off10 / edge : 0, semi };
}

export interface RoundTrip {
  before: ScanReport;
  fields: Record<string, string>;
  width: number;
  height: number;
  png: Uint8Array;
  /** Print width of the fixed file (its width / the DPI fix wrote). */
  printWidthAfter: number;
  after: ScanReport;
}

/**
 * scan -> send its suggestions to fix as form fields -> scan the fixed PNG at its own print width (width /
 * the DPI fix wrote: a trim keeps the art's printed size, a resize changes the DPI, not the size).
 */
export async function roundTrip(engine: Engine, png: Uint8Array, printWidthInches: number): Promise<RoundTrip> {
  // The scan's suggestions are POST /fix form fields (text), applied as a client would send them.
  const before = await engine.scan(png.slice(), { print_width_inches: printWidthInches });
  const fields = Object.fromEntries(before.suggestions.map((s) => [s.field, s.value]));
  const fixed = await engine.fix(png.slice(), textOptions(fields));
  const printWidthAfter = fields.print_width_inches ? fixed.width / fixed.dpi : (printWidthInches * fixed.width) / before.width;
  const after = await engine.scan(fixed.data.slice(), { print_width_inches: printWidthAfter });
  return { before, fields, width: fixed.width, height: fixed.height, png: fixed.data, printWidthAfter, after };
}

/** Issue codes of a report, with severity: `code:severity`. */
export const issueList = (s: ScanReport): string[] => s.issues.map((i) => `${i.code}:${i.severity}`);
