// DXF output of vectorize read back by dxf-parser (a maintained third-party reader): one closed polyline per
// outline on the layer of its colour (named by hex), as many per colour as the SVG has subpaths of that fill,
// units ($INSUNITS) and coordinates in inches or millimetres with Y up, bounds = the art's physical box. The
// outlines, drawn back as filled polygons (entity order = paint order), render like the SVG (golden limits):
// that catches a wrong flip, scale or flattening.
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { resolveVectorize, vectorizeRaster } from '@inkprep/engine/internals';
import type { VectorizeOptions } from '@inkprep/engine';
import { renderCorpusPiece } from '../../../../golden/lib/art-render.js';
import { brokenLimits } from '../../../../golden/lib/golden.js';
import { compareRasters, rasteriseSvg } from '../../../../golden/lib/metrics.js';
import { parseDxf, svgOutlinesByColour, type DxfDrawing } from './readers.js';

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

function asciiRaster(rows: string[], cell = 8): Raster {
  const w = rows[0]!.length * cell, h = rows.length * cell;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const ink = INKS[rows[Math.floor(y / cell)]![Math.floor(x / cell)]!];
      if (ink) data.set([...ink, 255], (y * w + x) * 4);
    }
  }
  return { width: w, height: h, data };
}

function countByLayer(d: DxfDrawing): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of d.polylines) out.set(p.layer, (out.get(p.layer) ?? 0) + 1);
  return out;
}

function bounds(d: DxfDrawing) {
  const xs = d.polylines.flatMap((p) => p.points.map((q) => q.x)), ys = d.polylines.flatMap((p) => p.points.map((q) => q.y));
  return { minX: Math.min(...xs), minY: Math.min(...ys), maxX: Math.max(...xs), maxY: Math.max(...ys) };
}

/** The DXF outlines as an SVG in source pixels: polygons filled with their layer's colour, in entity order. */
function dxfAsSvg(d: DxfDrawing, w: number, h: number, unitsPerPx: number): string {
  const paths = d.polylines.map((p) => {
    const pts = p.points.map((q) => `${(q.x / unitsPerPx).toFixed(3)} ${(h - q.y / unitsPerPx).toFixed(3)}`);
    return `<path fill="#${p.layer}" d="M${pts.join('L')}Z"/>`;
  });
  // consecutive polylines of one layer form one compound path, as the SVG writer's <path> per shape
  const merged: string[] = [];
  for (const p of paths) {
    const prev = merged[merged.length - 1];
    const fill = p.slice(0, 22);
    if (prev && prev.startsWith(fill)) merged[merged.length - 1] = prev.replace(/"\/>$/, p.slice(p.indexOf(' d="') + 4, -3) + '"/>');
    else merged.push(p);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}">${merged.join('')}</svg>`;
}

function dxfOf(r: Raster, opts: VectorizeOptions) {
  const res = vectorizeRaster(r, resolveVectorize({ ...opts, output_format: 'dxf' }));
  expect(res.contentType).toBe('image/vnd.dxf');
  const text = new TextDecoder().decode(res.data);
  // coordinates (group codes 10/20/30/40) are plain decimals with a leading zero (some cutter software reads
  // no `.5`), no exponent, no comma
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i += 2) {
    if (['10', '20', '30', '40'].includes(lines[i]!.trim())) expect(lines[i + 1]).toMatch(/^-?\d+(\.\d+)?$/);
  }
  return { res, dxf: parseDxf(text) };
}

describe('DXF output read by dxf-parser', () => {
  it('ASCII art: a layer per ink named by hex, one closed polyline per outline, inches by default, Y up', () => {
    const r = asciiRaster(ASCII); // 208 x 80 px, ink touching all four sides
    for (const shape_style of ['stacked', 'cutout'] as const) {
      const { res, dxf } = dxfOf(r, { shape_style });
      expect(dxf.header.$INSUNITS).toBe(1);
      expect(dxf.header.$ACADVER).toBe('AC1009');
      expect(dxf.layers.sort()).toEqual(['264653', '2A9D8F', 'E63946', 'F4A261', 'FFFFFF']);
      expect(Object.fromEntries(countByLayer(dxf))).toEqual(Object.fromEntries(svgOutlinesByColour(res.svg)));
      expect(dxf.polylines.length).toBe(res.paths);
      expect(dxf.polylines.every((p) => p.closed && p.points.length >= 3)).toBe(true);
      // 72 px per inch: the art's box is 208/72 x 80/72 in, from the origin
      const b = bounds(dxf);
      expect(b.minX).toBeCloseTo(0, 3);
      expect(b.minY).toBeCloseTo(0, 3);
      expect(b.maxX).toBeCloseTo(208 / 72, 3);
      expect(b.maxY).toBeCloseTo(80 / 72, 3);
      expect(dxf.header.$LIMMAX).toMatchObject({ x: 2.8889, y: 1.1111 });
      // Y up: the red ring is the top-left of the image, so its outline reaches the top (y = 80/72 in)
      const red = bounds({ ...dxf, polylines: dxf.polylines.filter((p) => p.layer === 'E63946') });
      expect(red.maxY).toBeCloseTo(80 / 72, 3);
      expect(red.minY).toBeCloseTo(80 / 72 - 56 / 72, 2);
    }
  });

  it('millimetres with a print width: $INSUNITS 4, coordinates scaled to the physical box', () => {
    const r = asciiRaster(ASCII);
    const { dxf } = dxfOf(r, { dxf_units: 'mm', print_width_inches: 13 });
    expect(dxf.header.$INSUNITS).toBe(4);
    expect(dxf.header.$MEASUREMENT).toBe(1);
    const b = bounds(dxf);
    expect(b.maxX).toBeCloseTo(13 * 25.4, 2);
    expect(b.maxY).toBeCloseTo((13 * 25.4 * 80) / 208, 2);
    expect(b.minX).toBeCloseTo(0, 2);
  });

  it('corpus art: counts per colour match the SVG, bounds within the art box, outlines draw back like the SVG', async () => {
    for (const file of ['noto-1f369-doughnut.svg', 'gi-barn-owl.svg', 'lettering-brew-co.svg']) {
      const r = await renderCorpusPiece(file, 256);
      for (const shape_style of ['stacked', 'cutout'] as const) {
        const { res, dxf } = dxfOf(r, { shape_style });
        const label = `${file} ${shape_style}`;
        expect(Object.fromEntries(countByLayer(dxf)), label).toEqual(Object.fromEntries(svgOutlinesByColour(res.svg)));
        const b = bounds(dxf);
        expect(b.minX, label).toBeGreaterThanOrEqual(0);
        expect(b.minY, label).toBeGreaterThanOrEqual(0);
        expect(b.maxX, label).toBeLessThanOrEqual(256 / 72 + 1e-4);
        expect(b.maxY, label).toBeLessThanOrEqual(256 / 72 + 1e-4);
        const back = await rasteriseSvg(dxfAsSvg(dxf, 256, 256, 1 / 72), 512);
        const svg = await rasteriseSvg(res.svg, 512);
        const m = compareRasters(back, svg);
        expect(brokenLimits(m), `${label}: meanΔE ${m.meanDeltaE.toFixed(3)} IoU ${m.alphaIoU.toFixed(4)} SSIM ${m.ssim.toFixed(4)}`).toEqual([]);
      }
    }
  });
});
