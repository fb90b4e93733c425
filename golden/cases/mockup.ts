// Golden area `mockup`: two garments rendered end to end at 480 px (blank + design with fabric realism):
// a navy classic tee with corpus art on the full front, and a heather-grey hoodie with a trophy on the
// centre chest. Catches changes in the silhouette, shading, colour and composite. Tolerances allow float
// and libvips resampling noise, not a different picture.
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { renderMockup, resolveMockup } from '@inkprep/engine/internals';
import type { GoldenCase } from '../lib/golden.js';
import { readCorpus } from '../lib/corpus.js';

if (!process.env.INKPREP_GARMENT_CACHE_DIR) process.env.INKPREP_GARMENT_CACHE_DIR = path.join(os.tmpdir(), 'inkprep-golden-garment-cache');

async function art(file: string, width: number): Promise<Raster> {
  const { data, info } = await sharp(Buffer.from(readCorpus(file)), { density: 300 }).resize(width).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
}

/** Expected files must stay under 200 KB: re-encode as a 256-colour PNG without dithering (deterministic). */
async function small(png: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await sharp(png).png({ palette: true, colours: 256, dither: 0, compressionLevel: 9 }).toBuffer());
}

const tolerance = { p99DeltaE: 6, meanDeltaE: 1.2, minSsim: 0.97, minAlphaIoU: 0.99 };

export const cases: GoldenCase[] = [
  {
    name: 'classic-tee-navy-full-front',
    kind: 'png',
    tolerance,
    async produce() {
      const r = await renderMockup(await art('tw-1f98a-fox.svg', 1600), resolveMockup({ style: 'own:classic-tee', color: 'navy', placement: 'full-front', output_size: 480, fabric: 0.8 }));
      return small(r.data);
    },
  },
  {
    name: 'hoodie-heather-center-chest',
    kind: 'png',
    tolerance,
    async produce() {
      const r = await renderMockup(await art('om-color-1f3c6-trophy.svg', 2400), resolveMockup({ style: 'own:hoodie', color: 'heather-grey', placement: 'center-chest', output_size: 480, fabric: 0.8 }));
      return small(r.data);
    },
  },
];
