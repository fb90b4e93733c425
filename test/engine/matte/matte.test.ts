// The artwork matte against ground truth: art with known alpha composited over white, a colour, JPEG
// white and a gradient; letter counters; specks; a photo-like input; an already transparent input.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { decodeImage, matteArtwork, removeBackground } from '@inkprep/engine/internals';
import { composite, jpegRoundTrip, logoSvg, measure, renderSvg } from './helpers.js';

let gt: Raster;
beforeAll(async () => {
  gt = await renderSvg(logoSvg(256));
});

const white = (): [number, number, number] => [255, 255, 255];

describe('matteArtwork', () => {
  it('cuts art out of white with alpha at ground truth and no white halo', () => {
    const r = matteArtwork(composite(gt, white));
    const m = measure({ width: gt.width, height: gt.height, data: r.data }, gt);
    expect(r.stats.background).toBe('constant');
    expect(r.stats.backgroundColor).toBe('#ffffff');
    expect(r.separability.separable).toBe(true);
    expect(m.iou).toBeGreaterThan(0.995);
    expect(m.meanAbsAlpha).toBeLessThan(0.005);
    expect(m.edgeAbsAlpha).toBeLessThan(0.05);
    expect(m.haloMean).toBeLessThan(3);
  });

  it('cuts art out of a solid colour (the model is fitted, not assumed white)', () => {
    const r = matteArtwork(composite(gt, () => [46, 117, 182]));
    const m = measure({ width: gt.width, height: gt.height, data: r.data }, gt);
    expect(r.stats.backgroundColor).toBe('#2e75b6');
    expect(m.iou).toBeGreaterThan(0.995);
    expect(m.haloMean).toBeLessThan(3);
  });

  it('cuts art out of JPEG-compressed white (q85, 4:2:0)', async () => {
    const { raster } = await decodeImage(await jpegRoundTrip(composite(gt, white), 85));
    const r = matteArtwork(raster, { jpeg: true });
    const m = measure({ width: gt.width, height: gt.height, data: r.data }, gt);
    expect(m.iou).toBeGreaterThan(0.98);
    expect(m.meanAbsAlpha).toBeLessThan(0.01);
    // JPEG itself shifts edge colours (4:2:0 chroma); the floor is an oracle that knows the true alpha and
    // background and removes it exactly from the JPEG pixels. The matte must not add a halo on top of that.
    const oracle = new Uint8ClampedArray(gt.data.length);
    for (let i = 0; i < gt.width * gt.height; i++) {
      const a = gt.data[i * 4 + 3]! / 255;
      for (let c = 0; c < 3; c++) oracle[i * 4 + c] = a > 0 ? 255 + (raster.data[i * 4 + c]! - 255) / a : 0;
      oracle[i * 4 + 3] = gt.data[i * 4 + 3]!;
    }
    const floor = measure({ width: gt.width, height: gt.height, data: oracle }, gt);
    expect(m.haloMean).toBeLessThan(floor.haloMean + 1);
    // No speckle left on the background: every pixel far from the art is fully transparent.
    let stray = 0;
    for (let y = 0; y < 30; y++) for (let x = 0; x < 256; x++) if (r.data[(y * 256 + x) * 4 + 3]! > 0) stray++;
    expect(stray).toBe(0);
  });

  it('fits a smooth gradient background', () => {
    const r = matteArtwork(composite(gt, (x, y) => [250 - (x * 40) / 255, 245 - (y * 20) / 255, 230 + (x * 20) / 255]));
    const m = measure({ width: gt.width, height: gt.height, data: r.data }, gt);
    expect(r.stats.background).toBe('quadratic');
    expect(m.iou).toBeGreaterThan(0.99);
    expect(m.haloMean).toBeLessThan(4);
  });

  it('ignores art that touches the border when fitting the background', async () => {
    const art = await renderSvg('<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120"><rect x="0" y="30" width="90" height="40" fill="#202020"/><rect x="100" y="0" width="30" height="120" fill="#e07020"/></svg>');
    const r = matteArtwork(composite(art, () => [235, 240, 250]));
    expect(r.stats.backgroundColor).toBe('#ebf0fa');
    expect(r.separability.separable).toBe(true);
    expect(measure({ width: 160, height: 120, data: r.data }, art).iou).toBeGreaterThan(0.99);
  });

  it('removes enclosed counters (ring, letter O) but keeps background-coloured specks smaller than noise', async () => {
    const art = await renderSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200">
      <circle cx="60" cy="100" r="36" fill="none" stroke="#000" stroke-width="14"/>
      <text x="110" y="140" font-family="sans-serif" font-weight="bold" font-size="90" fill="#203080">O</text>
      <rect x="150" y="10" width="40" height="40" fill="#c02020"/><rect x="169" y="29" width="2" height="2" fill="#fff"/></svg>`);
    const r = matteArtwork(composite(art, white));
    const a = (x: number, y: number): number => r.data[(y * 200 + x) * 4 + 3]!;
    expect(a(60, 100)).toBe(0); // ring counter
    expect(r.stats.holesRemoved).toBeGreaterThanOrEqual(2);
    expect(a(169, 29)).toBe(255); // 2x2 white speck inside red: below the hole size, stays
    expect(a(170, 30)).toBe(255);
    expect(a(60, 100 - 36)).toBe(255); // on the ring
    const m = measure({ width: 200, height: 200, data: r.data }, art);
    expect(m.iou).toBeGreaterThan(0.99);
    // enclosed: keep -> only the border-connected background goes; the counter stays (white, opaque).
    const kept = matteArtwork(composite(art, white), { enclosed: 'keep' });
    expect(kept.data[(100 * 200 + 60) * 4 + 3]).toBe(255);
    expect(kept.stats.holesRemoved).toBe(0);
    expect(kept.data[3]).toBe(0);
  });

  it('decontaminates edge colour: a red disc on white keeps red edges (no pink)', async () => {
    const art = await renderSvg('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="20.3" fill="#d00000"/></svg>');
    const r = matteArtwork(composite(art, white));
    let partial = 0;
    for (let i = 0; i < 64 * 64; i++) {
      const a = r.data[i * 4 + 3]!;
      if (a > 20 && a < 235) {
        partial++;
        expect(r.data[i * 4]!).toBeGreaterThan(190);
        expect(r.data[i * 4 + 1]!).toBeLessThan(30);
        expect(r.data[i * 4 + 2]!).toBeLessThan(30);
      }
    }
    expect(partial).toBeGreaterThan(20);
  });
});

describe('removeBackground paths', () => {
  it('never cuts a photo-like image without a model: auto -> 422 not_separable; matte asked for -> best matte with the warning', async () => {
    // Random texture everywhere, a dark disc in the middle.
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const w = 160, h = 160, data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4, inDisc = (x - 80) ** 2 + (y - 80) ** 2 < 40 ** 2;
      const v = inDisc ? 20 : 120 + rand() * 135;
      data[i] = v; data[i + 1] = inDisc ? v : 255 - v / 2; data[i + 2] = inDisc ? v : rand() * 255; data[i + 3] = 255;
    }
    await expect(removeBackground({ width: w, height: h, data }, { backend: 'auto', model: null, jpeg: false })).rejects.toMatchObject({
      code: 'not_separable', details: { model: 'absent', reason: expect.stringMatching(/textured|border/) },
      // In engine terms: no command of a host the engine does not contain (the CLI and the service add their hint).
      message: expect.not.stringMatching(/inkprep/),
    });
    await expect(removeBackground({ width: w, height: h, data }, { backend: 'auto', model: null, jpeg: false, modelState: 'loading' })).rejects.toMatchObject({
      code: 'not_separable', details: { model: 'loading' },
    });
    const r = await removeBackground({ width: w, height: h, data }, { backend: 'matte', model: null, jpeg: false });
    expect(r.method).toBe('matte');
    expect(r.stats.separable).toBe(false);
    expect(r.warnings.some((s) => s.startsWith('not_separable: '))).toBe(true);
    expect(r.warnings.join(' ')).toMatch(/^[\x20-\x7e]*$/); // fits an HTTP header
    expect(r.data.length).toBe(w * h * 4);
  });

  it('returns an already transparent image unchanged with method alpha', async () => {
    const r0 = await renderSvg(logoSvg(64));
    const r = await removeBackground(r0, { backend: 'auto', model: null, jpeg: false });
    expect(r.method).toBe('alpha');
    expect(Buffer.from(r.data).equals(Buffer.from(r0.data))).toBe(true);
    expect(r.warnings[0]).toMatch(/^already_transparent: /);
  });
});
