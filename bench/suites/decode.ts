// Bench: decoding at the edge and the pool round trip.
// - decodeImage (probe + sharp decode to sRGB RGBA + copy into a transferable buffer) vs a baseline of raw
//   `sharp(bytes).raw().toBuffer()` on the same ~4000x3000 PNG and JPEG (short mode: 2000x1500).
// - engine.info through a 1-thread Piscina pool vs `threads: 0` (in-thread) on a small PNG: the cost of
//   the worker hop, transfer and error/result messages.
import sharp from 'sharp';
import { createEngine } from '@inkprep/engine';
import { decodeImage } from '@inkprep/engine/internals';
import type { BenchContext } from '../lib/harness.js';

/** Artwork-like RGB test image: smooth gradients, hard-edged shapes and a little noise (JPEG-ish content). */
function syntheticRgb(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const n = (seed >> 16) % 9 - 4;
      const i = (y * width + x) * 3;
      const inCircle = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (height / 3) ** 2;
      const stripe = ((x >> 6) + (y >> 6)) & 1;
      data[i] = inCircle ? 220 + n : (x * 255) / width + n;
      data[i + 1] = inCircle ? 40 + n : stripe ? 200 : (y * 255) / height;
      data[i + 2] = inCircle ? 60 : 128 + n;
    }
  }
  return data;
}

export default async function decodeSuite(ctx: BenchContext): Promise<void> {
  const [w, h] = ctx.short ? [2000, 1500] : [4000, 3000];
  const rgb = syntheticRgb(w, h);
  const raw = { raw: { width: w, height: h, channels: 3 as const } };
  const png = new Uint8Array(await sharp(rgb, raw).png({ compressionLevel: 6 }).toBuffer());
  const jpeg = new Uint8Array(await sharp(rgb, raw).jpeg({ quality: 90 }).toBuffer());
  ctx.log(`fixtures: ${w}x${h} PNG ${(png.length / 1e6).toFixed(2)} MB, JPEG ${(jpeg.length / 1e6).toFixed(2)} MB`);

  for (const [label, bytes] of [['PNG', png], ['JPEG', jpeg]] as const) {
    const b = ctx.bench(`decode ${w}x${h} ${label}`, { iterations: 8, time: 2000 });
    b.add('baseline: sharp raw', async () => {
      await sharp(bytes).raw().toBuffer();
    });
    b.add('decodeImage', async () => {
      await decodeImage(bytes);
    });
    await ctx.runBench(b, { baseline: 'baseline: sharp raw' });
  }

  // Pool round trip on a small file, so the hop dominates.
  const small = new Uint8Array(await sharp(syntheticRgb(256, 256), { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer());
  const inThread = createEngine({ threads: 0 });
  const pooled = createEngine({ threads: 1 });
  try {
    await pooled.info(small.slice()); // start the worker outside the measurement
    const b = ctx.bench('engine.info 256x256 PNG: pool vs in-thread', { iterations: 50, time: 1000 });
    b.add('baseline: threads 0', async () => {
      await inThread.info(small.slice());
    });
    b.add('pool (1 worker, transfer)', async () => {
      await pooled.info(small.slice());
    });
    await ctx.runBench(b, { baseline: 'baseline: threads 0' });
  } finally {
    await Promise.all([inThread.close(), pooled.close()]);
  }
}
