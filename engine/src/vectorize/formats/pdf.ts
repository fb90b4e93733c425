// PDF writer for traced shapes: one page whose MediaBox is the physical size of the art (print width, else
// 72 px per inch: one source pixel per point), the content stream in source pixels under one
// `s 0 0 -s 0 H cm` (PDF's origin is bottom-left, the tracer's top-left), RGB fills in DeviceRGB, gradient
// fills as shadings, transparent pixels simply unpainted (no page background is drawn). The content stream is
// Flate-compressed; no metadata, so the bytes are a pure function of the input. Pages larger than 200 in
// (14,400 pt, the largest MediaBox PDF readers accept) use a /UserUnit (PDF 1.6).
import { deflateSync } from 'node:zlib';
import type { Fill, TraceResult } from '../types.js';
import { drawnShapes, inchesPerPx, num, PT_PER_INCH, type PageOptions } from './page.js';
import { paintOps } from './postscript.js';
import { serializePdf, type PdfObject } from '../../pdf/serialize.js';

/** Largest page side in default units that PDF readers accept (Acrobat's implementation limit). */
const MAX_PAGE_UNITS = 14400;

export interface PdfResult {
  pdf: Uint8Array;
  paths: number;
  colorsUsed: number;
}

/**
 * Writes a one-page PDF painting `result` with `fills` (shape `s` takes `fills[s.label]`).
 * @example writePdf(trace, fills, { width: 1024, height: 768, printWidthInches: 10 }) // 720 x 540 pt page
 */
export function writePdf(result: TraceResult, fills: readonly Fill[], opts: PageOptions): PdfResult {
  const { shapes, paths, colorsUsed } = drawnShapes(result);
  const ptPerPx = inchesPerPx(opts) * PT_PER_INCH;
  const wPt = opts.width * ptPerPx, hPt = opts.height * ptPerPx;
  const userUnit = Math.max(wPt, hPt) > MAX_PAGE_UNITS ? Math.ceil(Math.max(wPt, hPt) / MAX_PAGE_UNITS) : 1;
  const s = ptPerPx / userUnit;
  const shadings: string[] = [];
  const shadingName = new Map<number, string>();
  const body = paintOps(shapes, fills, (label, dict) => {
    let name = shadingName.get(label);
    if (name === undefined) {
      name = `/Sh${shadings.length}`;
      shadingName.set(label, name);
      shadings.push(`${name} ${dict}`);
    }
    return name;
  });
  const content = deflateSync(Buffer.from(`${num(s, 6)} 0 0 ${num(-s, 6)} 0 ${num(hPt / userUnit, 3)} cm\n${body}`, 'latin1'), { level: 9 });
  const resources = shadings.length ? `/Resources << /Shading << ${shadings.join(' ')} >> >>` : '/Resources << >>';
  const box = `[0 0 ${num(wPt / userUnit, 3)} ${num(hPt / userUnit, 3)}]`;
  const objects: PdfObject[] = [
    ['<< /Type /Catalog /Pages 2 0 R >>'],
    ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [`<< /Type /Page /Parent 2 0 R /MediaBox ${box}${userUnit > 1 ? ` /UserUnit ${userUnit}` : ''} ${resources} /Contents 4 0 R >>`],
    [`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, content, '\nendstream'],
  ];
  const pdf = serializePdf(objects, userUnit > 1 ? '1.6' : '1.4');
  return { pdf, paths, colorsUsed };
}
