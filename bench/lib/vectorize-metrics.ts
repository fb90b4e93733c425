// Helpers for the vectorize bench: run each vectorizer (inkprep, VTracer, imagetracerjs, potrace) on one
// raster, count what the SVG holds (shapes = moveto commands, distinct fills, bytes), and render it back at the
// ground-truth size for compareRasters (golden/lib/metrics.ts).
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { Resvg } from '@resvg/resvg-js';
import type { Raster } from '@inkprep/engine';
import { decodeToRaster } from '../../golden/lib/metrics.js';

const require = createRequire(import.meta.url);

/** Counts read from an SVG document. */
export interface SvgCounts {
  /** Closed outlines: moveto commands over every path's data. */
  shapes: number;
  /** Distinct visible fill values (solid colours or gradient references). */
  fills: number;
  bytes: number;
}

/**
 * Shapes, fills and bytes of an SVG. Paths with opacity="0" or fill="none" are not counted; a <circle>,
 * <ellipse> or <rect> (inkprep's recognised primitives) counts as one closed outline.
 */
export function countSvg(svg: string): SvgCounts {
  let shapes = 0;
  const fills = new Set<string>();
  const re = /<(path|circle|ellipse|rect)\b([^>]*)>/g;
  for (let m = re.exec(svg); m; m = re.exec(svg)) {
    const attrs = m[2]!;
    if (/\bopacity="0"/.test(attrs)) continue;
    const fill = /\bfill="([^"]*)"/.exec(attrs)?.[1] ?? 'black';
    if (fill === 'none') continue;
    const d = /\bd="([^"]*)"/.exec(attrs)?.[1] ?? '';
    const moves = m[1] === 'path' ? (d.match(/[Mm]/g)?.length ?? 0) : 1;
    if (!moves) continue;
    shapes += moves;
    fills.add(fill.toLowerCase());
  }
  return { shapes, fills: fills.size, bytes: Buffer.byteLength(svg) };
}

/** Render an SVG at exactly width x height (fitted by width; any 1 px rounding difference is padded/cropped). */
export async function renderAt(svg: string, width: number, height: number): Promise<Raster> {
  const png = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: 'width', value: width } }).render().asPng();
  const r = await decodeToRaster(png);
  if (r.width === width && r.height === height) return r;
  const out = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < Math.min(height, r.height); y++) {
    for (let x = 0; x < Math.min(width, r.width); x++) {
      const s = (y * r.width + x) * 4, d = (y * width + x) * 4;
      out[d] = r.data[s]!; out[d + 1] = r.data[s + 1]!; out[d + 2] = r.data[s + 2]!; out[d + 3] = r.data[s + 3]!;
    }
  }
  return { width, height, data: out };
}

/** Flatten on white and round-trip through JPEG quality 85 (the customer-upload variant). */
export async function jpegUpload(r: Raster): Promise<Raster> {
  const jpg = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } })
    .flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer();
  return decodeToRaster(new Uint8Array(jpg.buffer, jpg.byteOffset, jpg.byteLength));
}

interface VtracerBinding {
  vectorizeRawSync(data: Buffer, args: { width: number; height: number }, config: Record<string, number>): string;
}
let vtracer: VtracerBinding | null = null;

/** VTracer (visioncortex, native): colour mode, stacked, spline, its CLI defaults. */
export function runVtracer(r: Raster): string {
  vtracer ??= require('@neplex/vectorizer-linux-x64-gnu') as VtracerBinding;
  return vtracer.vectorizeRawSync(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { width: r.width, height: r.height }, {
    colorMode: 0, // Color
    hierarchical: 0, // Stacked
    mode: 2, // Spline
    colorPrecision: 6,
    filterSpeckle: 4,
    layerDifference: 16,
    cornerThreshold: 60,
    lengthThreshold: 4,
    maxIterations: 10,
    spliceThreshold: 45,
    pathPrecision: 2,
  });
}

interface ImageTracer {
  imagedataToSVG(img: { width: number; height: number; data: Uint8ClampedArray }, opts: Record<string, unknown>): string;
}

/** imagetracerjs with its default options. */
export function runImagetracer(r: Raster): string {
  const it = require('imagetracerjs') as ImageTracer;
  return it.imagedataToSVG({ width: r.width, height: r.height, data: r.data }, {});
}

interface PotraceModule {
  trace(file: Buffer, opts: Record<string, unknown>, cb: (err: Error | null, svg: string) => void): void;
}

/** potrace (npm, bilevel) on the art flattened on white, painted with `color`. */
export async function runPotrace(r: Raster, color: string): Promise<string> {
  const potrace = require('potrace') as PotraceModule;
  const png = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } })
    .flatten({ background: '#ffffff' }).png().toBuffer();
  return new Promise((resolve, reject) => potrace.trace(png, { color, background: 'transparent' }, (err, svg) => (err ? reject(err) : resolve(svg))));
}

/** Median of finite numbers (NaN when empty). */
export function median(xs: number[]): number {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}
