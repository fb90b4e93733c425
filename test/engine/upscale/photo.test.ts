// The model route on real photographs (Debian mate-backgrounds wallpapers; skipped with the reason when the
// package is absent): a photo crop is shrunk 2x / 4x (bicubic) and upscaled back by the router, which must
// send it to the model and come closer to the original than Lanczos-3 + halo-free sharpen (the resample
// route) in PSNR and in SSIM; opaque photos stay opaque and the borders carry no dark line.
import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { modelUnavailableReason, upscaleRaster, upscaleResample } from '@inkprep/engine/internals';
import { compareRasters } from '../../../golden/lib/metrics.js';

const PHOTOS = ['Dune', 'Storm'].map((n) => `/usr/share/backgrounds/mate/nature/${n}.jpg`);
const missing = PHOTOS.find((f) => !existsSync(f));
const why = missing ? `${missing} absent (Debian package mate-backgrounds)` : await modelUnavailableReason();
if (why) console.log(`photo upscale tests skipped: ${why}`);

async function load(file: string, w: number, h: number): Promise<Raster> {
  const { data } = await sharp(file).resize(w, h, { fit: 'cover' }).removeAlpha().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: w, height: h, data: new Uint8ClampedArray(data) };
}

async function shrink(r: Raster, s: number): Promise<Raster> {
  const b = await sharp(Buffer.from(r.data), { raw: { width: r.width, height: r.height, channels: 4 } }).resize(r.width / s, r.height / s, { kernel: 'cubic' }).raw().toBuffer();
  return { width: r.width / s, height: r.height / s, data: new Uint8ClampedArray(b) };
}

function psnr(a: Raster, b: Raster): number {
  let se = 0;
  for (let i = 0; i < a.data.length; i += 4) for (let c = 0; c < 3; c++) se += (a.data[i + c]! - b.data[i + c]!) ** 2;
  return 10 * Math.log10((255 * 255) / (se / ((a.data.length / 4) * 3)));
}

describe.skipIf(why !== null)('model route on photos', () => {
  for (const scale of [2, 4] as const) {
    it(`${scale}x: beats Lanczos-3 + sharpen in PSNR and SSIM`, async () => {
      for (const file of PHOTOS) {
        const truth = await load(file, 512, 384); // as in bench `upscale`
        const input = await shrink(truth, scale);
        const out = await upscaleRaster(input, { scale, budget: 1e6, budget4x: 1e6, route: 'auto' });
        expect(out.route, file).toBe('model');
        expect(out.model?.variant).toBe('medium');
        const base = await upscaleResample(input, scale);
        const [p, q] = [psnr(out.raster, truth), compareRasters(out.raster, truth).ssim];
        const [pb, qb] = [psnr(base, truth), compareRasters(base, truth).ssim];
        expect(p, `${file} PSNR ${p.toFixed(2)} vs ${pb.toFixed(2)}`).toBeGreaterThan(pb);
        expect(q, `${file} SSIM ${q.toFixed(4)} vs ${qb.toFixed(4)}`).toBeGreaterThan(qb);
        for (let i = 3; i < out.raster.data.length; i += 4) if (out.raster.data[i] !== 255) throw new Error(`alpha ${out.raster.data[i]} at ${i >> 2}`);
      }
    });
  }
});
