// Shared fixtures for the colour-stage tests (prepare, quantize, clean, gradients, op): small SVG art rendered
// with resvg (real anti-aliasing), JPEG round trips, and label-map readers.
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { rasteriseSvg, decodeToRaster } from '../../../golden/lib/metrics.js';
import { TRANSPARENT, type LabelMap } from '@inkprep/engine/internals';

/** Render SVG markup (viewBox 0 0 w h) at w px wide. */
export async function art(w: number, h: number, body: string): Promise<Raster> {
  return rasteriseSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`, w);
}

/** Flatten on white and round-trip through JPEG at `quality`. */
export async function jpeg(r: Raster, quality = 85): Promise<Raster> {
  const buf = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } })
    .flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
  return decodeToRaster(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
}

/** Palette entries as `#rrggbb`. */
export function paletteHex(map: LabelMap): string[] {
  const out: string[] = [];
  for (let i = 0; i < map.palette.length; i += 3) out.push('#' + [map.palette[i]!, map.palette[i + 1]!, map.palette[i + 2]!].map((v) => v.toString(16).padStart(2, '0')).join(''));
  return out;
}

/** Distinct labels used (TRANSPARENT excluded). */
export function usedLabels(map: LabelMap): Set<number> {
  const s = new Set<number>();
  for (const l of map.labels) if (l !== TRANSPARENT) s.add(l);
  return s;
}

/** Label at (x, y). */
export function labelAt(map: LabelMap, x: number, y: number): number {
  return map.labels[y * map.width + x]!;
}
