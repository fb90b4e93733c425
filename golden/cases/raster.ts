// Golden area `raster`: decode and encode at the edges (engine/src/raster) on synthetic images and one
// corpus artwork, so a change in sharp/libvips behaviour (orientation, colour conversion, alpha) shows up.
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { decodeImage, encodeImage, encodePng } from '@inkprep/engine/internals';
import type { GoldenCase } from '../lib/golden.js';
import { readCorpus } from '../lib/corpus.js';

/** 256x192 RGBA test card: gradients, a hard-edged disc, a half-transparent band, a transparent corner. */
function testCard(width = 256, height = 192): Raster {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      const disc = (x - 90) ** 2 + (y - 96) ** 2 < 50 ** 2;
      data[p] = disc ? 220 : (x * 255) / width;
      data[p + 1] = disc ? 30 : (y * 255) / height;
      data[p + 2] = disc ? 60 : 160;
      data[p + 3] = x > 200 && y < 40 ? 0 : y > 150 ? 128 : 255;
    }
  }
  return { width, height, data };
}

function rawInput(r: Raster) {
  return sharp(Buffer.from(r.data.buffer), { raw: { width: r.width, height: r.height, channels: 4 } });
}

export const cases: GoldenCase[] = [
  {
    name: 'png-encode-decode',
    kind: 'png',
    tolerance: { maxDeltaE: 0, meanDeltaE: 0, minSsim: 1, minAlphaIoU: 1 },
    async produce() {
      const { raster } = await decodeImage(await encodePng(testCard(), { dpi: 300 }));
      return encodePng(raster);
    },
  },
  {
    name: 'jpeg-decode',
    kind: 'png',
    async produce() {
      const jpeg = await rawInput(testCard()).flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
      return encodePng((await decodeImage(jpeg)).raster);
    },
  },
  {
    name: 'jpeg-exif-orientation-6',
    kind: 'png',
    async produce() {
      // Stored landscape with orientation 6 (rotate 90° clockwise to display): the decode must come out portrait.
      const jpeg = await rawInput(testCard()).flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
      return encodePng((await decodeImage(jpeg)).raster);
    },
  },
  {
    name: 'webp-alpha-roundtrip',
    kind: 'png',
    async produce() {
      const webp = await encodeImage(testCard(), 'webp', { quality: 90 });
      return encodePng((await decodeImage(webp)).raster);
    },
  },
  {
    name: 'corpus-barn-owl-256',
    kind: 'png',
    async produce() {
      // Real artwork: the corpus SVG rendered by libvips to a 256 px PNG, then through our decode/encode.
      const png = await sharp(Buffer.from(readCorpus('gi-barn-owl.svg')), { density: 72 }).resize({ width: 256 }).png().toBuffer();
      return encodePng((await decodeImage(png)).raster);
    },
  },
  {
    name: 'svg-flag-ch',
    kind: 'svg',
    rasterWidth: 256,
    async produce() {
      // Exercises the SVG path of the runner (resvg rasterisation of actual and expected).
      return readCorpus('flag-ch.svg');
    },
  },
];
