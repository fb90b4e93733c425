// Golden area `fix`: POST /fix combinations on synthetic art with known defects and on corpus art —
// halftone of a glow, alpha threshold of a white-matte edge, despeckle + trim + resize, and resize
// followed by halftone at the final resolution. Halftone output is binary, so alpha IoU must stay ~1.
import sharp from 'sharp';
import { createEngine, type FixOptions, type Raster } from '@inkprep/engine';
import { encodePng } from '@inkprep/engine/internals';
import type { GoldenCase } from '../lib/golden.js';
import { readCorpus } from '../lib/corpus.js';

/** A disc with an anti-aliased edge, optional Gaussian glow of its colour and optional matte in the edge. */
function disc(size: number, r: number, o: { rgb: [number, number, number]; glowSigma?: number; rimPx?: number; matte?: [number, number, number] }): Raster {
  const data = new Uint8ClampedArray(size * size * 4);
  const c = size / 2;
  const rim = o.rimPx ?? 1;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x + 0.5 - c, y + 0.5 - c);
      let a = Math.min(1, Math.max(0, (r + rim / 2 - d) / rim));
      if (o.glowSigma && d > r) a = Math.max(a, 0.85 * Math.exp(-((d - r) ** 2) / (2 * o.glowSigma ** 2)));
      const A = Math.round(a * 255);
      if (!A) continue;
      const i = (y * size + x) * 4;
      for (let k = 0; k < 3; k++) data[i + k] = o.matte && A < 255 ? Math.round(a * o.rgb[k]! + (1 - a) * o.matte[k]!) : o.rgb[k]!;
      data[i + 3] = A;
    }
  }
  return { width: size, height: size, data };
}

async function corpus(file: string, size: number, margin = 0): Promise<Raster> {
  const svg = Buffer.from(readCorpus(file));
  const { data, info } = await sharp(svg, { density: 300 })
    .resize(size - 2 * margin, size - 2 * margin, { fit: 'inside' })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
}

/** Corpus art with a soft drop glow (blurred copy of its alpha, in its own colour) underneath. */
async function glowing(file: string, size: number): Promise<Raster> {
  const art = await corpus(file, size, Math.round(size * 0.12));
  const raw = { raw: { width: art.width, height: art.height, channels: 4 as const } };
  const glow = await sharp(Buffer.from(art.data.buffer), raw).blur(size / 40).raw().toBuffer();
  const out = await sharp(glow, raw).composite([{ input: Buffer.from(art.data.buffer), raw: raw.raw }]).raw().toBuffer();
  return { width: art.width, height: art.height, data: new Uint8ClampedArray(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength)) };
}

async function runFix(input: Raster, options: FixOptions): Promise<Uint8Array> {
  const engine = createEngine({ threads: 0 });
  try {
    return (await engine.fix(await encodePng(input), options)).data;
  } finally {
    await engine.close();
  }
}

export const cases: GoldenCase[] = [
  {
    name: 'glow-disc-halftone-35lpi',
    kind: 'png',
    tolerance: { minAlphaIoU: 0.995 },
    produce: async () => runFix(disc(320, 90, { rgb: [210, 30, 60], glowSigma: 18 }), { fix_halftone: true, print_width_inches: 1.2 }),
  },
  {
    name: 'white-matte-disc-alpha-threshold',
    kind: 'png',
    tolerance: { minAlphaIoU: 0.995 },
    produce: async () => runFix(disc(256, 90, { rgb: [20, 60, 200], rimPx: 2.5, matte: [255, 255, 255] }), { fix_alpha_threshold: true }),
  },
  {
    name: 'owl-despeckle-trim-resize',
    kind: 'png',
    async produce() {
      const art = await corpus('gi-barn-owl.svg', 600, 60);
      // sprinkle specks in the margin
      for (const [x, y] of [[10, 10], [590, 20], [30, 570], [300, 15]] as const) art.data.set([0, 0, 0, 255], (y * art.width + x) * 4);
      return runFix(art, { fix_despeckle: true, fix_trim: true, resize_width_px: 360 });
    },
  },
  {
    name: 'lion-glow-resize-halftone-25lpi',
    kind: 'png',
    tolerance: { minAlphaIoU: 0.99 },
    produce: async () => runFix(await glowing('noto-1f981-lion.svg', 400), { resize_width_px: 480, fix_halftone: true, halftone_lpi: 25, print_width_inches: 2, fix_alpha_threshold: true }),
  },
];
