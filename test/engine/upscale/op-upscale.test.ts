// Op `upscale` through the Engine facade (in-thread): option validation, 413 from the header, pre-shrink,
// accepted formats, transparency and density in the PNG it returns.
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createEngine, InkprepError, textOptions } from '@inkprep/engine';

const engine = createEngine({ threads: 0 });
afterAll(() => engine.close());

/** A blue square with a transparent border, as PNG. */
async function png(w: number, h: number, opts: { dpi?: number } = {}): Promise<Uint8Array> {
  const data = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const inside = x >= w / 4 && x < (3 * w) / 4 && y >= h / 4 && y < (3 * h) / 4;
    data.set(inside ? [20, 60, 220, 255] : [0, 0, 0, 0], (y * w + x) * 4);
  }
  let s = sharp(data, { raw: { width: w, height: h, channels: 4 } });
  if (opts.dpi) s = s.withMetadata({ density: opts.dpi });
  return new Uint8Array(await s.png().toBuffer());
}

async function rejection(p: Promise<unknown>): Promise<InkprepError> {
  try {
    await p;
  } catch (e) {
    return e as InkprepError;
  }
  throw new Error('expected a rejection');
}

describe('op upscale', () => {
  it('defaults to 4x, reports the route, keeps transparency', async () => {
    const out = await engine.upscale(await png(24, 16));
    expect(out.scale).toBe(4);
    expect([out.width, out.height]).toEqual([96, 64]);
    expect(['vector', 'model', 'resample']).toContain(out.route);
    expect(out.preShrunk).toBe(false);
    expect(out.from).toEqual({ width: 24, height: 16 });
    const { data, info } = await sharp(out.data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([96, 64]);
    expect(data[3]).toBe(0); // transparent corner
    expect(data[(32 * 96 + 48) * 4 + 3]).toBe(255); // opaque centre
  });

  it('validates scale (2 or 4) naming the field', async () => {
    for (const bad of [textOptions({ scale: '3' }), { scale: 3 as never }, textOptions({ scale: 'x' }), { scale: 8 as never }, { scale: '2' as never }]) {
      const err = await rejection(engine.upscale(await png(8, 8), bad));
      expect(err.code).toBe('invalid_option');
      expect(err.details.field).toBe('scale');
    }
    expect((await engine.upscale(await png(8, 8), { scale: 2 })).width).toBe(16);
    expect((await engine.upscale(await png(8, 8), textOptions({ scale: '2' }))).width).toBe(16);
  });

  it('pre-shrinks input over the budget and refuses input over 4x the budget (413 from the header)', async () => {
    const shrunk = await engine.upscale(await png(30, 20), { scale: 4, budget4x: 150 });
    expect(shrunk.preShrunk).toBe(true);
    expect(shrunk.from).toEqual({ width: 30, height: 20 });
    expect(shrunk.to.width * shrunk.to.height).toBeLessThanOrEqual(150);
    expect([shrunk.width, shrunk.height]).toEqual([shrunk.to.width * 4, shrunk.to.height * 4]);
    const err = await rejection(engine.upscale(await png(31, 20), { scale: 4, budget4x: 150 }));
    expect(err.code).toBe('image_too_large');
    expect(err.details).toEqual({ maxPixels: 600, pixels: 620 });
    // The 2x budget is separate.
    expect((await engine.upscale(await png(31, 20), { scale: 2, budget: 1000, budget4x: 150 })).preShrunk).toBe(false);
  });

  it('accepts JPEG, refuses WebP', async () => {
    const jpeg = new Uint8Array(await sharp(Buffer.from(await png(16, 16))).flatten({ background: '#fff' }).jpeg().toBuffer());
    expect((await engine.upscale(jpeg, { scale: 2 })).width).toBe(32);
    const webp = new Uint8Array(await sharp(Buffer.from(await png(16, 16))).webp().toBuffer());
    expect((await rejection(engine.upscale(webp))).code).toBe('unsupported_format');
  });

  it('scales a stated density with the image (72 DPI x4 -> 288 DPI)', async () => {
    const out = await engine.upscale(await png(16, 16, { dpi: 72 }), { scale: 4 });
    expect((await sharp(out.data).metadata()).density).toBe(288);
  });
});
