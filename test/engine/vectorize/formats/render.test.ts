// PDF and EPS output of vectorize read back by real readers: poppler renders the PDF and Ghostscript the EPS,
// and each render is compared with resvg's render of the SVG of the same call by the goldens' metric
// (golden/lib/metrics.ts compareRasters, DEFAULT_TOLERANCE limits), at 144 DPI (2 px per source px: the
// anti-aliasing of three rasterisers agrees better than at 1:1). Ghostscript renders with fill adjust 0
// (readers.ts): its default widens every fill by 0.25 px, which alone costs 0.01 of alpha IoU on lettering. The same limits fail on a render flipped
// upside down (asserted, so the thresholds are known to catch a lost Y flip) and pixels inside transparent
// counters must stay transparent (a writer that lost the holes' orientation or filled them fails).
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { resolveVectorize, vectorizeRaster } from '@inkprep/engine/internals';
import type { VectorizeOptions } from '@inkprep/engine';
import { renderCorpusPiece } from '../../../../golden/lib/art-render.js';
import { GEOMETRIC_ART } from '../../../../golden/lib/geometric-art.js';
import { brokenLimits } from '../../../../golden/lib/golden.js';
import { compareRasters, rasteriseSvg, type RasterMetrics } from '../../../../golden/lib/metrics.js';
import { READERS, pdfContent, pdfInfo, renderEps, renderPdf, svgOutlineCount } from './readers.js';

const DPI = 144;
const K = DPI / 72;
const EPS_DPI = DPI;

/** '.' = transparent, letters = inks; each character is an 8 x 8 px block. Asymmetric, with holes and counters. */
const ASCII = [
  'AAAAAAAAAAAA..DDDDDDDDDDDD',
  'AAAAAAAAAAAA..DDDDDDDDDDDD',
  'AA........AA..DDEEEEEEEEDD',
  'AA..CCCC..AA..DDEEEEEEEEDD',
  'AA..CCCC..AA..DDEEEEEEEEDD',
  'AA........AA..DDDDDDDDDDDD',
  'AAAAAAAAAAAA..............',
  '..............BBBB........',
  '..............BBBBBBBBBBBB',
  '..............BBBBBBBBBBBB',
];
const INKS: Record<string, [number, number, number]> = { A: [230, 57, 70], B: [38, 70, 83], C: [42, 157, 143], D: [244, 162, 97], E: [255, 255, 255] };
const CELL = 8;

function asciiRaster(rows: string[]): Raster {
  const w = rows[0]!.length * CELL, h = rows.length * CELL;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const ink = INKS[rows[Math.floor(y / CELL)]![Math.floor(x / CELL)]!];
      if (!ink) continue;
      data.set([...ink, 255], (y * w + x) * 4);
    }
  }
  return { width: w, height: h, data };
}

function flipY(r: Raster): Raster {
  const row = r.width * 4;
  const data = new Uint8ClampedArray(r.data.length);
  for (let y = 0; y < r.height; y++) data.set(r.data.subarray(y * row, (y + 1) * row), (r.height - 1 - y) * row);
  return { ...r, data };
}

/** RGBA of a render at `k` px per source px at the centre of ASCII cell (col, row). */
function at(r: Raster, col: number, row: number, k: number): number[] {
  const x = Math.floor((col + 0.5) * CELL * k), y = Math.floor((row + 0.5) * CELL * k);
  return [...r.data.subarray((y * r.width + x) * 4, (y * r.width + x) * 4 + 4)];
}

const fmt = (m: RasterMetrics) => `meanΔE ${m.meanDeltaE.toFixed(3)} p99 ${m.p99DeltaE.toFixed(2)} SSIM ${m.ssim.toFixed(4)} IoU ${m.alphaIoU.toFixed(4)}`;

/** Vectorize once per format; render PDF, EPS and the SVG at 144 DPI; compare each with the SVG render. */
async function renders(r: Raster, opts: VectorizeOptions) {
  const pdfRes = vectorizeRaster(r, resolveVectorize({ ...opts, output_format: 'pdf' }));
  const epsRes = vectorizeRaster(r, resolveVectorize({ ...opts, output_format: 'eps' }));
  expect(epsRes.svg).toBe(pdfRes.svg); // deterministic: both calls trace the same shapes
  const svg = await rasteriseSvg(pdfRes.svg, r.width * K);
  const pdf = await renderPdf(pdfRes.data, DPI);
  const eps = await renderEps(epsRes.data, EPS_DPI);
  const svgEps = await rasteriseSvg(pdfRes.svg, (r.width * EPS_DPI) / 72);
  return { pdfRes, epsRes, svg, pdf, eps: eps.raster, svgEps, epsComplaints: eps.complaints };
}

