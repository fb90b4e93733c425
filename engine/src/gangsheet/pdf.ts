// The gang sheet as a PDF: one page per sheet at its exact size (roll width x length used), each design
// embedded once as an RGB image with its alpha as a soft mask, and drawn once per copy with a `cm` matrix
// (the turn included). A sheet of 200 copies of 10 designs weighs about the 10 images.
// With the white layer, each plate set is embedded as the underbase PDF embeds its one (underbase/pdf.ts): the
// colour plate cut by a 1-bit mask and the white plate in the Separation colour space, both painted with
// overprint, every white before any colour; each set embedded once and drawn with the same matrix as its copies.
// The white images carry a colour-key mask (no white = not painted): the copies' boxes overlap when nested.
import { deflateSync } from 'node:zlib';
import { serializePdf, type PdfObject } from '../pdf/serialize.js';
import type { Raster } from '../raster/types.js';
import { OVERPRINT_GS, WHITE_TINT_FUNCTION, separationImages } from '../underbase/pdf.js';
import type { PlateSet } from '../underbase/plates.js';
import { imageToSheet, type GangPlacement } from './place.js';

/** The white layer of a gang sheet PDF: plate sets, which one a placement draws, and the spot's name. */
export interface GangPdfWhite {
  spotName: string;
  plates: readonly PlateSet[];
  /** Index in `plates` of a placement's plate set. */
  plateOf(p: GangPlacement): number;
}

/** Largest page side in default units that PDF readers accept (Acrobat's implementation limit). */
const MAX_PAGE_UNITS = 14400;

function fmt(v: number): string {
  return String(Math.round(v * 10000) / 10000);
}

/**
 * The PDF of `sheets` (lengths in inches) with `placements`; `designs[k]` is design k's pixels (null when unused).
 * With `white`, the art drawn is the plate sets' (colour with the knock-out, and the White separation).
 */
export function writeGangPdf(widthIn: number, lengthsIn: readonly number[], placements: readonly GangPlacement[], designs: readonly (Raster | null)[], white?: GangPdfWhite): Uint8Array {
  const objects: PdfObject[] = [['<< /Type /Catalog /Pages 2 0 R >>'], ['']];
  const imageObj = new Map<number, number>();
  // white layer: plate set k is /C<k> (colour, object imageObj[k]) and /W<k> (the separation, two objects on)
  const tintId = white ? objects.length + 1 : 0;
  if (white) {
    objects.push(WHITE_TINT_FUNCTION);
    white.plates.forEach((p, k) => {
      const id = objects.length + 1;
      imageObj.set(k, id);
      objects.push(...separationImages(p, white.spotName, id, tintId, true));
    });
  }
  designs.forEach((r, k) => {
    if (!r || white) return;
    const n = r.width * r.height;
    const rgb = new Uint8Array(n * 3);
    const alpha = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      rgb[i * 3] = r.data[i * 4]!;
      rgb[i * 3 + 1] = r.data[i * 4 + 1]!;
      rgb[i * 3 + 2] = r.data[i * 4 + 2]!;
      alpha[i] = r.data[i * 4 + 3]!;
    }
    const rgbZ = deflateSync(rgb, { level: 6 });
    const alphaZ = deflateSync(alpha, { level: 6 });
    const id = objects.length + 1;
    imageObj.set(k, id);
    const image = (extra: string, data: Uint8Array): PdfObject =>
      [`<< /Type /XObject /Subtype /Image /Width ${r.width} /Height ${r.height} /BitsPerComponent 8 ${extra} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, data, '\nendstream'];
    objects.push(image(`/ColorSpace /DeviceRGB /SMask ${id + 1} 0 R`, rgbZ), image('/ColorSpace /DeviceGray', alphaZ));
  });
  const pageIds: number[] = [];
  lengthsIn.forEach((lengthIn, sheet) => {
    const userUnit = Math.max(widthIn, lengthIn) * 72 > MAX_PAGE_UNITS ? Math.ceil((Math.max(widthIn, lengthIn) * 72) / MAX_PAGE_UNITS) : 1;
    const unit = 72 / userUnit; // page units per inch
    const ops: string[] = [];
    const whiteOps: string[] = [];
    const used = new Set<number>();
    for (const p of placements) {
      if (p.sheet !== sheet) continue;
      const art = white ? white.plateOf(p) : p.design;
      used.add(art);
      // image space (a right, b up) -> sheet inches (y down) -> page units (y up)
      const page = (s: number, t: number): [number, number] => {
        const [x, y] = imageToSheet(p, s, t);
        return [x * unit, (lengthIn - y) * unit];
      };
      const [e, f] = page(0, 1);
      const [ax, ay] = page(1, 1);
      const [cx, cy] = page(0, 0);
      const cm = `${fmt(ax - e)} ${fmt(ay - f)} ${fmt(cx - e)} ${fmt(cy - f)} ${fmt(e)} ${fmt(f)} cm`;
      if (white) {
        whiteOps.push(`q /GS0 gs ${cm} /W${art} Do Q`);
        ops.push(`q /GS0 gs ${cm} /C${art} Do Q`);
      } else ops.push(`q ${cm} /D${art} Do Q`);
    }
    const content = deflateSync(Buffer.from([...whiteOps, ...ops].join('\n') + '\n', 'latin1'));
    const sorted = [...used].sort((a, b) => a - b);
    const xobjects = white
      ? sorted.map((k) => `/W${k} ${imageObj.get(k)! + 2} 0 R /C${k} ${imageObj.get(k)!} 0 R`).join(' ')
      : sorted.map((d) => `/D${d} ${imageObj.get(d)!} 0 R`).join(' ');
    const gs = white ? ` /ExtGState << /GS0 ${OVERPRINT_GS} >>` : '';
    const pageId = objects.length + 1;
    pageIds.push(pageId);
    objects.push(
      [`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${fmt(widthIn * unit)} ${fmt(lengthIn * unit)}]${userUnit > 1 ? ` /UserUnit ${userUnit}` : ''}`
        + ` /Resources << /XObject << ${xobjects} >>${gs} >> /Contents ${pageId + 1} 0 R >>`],
      [`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, content, '\nendstream'],
    );
  });
  objects[1] = [`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`];
  const needsUnit = lengthsIn.some((l) => Math.max(widthIn, l) * 72 > MAX_PAGE_UNITS);
  return serializePdf(objects, needsUnit ? '1.6' : '1.4');
}
