// Shared test helpers: render art with known alpha, composite it over backgrounds, measure the matte.
import sharp from 'sharp';
import type { Raster } from '@inkprep/engine';
import { rgbToLab, type Vec3 } from '@inkprep/engine/internals';

/** Render an SVG to straight-alpha RGBA (the ground truth). */
export async function renderSvg(svg: string): Promise<Raster> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data) };
}

/** Composite straight-alpha art over a background given per pixel (8-bit sRGB blend, as renderers do). */
export function composite(gt: Raster, bg: (x: number, y: number) => [number, number, number]): Raster {
  const out = new Uint8ClampedArray(gt.data.length);
  for (let y = 0; y < gt.height; y++) {
    for (let x = 0; x < gt.width; x++) {
      const i = (y * gt.width + x) * 4;
      const a = gt.data[i + 3]! / 255;
      const b = bg(x, y);
      for (let c = 0; c < 3; c++) out[i + c] = Math.round(gt.data[i + c]! * a + b[c]! * (1 - a));
      out[i + 3] = 255;
    }
  }
  return { width: gt.width, height: gt.height, data: out };
}

/** JPEG round trip at quality q (4:2:0 chroma, as most uploads). */
export async function jpegRoundTrip(r: Raster, q = 85): Promise<Uint8Array> {
  const j = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } }).flatten().jpeg({ quality: q }).toBuffer();
  return new Uint8Array(j);
}

export async function encodePngRaster(r: Raster): Promise<Uint8Array> {
  return new Uint8Array(await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } }).png().toBuffer());
}

export async function decodePng(bytes: Uint8Array): Promise<Raster> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data) };
}

export interface MatteMetrics {
  /** Mean |α - α_gt| over all pixels (0-1). */
  meanAbsAlpha: number;
  /** Soft IoU Σmin(α, α_gt) / Σmax(α, α_gt). */
  iou: number;
  /** Mean |α - α_gt| over the ground truth's edge pixels (0 < α_gt < 1). */
  edgeAbsAlpha: number;
  /** Mean and max CIE76 ΔE between output and true colour where both alphas are at least 0.25 and α_gt < 1 or next to transparency. */
  haloMean: number;
  haloP95: number;
}

/** Compare a matte with the ground truth. */
export function measure(out: Raster, gt: Raster): MatteMetrics {
  const n = gt.width * gt.height, w = gt.width;
  let sAbs = 0, sMin = 0, sMax = 0, eAbs = 0, eN = 0;
  const halo: number[] = [];
  const p: Vec3 = [0, 0, 0], q: Vec3 = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const a = out.data[i * 4 + 3]! / 255, g = gt.data[i * 4 + 3]! / 255;
    sAbs += Math.abs(a - g); sMin += Math.min(a, g); sMax += Math.max(a, g);
    if (g > 0 && g < 1) { eAbs += Math.abs(a - g); eN++; }
    const x = i % w, y = (i - x) / w;
    const nearClear = g > 0 && [i - 1, i + 1, i - w, i + w].some((j) => j >= 0 && j < n && Math.abs((j % w) - x) <= 1 && gt.data[j * 4 + 3]! === 0);
    if (a >= 0.25 && g >= 0.25 && (g < 1 || nearClear) && y >= 0) {
      rgbToLab(out.data[i * 4]!, out.data[i * 4 + 1]!, out.data[i * 4 + 2]!, p);
      rgbToLab(gt.data[i * 4]!, gt.data[i * 4 + 1]!, gt.data[i * 4 + 2]!, q);
      halo.push(Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
    }
  }
  halo.sort((a, b) => a - b);
  return {
    meanAbsAlpha: sAbs / n,
    iou: sMax > 0 ? sMin / sMax : 1,
    edgeAbsAlpha: eN ? eAbs / eN : 0,
    haloMean: halo.length ? halo.reduce((s, v) => s + v, 0) / halo.length : 0,
    haloP95: halo.length ? halo[Math.floor(halo.length * 0.95)]! : 0,
  };
}

/** A logo-like test SVG: filled shapes, a stroked ring with its counter, a thin line, three colours. */
export function logoSvg(size = 256): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 256 256">
  <circle cx="80" cy="90" r="44" fill="none" stroke="#1a1a2e" stroke-width="18"/>
  <rect x="140" y="48" width="80" height="80" rx="12" fill="#e63946"/>
  <path d="M40 200 L216 170" stroke="#1d3557" stroke-width="3"/>
  <polygon points="150,150 220,230 120,225" fill="#2a9d8f"/>
</svg>`;
}

export { renderCorpusPiece } from '../../../golden/lib/art-render.js';

/** The non-flag pieces of the open corpus (flags are full-bleed: nothing to cut out). */
export async function corpusPieces(): Promise<string[]> {
  const { readCorpus } = await import('../../../golden/lib/corpus.js');
  const m = JSON.parse(readCorpus('manifest.json')) as { items: { file: string }[] };
  return m.items.map((i) => i.file).filter((f) => !f.startsWith('flag-'));
}

/** The light gradient with vignette of bench remove-bg. */
export function lightGradient(size: number): (x: number, y: number) => [number, number, number] {
  return (x, y) => {
    const t = (x + y) / (2 * size);
    const dx = x / size - 0.5, dy = y / size - 0.5;
    const v = 1 - 0.12 * (dx * dx + dy * dy);
    return [(255 - 32 * t) * v, (255 - 22 * t) * v, (252 - 8 * t) * v];
  };
}