describe.skipIf(!READERS.poppler || !READERS.gs)(`PDF and EPS render like the SVG${READERS.reason ? ` (${READERS.reason})` : ''}`, () => {
  it('ASCII art with holes, an island in a hole and a white counter: exact inks, holes empty, Y up the right way', async () => {
    const r = asciiRaster(ASCII);
    for (const shape_style of ['stacked', 'cutout'] as const) {
      const { pdfRes, svg: svgPdf, pdf, eps, svgEps, epsComplaints } = await renders(r, { shape_style });
      expect(pdfRes.colorsUsed).toBe(5);
      expect(epsComplaints).toBe('');
      for (const [name, out, svg, k] of [['pdf', pdf, svgPdf, K], ['eps', eps, svgEps, EPS_DPI / 72]] as const) {
        expect([out.width, out.height], name).toEqual([svg.width, svg.height]);
        const m = compareRasters(out, svg);
        expect(brokenLimits(m), `${shape_style} ${name}: ${fmt(m)}`).toEqual([]);
        // upside down the same limits fail: the comparison would catch a lost Y flip
        expect(brokenLimits(compareRasters(flipY(out), svg)).length, `${name} flipped`).toBeGreaterThan(0);
        // exact palette in flat interiors, transparent hole around the island, the island and the counter painted
        const cell = (col: number, row: number) => at(out, col, row, k);
        expect(cell(1, 0), name).toEqual([...INKS.A!, 255]);
        expect(cell(16, 8), name).toEqual([...INKS.B!, 255]);
        expect(cell(5, 3), name).toEqual([...INKS.C!, 255]);
        expect(cell(15, 0), name).toEqual([...INKS.D!, 255]);
        expect(cell(20, 3), name).toEqual([...INKS.E!, 255]);
        expect(cell(2, 2)[3], `${name}: hole of A`).toBe(0);
        expect(cell(8, 4)[3], `${name}: hole of A`).toBe(0);
        expect(cell(12, 3)[3], `${name}: gap`).toBe(0);
        expect(cell(3, 8)[3], `${name}: empty corner`).toBe(0);
      }
    }
  });

  it('corpus art, stacked and cutout: PDF and EPS match the SVG render within the golden limits', async () => {
    for (const file of ['gi-barn-owl.svg', 'noto-1f369-doughnut.svg', 'lettering-brew-co.svg']) {
      const r = await renderCorpusPiece(file, 256);
      for (const shape_style of ['stacked', 'cutout'] as const) {
        const { svg: svgPdf, pdf, eps, svgEps, epsComplaints } = await renders(r, { shape_style });
        expect(epsComplaints).toBe('');
        for (const [name, out, svg] of [['pdf', pdf, svgPdf], ['eps', eps, svgEps]] as const) {
          const m = compareRasters(out, svg);
          expect(brokenLimits(m), `${file} ${shape_style} ${name}: ${fmt(m)}`).toEqual([]);
          expect(brokenLimits(compareRasters(flipY(out), svg)).length, `${file} ${name} flipped`).toBeGreaterThan(0);
        }
      }
    }
  });

  it('recognised shapes: the SVG <circle>/<ellipse>/<rect> elements and the PDF/EPS curves render alike', async () => {
    let elements = 0;
    for (const name of ['badge', 'buttons', 'tilted-cards', 'ellipse-logo']) {
      const r = await rasteriseSvg(GEOMETRIC_ART.find((p) => p.name === name)!.svg, 256);
      for (const shape_style of ['stacked', 'cutout'] as const) {
        const { pdfRes, svg: svgPdf, pdf, eps, svgEps } = await renders(r, { shape_style });
        elements += (pdfRes.svg.match(/<(circle|ellipse|rect) /g) ?? []).length;
        for (const [fmtName, out, svg] of [['pdf', pdf, svgPdf], ['eps', eps, svgEps]] as const) {
          const m = compareRasters(out, svg);
          expect(brokenLimits(m), `${name} ${shape_style} ${fmtName}: ${fmt(m)}`).toEqual([]);
        }
      }
    }
    expect(elements).toBeGreaterThan(4);
  });

  it('gradient fills become PDF/PostScript shadings that render like the SVG gradients', async () => {
    const size = 160;
    const r = await rasteriseSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><defs><radialGradient id="g" cx="80" cy="80" r="70" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#ffe066"/><stop offset="1" stop-color="#c1121f"/></radialGradient><linearGradient id="l" x1="0" y1="0" x2="160" y2="0" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#1d3557"/><stop offset="1" stop-color="#a8dadc"/></linearGradient></defs><circle cx="80" cy="80" r="70" fill="url(#g)"/></svg>`, size);
    const { pdfRes, epsRes, svg: svgPdf, pdf, eps, svgEps } = await renders(r, { colors: 1, gradients: true });
    expect(pdfRes.svg).toContain('<radialGradient');
    expect(pdfContent(pdfRes.data)).toContain('/Sh0 sh');
    expect(Buffer.from(pdfRes.data).toString('latin1')).toContain('/ShadingType 3');
    const epsText = new TextDecoder().decode(epsRes.data);
    expect(epsText).toContain('%%LanguageLevel: 3');
    expect(epsText).toContain('/ShadingType 3');
    for (const [name, out, svg] of [['pdf', pdf, svgPdf], ['eps', eps, svgEps]] as const) {
      const m = compareRasters(out, svg);
      expect(brokenLimits(m), `${name}: ${fmt(m)}`).toEqual([]);
    }
  });

  it('physical size: PDF MediaBox and EPS bounding box from print_width_inches, else 72 px per inch', async () => {
    const r = asciiRaster(ASCII); // 208 x 80 px
    const def = vectorizeRaster(r, resolveVectorize({ output_format: 'pdf' }));
    expect(pdfInfo(def.data)).toMatchObject({ complaints: '' });
    expect(pdfInfo(def.data).info).toMatch(/Page size:\s+208 x 80 pts/);
    const wide = vectorizeRaster(r, resolveVectorize({ output_format: 'pdf', print_width_inches: 13 }));
    expect(pdfInfo(wide.data).info).toMatch(/Page size:\s+936 x 360 pts/);
    // rendered at the DPI that gives 2 px per source px, the 13 in page matches the SVG render
    const page = await renderPdf(wide.data, (208 * K) / 13);
    const svg = await rasteriseSvg(wide.svg, 208 * K);
    const m = compareRasters(page, svg);
    expect(brokenLimits(m), fmt(m)).toEqual([]);
    const eps = new TextDecoder().decode(vectorizeRaster(r, resolveVectorize({ output_format: 'eps', print_width_inches: 2.5 })).data);
    expect(eps).toContain('%%BoundingBox: 0 0 180 70\n');
    expect(eps).toContain('%%HiResBoundingBox: 0 0 180 69.231\n');
    // a page over 200 in keeps its size through /UserUnit
    const huge = vectorizeRaster(r, resolveVectorize({ output_format: 'pdf', print_width_inches: 400 }));
    expect(Buffer.from(huge.data).toString('latin1')).toMatch(/^%PDF-1\.6\n[\s\S]*\/UserUnit 2 /);
    expect(pdfInfo(huge.data).complaints).toBe('');
  });
});

