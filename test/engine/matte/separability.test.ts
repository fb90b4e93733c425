// Separability routing: shaded photos (a red mug with a soft shadow on a lit backdrop, a white mug whose
// highlight matches the backdrop, a storm sky) are not art on a separable background -> model or 422, never
// matted; every non-flag corpus piece on white, a light gradient and JPEG white stays on the matte.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeImage, matteArtwork, removeBackground } from '@inkprep/engine/internals';
import { scene, SCENES } from '../../../golden/lib/scenes.js';
import { composite, corpusPieces, lightGradient, renderCorpusPiece } from './helpers.js';

describe('separability: shading, soft shadows, highlights, skies', () => {
  for (const kind of SCENES) {
    it(`${kind} is not separable (the artwork matte would cut it arbitrarily)`, async () => {
      for (const size of [320, 640]) {
        const s = scene(kind, size);
        const m = matteArtwork(s.input);
        expect(m.separability.separable, `${kind} at ${size}: soft ${m.stats.softFraction} faint ${m.stats.faintFraction}`).toBe(false);
        await expect(removeBackground(s.input, { backend: 'auto', model: null, jpeg: false })).rejects.toMatchObject({ code: 'not_separable' });
      }
    });
  }
});

// One test per piece (the sweep is the same): a single test over the whole corpus took ~40 s in a suite run
// and over 180 s on a busy 2-core machine, where one piece takes a few seconds at most.
const pieces = await corpusPieces();

describe('separability: flat art stays on the matte', () => {
  it('the corpus has its non-flag pieces', () => {
    expect(pieces.length).toBeGreaterThanOrEqual(30);
  });
  for (const file of pieces) {
    it(`${file} on white, a light gradient and JPEG white (q85) is separable`, async () => {
      const size = 384;
      const gt = await renderCorpusPiece(file, size);
      const white = composite(gt, () => [255, 255, 255]);
      const jpg = await sharp(Buffer.from(white.data.buffer), { raw: { width: size, height: size, channels: 4 } }).flatten().jpeg({ quality: 85 }).toBuffer();
      const cases = [
        ['white', matteArtwork(white)],
        ['gradient', matteArtwork(composite(gt, lightGradient(size)))],
        ['jpeg', matteArtwork((await decodeImage(new Uint8Array(jpg))).raster, { jpeg: true })],
      ] as const;
      const failures: string[] = [];
      for (const [bg, m] of cases) if (!m.separability.separable) failures.push(`${file} on ${bg}: ${m.separability.reason}`);
      expect(failures).toEqual([]);
    });
  }
});
