// Synthetic rasters with known answers for the scan, fix and halftone tests (not a test file itself).
import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusDir } from '../../../golden/lib/corpus.js';
import type { Raster } from '@inkprep/engine';

export type RGB = [number, number, number];

/** A blank transparent canvas. */
export function canvas(w: number, h: number): Raster {
  return { width: w, height: h, data: new Uint8ClampedArray(w * h * 4) };
}

/**
 * A disc of colour `rgb` with an analytically anti-aliased edge (coverage = clamp(r + 0.5 - d)), an
 * optional Gaussian glow of the same colour outside it, and an optional matte mixed into edge colours.
 */
export function disc(w: number, h: number, o: { r: number; rgb?: RGB; glowSigma?: number; glowPeak?: number; rimPx?: number; matte?: RGB }): Raster {
  const img = canvas(w, h);
  const rgb = o.rgb ?? [200, 30, 40];
  const cx = w / 2;
  const cy = h / 2;
  const rim = o.rimPx ?? 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
      let a = Math.min(1, Math.max(0, (o.r + rim / 2 - d) / rim));
      if (o.glowSigma && d > o.r) {
        const g = (o.glowPeak ?? 0.85) * Math.exp(-((d - o.r) ** 2) / (2 * o.glowSigma ** 2));
        a = Math.max(a, g);
      }
      const i = (y * w + x) * 4;
      const A = Math.round(a * 255);
      if (A === 0) continue;
      for (let c = 0; c < 3; c++) img.data[i + c] = o.matte && A < 255 ? Math.round(a * rgb[c]! + (1 - a) * o.matte[c]!) : rgb[c]!;
      img.data[i + 3] = A;
    }
  }
  return img;
}

/** Render a corpus SVG to a Raster with its long side fitted to `size` px. */
export async function corpusRaster(file: string, size = 1024): Promise<Raster> {
  const svg = readFileSync(path.join(corpusDir() ?? 'corpus/open', file));
  const meta = await sharp(svg).metadata();
  const density = Math.min(2400, (72 * size) / Math.max(meta.width ?? size, meta.height ?? size));
  const { data, info } = await sharp(svg, { density }).resize(size, size, { fit: 'inside' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
}

/** Encode a raster as PNG bytes. */
export async function png(r: Raster): Promise<Uint8Array> {
  const b = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } }).png().toBuffer();
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