describe('PDF and EPS structure (no external tools)', () => {
  it('X-Paths counts: every format draws the same closed outlines; PDF and EPS bodies hold one moveto per outline', () => {
    const r = asciiRaster(ASCII);
    for (const shape_style of ['stacked', 'cutout'] as const) {
      const pdf = vectorizeRaster(r, resolveVectorize({ shape_style, output_format: 'pdf' }));
      const eps = vectorizeRaster(r, resolveVectorize({ shape_style, output_format: 'eps' }));
      const svgMoves = svgOutlineCount(pdf.svg);
      expect(pdf.paths).toBe(svgMoves);
      expect(eps.paths).toBe(svgMoves);
      expect((pdfContent(pdf.data).match(/ m\n/g) ?? []).length).toBe(svgMoves);
      expect((new TextDecoder().decode(eps.data).match(/ m\n/g) ?? []).length).toBe(svgMoves);
      // nonzero fill (the SVG's rule) and no fill of the page: transparency is the absence of shapes
      expect(pdfContent(pdf.data)).not.toMatch(/f\*|\bre\b/);
    }
  });

  it('locale-free compact numbers and deterministic bytes', () => {
    const r = asciiRaster(ASCII);
    const a = vectorizeRaster(r, resolveVectorize({ output_format: 'pdf' }));
    const b = vectorizeRaster(r, resolveVectorize({ output_format: 'pdf' }));
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
    expect(a.contentType).toBe('application/pdf');
    expect(a.format).toBe('pdf');
    const body = pdfContent(a.data);
    expect(body).toMatch(/^1 0 0 -1 0 80 cm\n/);
    expect(body).not.toMatch(/\d,\d|e[+-]\d|\.\d*0 /);
    expect(body).toContain('.902 .2235 .2745 rg\n'); // #e63946 in 0..1 units
  });
});
