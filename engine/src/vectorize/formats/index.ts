// Output formats of `vectorize` (spec 4.8 `output_format`): the traced shapes written as SVG (svg/), PDF, EPS
// or DXF (this folder), with the MIME type each is served with. One entry point picks the writer.
import type { Fill, TraceResult } from '../types.js';
import { writeSvg } from '../svg/index.js';
import { writeDxf, type DxfUnits } from './dxf.js';
import { writeEps } from './eps.js';
import { writePdf } from './pdf.js';

export { writePdf, type PdfResult } from './pdf.js';
export { writeEps, type EpsResult } from './eps.js';
export { writeDxf, nearestAci, layerName, type DxfUnits, type DxfOptions, type DxfResult } from './dxf.js';
export { DEFAULT_PX_PER_INCH } from './page.js';

/** `output_format` values; `svg` is the default. */
export const VECTOR_FORMATS = ['svg', 'pdf', 'eps', 'dxf'] as const;
/** A document format `vectorize` writes (`output_format`): `svg`, `pdf`, `eps` or `dxf`. */
export type VectorFormat = (typeof VECTOR_FORMATS)[number];

/** `dxf_units` values; `in` is the default. */
export const DXF_UNITS = ['in', 'mm'] as const;

/** The Content-Type each format is served with. */
export const CONTENT_TYPES: Readonly<Record<VectorFormat, string>> = Object.freeze({
  svg: 'image/svg+xml; charset=utf-8',
  pdf: 'application/pdf',
  eps: 'application/postscript',
  dxf: 'image/vnd.dxf',
});

export interface DocumentOptions {
  width: number;
  height: number;
  printWidthInches?: number;
  /** DXF only. */
  dxfUnits: DxfUnits;
}

/** One document in `format`: its bytes (text formats as UTF-8) and the outline and colour counts. */
export function writeDocument(format: VectorFormat, result: TraceResult, fills: readonly Fill[], layerRgb: readonly (readonly [number, number, number])[], opts: DocumentOptions): { data: Uint8Array; paths: number; colorsUsed: number } {
  const page = { width: opts.width, height: opts.height, ...(opts.printWidthInches !== undefined ? { printWidthInches: opts.printWidthInches } : {}) };
  const text = (s: string) => new TextEncoder().encode(s);
  switch (format) {
    case 'svg': {
      const r = writeSvg(result, fills as Fill[], page);
      return { data: text(r.svg), paths: r.paths, colorsUsed: r.colorsUsed };
    }
    case 'pdf': {
      const r = writePdf(result, fills, page);
      return { data: r.pdf, paths: r.paths, colorsUsed: r.colorsUsed };
    }
    case 'eps': {
      const r = writeEps(result, fills, page);
      return { data: text(r.eps), paths: r.paths, colorsUsed: r.colorsUsed };
    }
    case 'dxf': {
      const r = writeDxf(result, layerRgb, { ...page, units: opts.dxfUnits });
      return { data: text(r.dxf), paths: r.paths, colorsUsed: r.colorsUsed };
    }
  }
}
