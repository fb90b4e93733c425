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

/**
 * Round-trip guard: the largest accepted mean per-pixel error (max over RGB of the grey composites, 0..255,
 * over pixels visible in either image) between the input and the vector render shrunk back to the input
 * size. Above it the trace lost detail the input has (thin strokes, small lettering) and the vector path
 * declines, so the router falls back to resampling.
 */
export const VECTOR_MAX_ROUNDTRIP = 6;

/** Mean round-trip error of `big` (a render at scale x) against `src`, as defined for VECTOR_MAX_ROUNDTRIP. */
export async function roundTripError(src: Raster, big: Raster): Promise<number> {
  const back = await sharp(Buffer.from(big.data.buffer, big.data.byteOffset, big.data.byteLength), { raw: { width: big.width, height: big.height, channels: 4 }, limitInputPixels: false })
    .resize(src.width, src.height, { kernel: 'cubic', fit: 'fill' })
    .raw()
    .toBuffer();
  const a = src.data;
  let sum = 0, n = 0;
  for (let i = 0; i < a.length; i += 4) {
    const aa = a[i + 3]!, ab = back[i + 3]!;
    if (aa === 0 && ab === 0) continue;
    let d = 0;
    for (let c = 0; c < 3; c++) {
      const va = (a[i + c]! * aa + 128 * (255 - aa)) / 255;
      const vb = (back[i + c]! * ab + 128 * (255 - ab)) / 255;
      const e = Math.abs(va - vb);
      if (e > d) d = e;
    }
    sum += d;
    n++;
  }
  return n ? sum / n : 0;
}

/**
 * Trace `src` and render it at `scale` times its size.
 * @throws InkprepError `processing_failed` when the render fails the round-trip guard (VECTOR_MAX_ROUNDTRIP).
 */
export async function upscaleVector(src: Raster, scale: number, opts: { guard?: boolean } = {}): Promise<Raster> {
  const svg = await traceToSvg(src);
  const out = await renderSvg(svg, src.width, src.height, src.width * scale, src.height * scale);
  if (opts.guard !== false) {
    const err = await roundTripError(src, out);
    if (err > VECTOR_MAX_ROUNDTRIP) {
      throw new InkprepError('processing_failed', `the trace loses detail of this image (round-trip error ${err.toFixed(1)} > ${VECTOR_MAX_ROUNDTRIP})`);
    }
  }
  return out;
}

/**
 * Vectorizer settings for upscaling: every ink kept (`colors: unlimited` merges only inks closer than a JND),
 * potrace's default corner rule (`detail: balanced`), and only 1 px specks merged so small details survive.
 */
export const TRACE_OPTIONS = Object.freeze({ colors: 'unlimited', detail: 'balanced', speck_size: 1, edge_cleanup: true } as const);

async function traceToSvg(src: Raster): Promise<string> {
  return vectorizeRaster(src, resolveVectorize(TRACE_OPTIONS)).svg;
}
