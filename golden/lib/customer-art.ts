// Made-up customer uploads with the defects DTF shops see every day, built from the open corpus so tests,
// benches and goldens share them: glow + drop shadow, a light "white outline" fringe left by a magic-wand
// cut-out (opaque and semi-transparent light pixels around the art), stray specks of 1-6 px around the
// art, and art too small for its print width. Every generator is deterministic.
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { readCorpus } from './corpus.js';

export type RGB = [number, number, number];

function fromBuffer(data: Buffer, width: number, height: number): Raster {
  return { width, height, data: new Uint8ClampedArray(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
}

const rawOf = (r: Raster) => ({ raw: { width: r.width, height: r.height, channels: 4 as const } });
const buf = (r: Raster): Buffer => Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);

/** A corpus SVG rendered to fit `size` px (long side), centred on a transparent canvas with `margin` px around. */
export async function corpusArt(file: string, size: number, margin = 0): Promise<Raster> {
  const svg = Buffer.from(readCorpus(file));
  const meta = await sharp(svg).metadata();
  const density = Math.min(2400, (72 * size) / Math.max(meta.width ?? size, meta.height ?? size));
  const { data, info } = await sharp(svg, { density })
    .resize(size, size, { fit: 'inside' })
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return fromBuffer(data, info.width, info.height);
}

/** Replace every visible pixel's colour by `rgb` (keeps alpha): one-colour art with a known colour. */
export function recolour(r: Raster, rgb: RGB): Raster {
  const data = r.data.slice();
  for (let i = 0; i < data.length; i += 4) if (data[i + 3]) data.set(rgb, i);
  return { width: r.width, height: r.height, data };
}

/** Alpha of `r` as a one-colour layer (colour `rgb`, alpha scaled by `opacity`), blurred by `sigma` px and shifted. */
async function layerFromAlpha(r: Raster, rgb: RGB, opacity: number, sigma: number, dx = 0, dy = 0): Promise<Raster> {
  const data = new Uint8ClampedArray(r.data.length);
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      const sx = x - dx;
      const sy = y - dy;
      if (sx < 0 || sy < 0 || sx >= r.width || sy >= r.height) continue;
      const a = r.data[(sy * r.width + sx) * 4 + 3]!;
      if (a) data.set([rgb[0], rgb[1], rgb[2], Math.round(a * opacity)], (y * r.width + x) * 4);
    }
  }
  const layer = { width: r.width, height: r.height, data };
  const blurred = await sharp(buf(layer), rawOf(layer)).blur(sigma).raw().toBuffer();
  return fromBuffer(blurred, r.width, r.height);
}

/** Composite layers bottom to top (premultiplied "over"). */
async function over(layers: Raster[]): Promise<Raster> {
  const [base, ...rest] = layers;
  const out = await sharp(buf(base!), rawOf(base!))
    .composite(rest.map((l) => ({ input: buf(l), raw: rawOf(l).raw })))
    .raw()
    .toBuffer();
  return fromBuffer(out, base!.width, base!.height);
}

/** Art with a wide coloured outer glow and a soft black drop shadow under it (a glow + shadow upload). */
export async function glowAndShadow(file: string, size: number, glow: RGB = [255, 200, 40]): Promise<Raster> {
  const art = await corpusArt(file, Math.round(size * 0.76), Math.round(size * 0.12));
  const shadow = await layerFromAlpha(art, [0, 0, 0], 0.6, size / 120, Math.round(size / 60), Math.round(size / 45));
  const halo = await layerFromAlpha(art, glow, 0.9, size / 50);
  return over([shadow, halo, art]);
}

/**
 * One-colour art cut out of a white background too generously: the art was anti-aliased against white,
 * then its mask was grown by `grow` px with a soft edge, so a light rim surrounds it: opaque white-mixed
 * pixels next to the art, then semi-transparent white ones (e.g. (255,255,255,α187)).
 */
