// A corpus piece as ground truth for background removal: rendered with resvg, long side 7/8 of an S x S
// transparent canvas, centred (straight alpha). Used by the remove-bg tests and benches.
import sharp from 'sharp';
import { Resvg } from '@resvg/resvg-js';
import type { Raster } from '@inkprep/engine';
import { readCorpus } from './corpus.js';

export async function renderCorpusPiece(file: string, size: number): Promise<Raster> {
  const svg = readCorpus(file);
  const inner = Math.round(size * 0.875);
  const probe = new Resvg(svg);
  const wide = probe.width >= probe.height;
  const png = new Resvg(svg, { fitTo: { mode: wide ? 'width' : 'height', value: inner }, background: 'rgba(0,0,0,0)' }).render().asPng();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const left = Math.floor((size - info.width) / 2), top = Math.floor((size - info.height) / 2);
  const out = new Uint8ClampedArray(size * size * 4);
  for (let y = 0; y < info.height; y++) out.set(data.subarray(y * info.width * 4, (y + 1) * info.width * 4), ((top + y) * size + left) * 4);
  return { width: size, height: size, data: out };
}
