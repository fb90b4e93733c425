// Vector path of the upscaler, for flat art: trace the raster with our vectorizer (engine/src/vectorize,
// called in-thread as plain functions), then render the SVG at scale x the source size, so edges are
// rendered from curves (razor sharp at any size) and colours are the traced palette's exact inks.
// Rendering uses librsvg through sharp (a runtime dependency; resvg is only a dev dependency).
import sharp from 'sharp';
import { InkprepError } from '../errors.js';
import type { Raster } from '../raster/types.js';
import { resolveVectorize, vectorizeRaster } from '../ops/vectorize.js';

/** Render an SVG whose user units are source pixels (viewBox 0 0 w h) at exactly width x height pixels. */
export async function renderSvg(svg: string, srcWidth: number, srcHeight: number, width: number, height: number): Promise<Raster> {
  // Pin the outer size so librsvg's density maths is exact; the viewBox maps source px onto it.
  const sized = svg.replace(/<svg\b([^>]*)>/, (_m, attrs: string) => {
    const clean = attrs.replace(/\s(width|height)="[^"]*"/g, '');
    const vb = /viewBox=/.test(clean) ? clean : `${clean} viewBox="0 0 ${srcWidth} ${srcHeight}"`;
    return `<svg${vb} width="${width}" height="${height}" preserveAspectRatio="none">`;
  });
  const out = await sharp(Buffer.from(sized), { density: 72, limitInputPixels: false })
    .resize(width, height, { fit: 'fill' })
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (out.info.width !== width || out.info.height !== height) {
    throw new InkprepError('processing_failed', `SVG rendered at ${out.info.width}x${out.info.height}, expected ${width}x${height}`);
  }
  const data = new Uint8ClampedArray(out.data.length);
  data.set(out.data);
  return { width, height, data };
}

/** Trace `src` and render it at `scale` times its size. */
export async function upscaleVector(src: Raster, scale: number): Promise<Raster> {
  const svg = await traceToSvg(src);
  return renderSvg(svg, src.width, src.height, src.width * scale, src.height * scale);
}

/**
 * Vectorizer settings for upscaling: every ink kept (`colors: unlimited` merges only inks closer than a JND),
 * potrace's default corner rule (`detail: balanced`), and only 1 px specks merged so small details survive.
 */
export const TRACE_OPTIONS = Object.freeze({ colors: 'unlimited', detail: 'balanced', speck_size: 1, edge_cleanup: true } as const);

async function traceToSvg(src: Raster): Promise<string> {
  return vectorizeRaster(src, resolveVectorize(TRACE_OPTIONS)).svg;
}