export async function whiteOutline(file: string, size: number, rgb: RGB = [200, 30, 40], grow = 2): Promise<Raster> {
  const art = recolour(await corpusArt(file, Math.round(size * 0.8), Math.round(size * 0.1)), rgb);
  const { width: w, height: h } = art;
  // art over white
  const data = new Uint8ClampedArray(art.data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = art.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) data[i + c] = Math.round(a * rgb[c]! + (1 - a) * 255);
  }
  // grown soft mask: max of alpha in a disc of radius `grow`, then a slight blur
  const A = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) A[p] = art.data[p * 4 + 3]!;
  const G = new Uint8Array(w * h);
  const r = Math.ceil(grow);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let m = 0;
      for (let dy = -r; dy <= r; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -r; dx <= r; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w || dx * dx + dy * dy > grow * grow) continue;
          const v = A[yy * w + xx]!;
          if (v > m) m = v;
        }
      }
      G[y * w + x] = m;
    }
  }
  const blurred = await sharp(Buffer.from(G), { raw: { width: w, height: h, channels: 1 } }).blur(0.8).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  const ch = blurred.info.channels;
  for (let p = 0; p < w * h; p++) data[p * 4 + 3] = blurred.data[p * ch]!;
  return { width: w, height: h, data };
}

/** Deterministic pseudo-random numbers in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Art of `artPx` px centred on a `canvasPx` square with `count` stray specks: dark squares of 1-6 px a side scattered in the transparent margin, at least `clearance` px from the art.
 * Returns the raster and the art's bounding box (what a correct trim keeps).
 */
export async function strayspecks(file: string, canvasPx: number, artPx: number, count = 60, clearance = 40): Promise<{ raster: Raster; artBox: { x: number; y: number; width: number; height: number }; specks: number }> {
  const art = await corpusArt(file, artPx);
  const r: Raster = { width: canvasPx, height: canvasPx, data: new Uint8ClampedArray(canvasPx * canvasPx * 4) };
  const ox = Math.floor((canvasPx - art.width) / 2);
  const oy = Math.floor((canvasPx - art.height) / 2);
  for (let y = 0; y < art.height; y++) r.data.set(art.data.subarray(y * art.width * 4, (y + 1) * art.width * 4), ((oy + y) * canvasPx + ox) * 4);
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (let y = 0; y < canvasPx; y++) {
    for (let x = 0; x < canvasPx; x++) {
      if (!r.data[(y * canvasPx + x) * 4 + 3]) continue;
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
  }
  const rand = rng(1234);
  let placed = 0;
  const taken: Array<[number, number]> = [];
  while (placed < count) {
    const x = Math.floor(rand() * (canvasPx - 8)) + 2;
    const y = Math.floor(rand() * (canvasPx - 8)) + 2;
    if (x > x0 - clearance && x < x1 + clearance && y > y0 - clearance && y < y1 + clearance) continue;
    if (taken.some(([a, b]) => Math.hypot(a - x, b - y) < clearance)) continue;
    taken.push([x, y]);
    const side = 1 + (placed % 6); // squares of 1..6 px (0.08-0.5 mm at 300 DPI)
    for (let yy = y; yy < y + side; yy++) for (let xx = x; xx < x + side; xx++) r.data.set([30, 30, 30, 255], (yy * canvasPx + xx) * 4);
    placed++;
  }
  return { raster: r, artBox: { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }, specks: placed };
}

/** A horizontal alpha ramp 0 -> 255 across `w` px (one colour): the tonal range of a fade. */
export function alphaRamp(w: number, h: number, rgb: RGB = [40, 120, 200]): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set([rgb[0], rgb[1], rgb[2], Math.round(((x + 0.5) / w) * 255)], (y * w + x) * 4);
  return { width: w, height: h, data };
}

/** A uniform patch of one alpha. */
export function alphaPatch(w: number, h: number, alpha: number, rgb: RGB = [40, 120, 200]): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set([rgb[0], rgb[1], rgb[2], alpha], i);
  return { width: w, height: h, data };
}
