// Underbase speed against fix on the same art, same run (interleaved by tinybench), and the cost of each part:
// - Input: corpus art (noto basketball: orange with black seams, and good-vibes lettering) rendered at
//   3000 px (short mode: 1500 px), as PNG; garment black (the seams are knocked out) and white.
// - baseline: engine.fix with fix_alpha_threshold (decode, one pass over the pixels, PNG encode).
// - underbase as pdf, png and json; the plates alone (computePlates) and the checks alone (thin white and
//   knock-out gaps: four exact distance transforms).
// Peak memory of underbase vs fix is in the `memory` suite (one op per fresh process).
import sharp from 'sharp';
import { createEngine } from '@inkprep/engine';
import { computePlates, decodeImage, narrowKnockouts, resolveUnderbase, thinWhite } from '@inkprep/engine/internals';
import type { BenchContext } from '../lib/harness.js';
import { readCorpus } from '../../golden/lib/corpus.js';

async function art(file: string, size: number): Promise<Uint8Array> {
  const svg = Buffer.from(readCorpus(file));
  const meta = await sharp(svg).metadata();
  const density = Math.min(2400, (72 * size) / Math.max(meta.width ?? size, meta.height ?? size));
  return new Uint8Array(await sharp(svg, { density }).resize(size, size, { fit: 'inside' }).png().toBuffer());
}

export default async function underbaseSuite(ctx: BenchContext): Promise<void> {
  const size = ctx.short ? 1500 : 3000;
  const engine = createEngine({ threads: 0 });
  for (const [file, garment] of [['noto-1f3c0-basketball.svg', '#1b1b1d'], ['lettering-good-vibes.svg', '#f6f6f3']] as const) {
    const bytes = await art(file, size);
    const { raster } = await decodeImage(bytes);
    const o = resolveUnderbase({ garmentColor: garment, printWidthInches: 10 });
    const sample = await engine.underbase(bytes, { garmentColor: garment, printWidthInches: 10, format: 'png' });
    ctx.log(`${file} ${raster.width}x${raster.height} on ${garment}: white ${sample.stats.whiteCoveragePercent} %, knocked out ${sample.stats.knockedOutSqIn} sq in, warnings ${sample.warnings.map((w) => `${w.code}(${w.count})`).join(', ') || '-'}`);
    const b = ctx.bench(`underbase vs fix, ${file} ${raster.width}x${raster.height}`, { iterations: 4, time: 3000 });
    b.add('baseline: fix (alpha threshold)', async () => {
      await engine.fix(bytes, { fixAlphaThreshold: true, printWidthInches: 10 });
    });
    b.add('underbase pdf', async () => {
      await engine.underbase(bytes, { garmentColor: garment, printWidthInches: 10 });
    });
    b.add('underbase png (white plate)', async () => {
      await engine.underbase(bytes, { garmentColor: garment, printWidthInches: 10, format: 'png' });
    });
    b.add('underbase json (both plates)', async () => {
      await engine.underbase(bytes, { garmentColor: garment, printWidthInches: 10, format: 'json' });
    });
    b.add('plates only (computePlates)', () => {
      computePlates(raster, o);
    });
    const plates = computePlates(raster, o);
    b.add('checks only (thin white + knock-out gaps)', () => {
      thinWhite(plates);
      narrowKnockouts(plates);
    });
    await ctx.runBench(b, { baseline: 'baseline: fix (alpha threshold)' });
  }
  await engine.close();
}
