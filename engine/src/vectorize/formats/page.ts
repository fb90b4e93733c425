// Page geometry and number formatting shared by the PDF, EPS and DXF writers: the physical size of the
// drawing (print_width_inches, else 72 source px per inch, one px per PostScript point), which traced shapes
// are drawn (a shape with no segments is skipped, as the SVG writer skips it) and locale-free compact numbers.
import type { TraceResult, TracedShape } from '../types.js';

/** Source pixels per inch when no print width is given: one pixel per PostScript point. */
export const DEFAULT_PX_PER_INCH = 72;

/** PostScript points per inch. */
export const PT_PER_INCH = 72;

/** What every writer needs about the page. */
export interface PageOptions {
  /** Source width and height in pixels (the coordinate space of the traced paths). */
  width: number;
  height: number;
  /** Physical width in inches (height keeps the aspect ratio); omitted: 72 px per inch. */
  printWidthInches?: number;
}

/** Inches per source pixel. */
export function inchesPerPx(opts: PageOptions): number {
  if (opts.printWidthInches !== undefined && opts.printWidthInches > 0 && opts.width > 0) return opts.printWidthInches / opts.width;
  return 1 / DEFAULT_PX_PER_INCH;
}

/**
 * The shapes a writer paints, in paint order, each with its non-empty subpaths; `paths` counts them (the
 * X-Paths header: closed outlines), `colorsUsed` the distinct labels painted. Matches the SVG writer's counts.
 */
export function drawnShapes(result: TraceResult): { shapes: TracedShape[]; paths: number; colorsUsed: number } {
  const shapes: TracedShape[] = [];
  const used = new Set<number>();
  let paths = 0;
  for (const s of result.shapes) {
    const subpaths = s.subpaths.filter((sp) => sp.segs.length > 0);
    if (subpaths.length === 0) continue;
    shapes.push({ label: s.label, subpaths });
    paths += subpaths.length;
    used.add(s.label);
  }
  return { shapes, paths, colorsUsed: used.size };
}

/**
 * `v` with at most `digits` decimals, trailing zeros dropped, never `-0`; the leading zero is dropped too
 * (`0.5` -> `.5`, valid PDF and PostScript) unless `leadingZero` (DXF: some cutter software reads only `0.5`).
 */
export function num(v: number, digits: number, leadingZero = false): string {
  let s = v.toFixed(digits);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  if (s === '-0' || s === '') return '0';
  if (leadingZero) return s;
  if (s.startsWith('0.')) return s.slice(1);
  if (s.startsWith('-0.')) return '-' + s.slice(2);
  return s;
}
