// The separation file a RIP takes: one page at the exact print size holding the white plate as an image in a
// Separation colour space (spot name `White` by default) and, over it, the colour plate as an RGB image cut out
// by a 1-bit mask of the art's alpha (alpha >= 128). Both are painted with overprint on, so on separation the
// colour image leaves the spot plate alone and the white image the process plates. The mask is binary on
// purpose: a soft mask makes the page a transparency group, and Ghostscript's separation output then knocks the
// white out under the colour (seen with tiffsep); semi-transparent pixels are reported by the op instead. A
// viewer without overprint preview shows the art as it looks, with white-only art in the spot's pale alternate.
import { deflateSync } from 'node:zlib';
import { serializePdf, type PdfObject } from '../pdf/serialize.js';
import type { PlateSet } from './plates.js';

/** Largest page side in default units that PDF readers accept (Acrobat's implementation limit). */
const MAX_PAGE_UNITS = 14400;
/** The white's alternate colour (DeviceCMYK at 100 % tint): a pale cyan, visible on screen, never printed. */
const WHITE_ALTERNATE_CMYK = '[0.3 0 0 0]';

function fmt(v: number): string {
  return String(Math.round(v * 1000) / 1000);
}

/** The graphics state both plates are painted in: overprint on, so each leaves the other's separations alone. */
export const OVERPRINT_GS = '<< /Type /ExtGState /OP true /op true /OPM 1 >>';

/** The spot's tint transform (to its on-screen alternate); the white images' colour space refers to it. */
export const WHITE_TINT_FUNCTION: PdfObject = [`<< /FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] /C1 ${WHITE_ALTERNATE_CMYK} /N 1 >>`];

/**
 * The three image objects of a plate set, numbered from `firstId`: the colour plate as RGB cut by its 1-bit
 * mask (`firstId`, the mask `firstId + 1`) and the white plate in the Separation colour space `spotName`
 * (`firstId + 2`), whose tint transform is object `tintId`. The gang sheet embeds each design's this way too,
 * with `keyOutNoWhite`: a colour-key mask on the white image so its zero pixels paint nothing (an image in a
 * Separation space otherwise paints 0 % over its whole box, and nested copies' boxes overlap their neighbours'
 * white); a key mask is no soft mask, so the page stays out of a transparency group.
 */
export function separationImages(p: PlateSet, spotName: string, firstId: number, tintId: number, keyOutNoWhite = false): PdfObject[] {
  const { width: w, height: h } = p;
  const n = w * h;
  const rgb = new Uint8Array(n * 3);
  // the 1-bit mask (alpha >= 128), rows padded to whole bytes, written in the same pass
  const rowBytes = (w + 7) >> 3;
  const bits = new Uint8Array(rowBytes * h);
  const src = p.colour.data;
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      rgb[i * 3] = src[i * 4]!;
      rgb[i * 3 + 1] = src[i * 4 + 1]!;
      rgb[i * 3 + 2] = src[i * 4 + 2]!;
      if (src[i * 4 + 3]! >= 128) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  const z = (b: Uint8Array) => deflateSync(b, { level: 6 });
  const rgbZ = z(rgb);
  const maskZ = z(bits);
  const whiteZ = z(p.white);
  const image = (extra: string, data: Uint8Array): PdfObject =>
    [`<< /Type /XObject /Subtype /Image /Width ${w} /Height ${h} /BitsPerComponent 8 ${extra} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, data, '\nendstream'];
  return [
    image(`/ColorSpace /DeviceRGB /Mask ${firstId + 1} 0 R`, rgbZ),
    [`<< /Type /XObject /Subtype /Image /Width ${w} /Height ${h} /BitsPerComponent 1 /ImageMask true /Decode [1 0] /Filter /FlateDecode /Length ${maskZ.length} >>\nstream\n`, maskZ, '\nendstream'],
    image(`/ColorSpace [/Separation /${spotName} /DeviceCMYK ${tintId} 0 R]${keyOutNoWhite ? ' /Mask [0 0]' : ''}`, whiteZ),
  ];
}

/**
 * The PDF of `p` with the white as spot colour `spotName` (a PDF name without the slash, already validated).
 * @example writeSeparationPdf(plates, 'White') // a Uint8Array starting with %PDF-1.4
 */
export function writeSeparationPdf(p: PlateSet, spotName: string): Uint8Array {
  const { width: w, height: h } = p;
  const wPt = (w / p.dpi) * 72;
  const hPt = (h / p.dpi) * 72;
  const userUnit = Math.max(wPt, hPt) > MAX_PAGE_UNITS ? Math.ceil(Math.max(wPt, hPt) / MAX_PAGE_UNITS) : 1;
  const W = wPt / userUnit;
  const H = hPt / userUnit;
  const content = deflateSync(Buffer.from(
    `q /GS0 gs ${fmt(W)} 0 0 ${fmt(H)} 0 0 cm /Wh0 Do Q\nq /GS0 gs ${fmt(W)} 0 0 ${fmt(H)} 0 0 cm /Im0 Do Q\n`, 'latin1'), { level: 6 });
  const objects: PdfObject[] = [
    ['<< /Type /Catalog /Pages 2 0 R >>'],
    ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${fmt(W)} ${fmt(H)}]${userUnit > 1 ? ` /UserUnit ${userUnit}` : ''}`
      + ` /Resources << /XObject << /Im0 5 0 R /Wh0 7 0 R >> /ExtGState << /GS0 ${OVERPRINT_GS} >> >>`
      + ' /Contents 4 0 R >>'],
    [`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, content, '\nendstream'],
    ...separationImages(p, spotName, 5, 8),
    WHITE_TINT_FUNCTION,
  ];
  return serializePdf(objects, userUnit > 1 ? '1.6' : '1.4');
}
