// A supplier's garment photo as a blank to print on (spec 4.12 "a design onto a garment photo", 2.8
// images.front/back). The photo is scaled to the output size; the garment is cut from its studio
// background with our own artwork matte (matte/matte.ts: background model from the border, enclosed
// regions kept); the shirt's own light becomes the ink's light (luminance / its median over the body) and
// its folds the ink's displacement (a band-pass of the luminance, as a relief in inches: brighter than
// the surroundings = raised); the scale comes from the chest line measured on the photo (the body's width
// one inch below the underarm, where the sleeves leave it) against the chest of the size shown; the
// centre line and the collar come from the garment's outline and the base style's measurements.
// Results are cached per photo bytes and output size (a customer tries several designs on one photo), within
// the thread's memory cache budget.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { memoryCacheGet, memoryCachePut } from '../cache/memory.js';
import { blur } from '../garments/field.js';
import type { GarmentAsset } from '../garments/cache.js';
import { drawGarment } from '../garments/outline.js';
import { SHADE_SCALE } from '../garments/shade.js';
import type { OwnStyle, View } from '../garments/specs.js';
import { matteArtwork } from '../matte/matte.js';

/** A photo made ready to print on: the asset plus the measured chest line. */
export interface PhotoGarment {
  asset: GarmentAsset;
  /** Width of the chest line in output pixels, and its row. */
  chest_px: number;
  chest_y: number;
}

/** A photo that cannot be used (not an image, no garment found, no chest line). */
export class PhotoError extends Error {}

/** Long side the garment is cut out at. */
const MATTE_PX = 800;

/** Fold relief (inches) per unit of luminance contrast against the surroundings. */
const RELIEF_IN = 0.3;
/** Luminance contrast (share of the median) below which the photo is taken as flat cloth. */
const RELIEF_DEAD_ZONE = 0.04;

/** Prepared photos in the thread's memory cache (cache/memory.ts) under this prefix; preparations running, by key. */
const PREFIX = 'photo:';
const running = new Map<string, Promise<PhotoGarment>>();
/** Bytes counted per pixel of a prepared photo: RGBA, mask, print mask, 16-bit light, 32-bit folds. */
const BYTES_PER_PX = 12;

/**
 * Prepare `photo` (encoded bytes) for printing at `longSide` px, for a garment drawn like `base`.
 * Throws PhotoError when it cannot be read or no garment is found in it.
 */
export function photoGarment(photo: Uint8Array, base: OwnStyle, view: View, longSide: number): Promise<PhotoGarment> {
  const key = `${createHash('sha1').update(photo).digest('hex')}:${base.id}:${view}:${longSide}`;
  const hit = memoryCacheGet<PhotoGarment>(PREFIX + key);
  if (hit) return Promise.resolve(hit);
  const pending = running.get(key);
  if (pending) return pending;
  const p = preparePhoto(photo, base, view, longSide).then((g) => {
    memoryCachePut(PREFIX + key, g, g.asset.width * g.asset.height * BYTES_PER_PX);
    return g;
  });
  const forget = () => running.delete(key);
  p.then(forget, forget);
  running.set(key, p);
  return p;
}

async function preparePhoto(photo: Uint8Array, base: OwnStyle, view: View, longSide: number): Promise<PhotoGarment> {
  let raw: { data: Buffer; info: { width: number; height: number } };
  try {
    raw = await sharp(photo, { limitInputPixels: 64e6, failOn: 'error' })
      .autoOrient().toColourspace('srgb').flatten({ background: '#ffffff' })
      .resize({ width: longSide, height: longSide, fit: 'inside', kernel: 'lanczos3' })
      .ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new PhotoError(`the photo could not be read as an image (${err instanceof Error ? err.message : String(err)})`);
  }
  const W = raw.info.width, H = raw.info.height, N = W * H;
  const rgba = new Uint8ClampedArray(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength);
  // The matte runs on a copy at most MATTE_PX on its long side (seconds less on a 2000 px photo); its
  // alpha is scaled back up (the garment's outline is smooth at that scale).
  const ms = Math.min(1, MATTE_PX / Math.max(W, H));
  const mw = Math.max(1, Math.round(W * ms)), mh = Math.max(1, Math.round(H * ms));
  const small = ms < 1
    ? new Uint8ClampedArray(await sharp(raw.data, { raw: { width: W, height: H, channels: 4 } }).resize(mw, mh, { kernel: 'cubic', fit: 'fill' }).raw().toBuffer())
    : rgba;
  const m = matteArtwork({ width: mw, height: mh, data: small }, { enclosed: 'keep' });
  const alphaSmall = new Uint8Array(mw * mh);
  for (let i = 0; i < mw * mh; i++) alphaSmall[i] = m.data[i * 4 + 3]!;
  const mask = ms < 1 ? upsample(alphaSmall, mw, mh, W, H) : new Uint8Array(alphaSmall);
  let count = 0;
  for (let i = 0; i < N; i++) if (mask[i]! >= 128) count++;
  if (count < N * 0.05) throw new PhotoError('no garment was found in the photo (its background could not be separated)');

  // Centre line: the middle of the garment's widest extent in the lower half (the body, sleeves aside).
  let top = H, bottom = -1;
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (mask[y * W + x]! >= 128) { if (y < top) top = y; bottom = y; break; }
  const run = (y: number, cx: number): [number, number] => {
    let a = cx, b = cx;
    if (mask[y * W + cx]! < 128) return [cx, cx];
    while (a > 0 && mask[y * W + a - 1]! >= 128) a--;
    while (b < W - 1 && mask[y * W + b + 1]! >= 128) b++;
    return [a, b + 1];
  };
  const gh = bottom - top + 1;
  let cxSum = 0, cxN = 0;
  for (let y = top + Math.round(gh * 0.6); y < top + Math.round(gh * 0.85); y++) {
    let a = -1, b = -1;
    for (let x = 0; x < W; x++) if (mask[y * W + x]! >= 128) { if (a < 0) a = x; b = x + 1; }
    if (a >= 0) { cxSum += (a + b) / 2; cxN++; }
  }
  if (cxN === 0) throw new PhotoError('no garment body was found in the photo');
  const cx = Math.round(cxSum / cxN);
  // Body width below the arms: the median run through the centre line over 55-75 % of the height.
  const widths: number[] = [];
  for (let y = top + Math.round(gh * 0.55); y < top + Math.round(gh * 0.75); y++) { const [a, b] = run(y, cx); widths.push(b - a); }
  widths.sort((p, q) => p - q);
  const body = widths[widths.length >> 1]!;
  // Underarm: going up from the body, the first row where the run widens past 1.3x the body (the sleeves).
  let armY = -1;
  for (let y = top + Math.round(gh * 0.55); y > top; y--) {
    const [a, b] = run(y, cx);
    if (b - a > body * 1.3) { armY = y; break; }
  }
  if (armY < 0 || body < W * 0.1) throw new PhotoError('the chest line could not be found on the photo (no sleeves or body width)');
  // The chest line is 1 in below the underarm: measure rows just below and take the width there.
  const shape = base.shape;
  const ppiGuess = body / shape.chest;
  const chestY = Math.min(bottom, armY + Math.round(ppiGuess * 1.2));
  const [ca, cb] = run(chestY, cx);
  const chestPx = cb - ca;
  // High point of the shoulder: the drawing's top is known in inches relative to it.
  const drawing = drawGarment(base.silhouette, shape, view);
  const ppi = chestPx / shape.chest;
  const hpsY = top - drawing.bounds.y0 * ppi;

  // Light: luminance over its median on the body, lightly smoothed (the ink takes the shirt's folds and
  // light, not its heather speckle); relief: luminance against its wider surroundings.
  const lum = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    const o = i * 4;
    const l = (0.2126 * lin(rgba[o]!) + 0.7152 * lin(rgba[o + 1]!) + 0.0722 * lin(rgba[o + 2]!));
    lum[i] = mask[i]! >= 128 ? l : 0;
  }
  const body01 = new Float32Array(N);
  for (let i = 0; i < N; i++) body01[i] = mask[i]! / 255;
  const wsmall = blur(body01, W, H, Math.max(0.7, 0.06 * ppi));
  const wlarge = blur(body01, W, H, 1.0 * ppi);
  const lsmall = blur(lum, W, H, Math.max(0.7, 0.06 * ppi));
  const llarge = blur(lum, W, H, 1.0 * ppi);
  // The relief is taken from a smoother copy with a dead zone, so photo noise and JPEG blocks do not
  // wobble the print: only folds (contrast of several percent over a tenth of an inch and more) move it.
  const wmid = blur(body01, W, H, 0.12 * ppi);
  const lmid = blur(lum, W, H, 0.12 * ppi);
  const hist: number[] = [];
  for (let i = 0; i < N; i += 3) if (mask[i]! === 255) hist.push(lsmall[i]! / Math.max(1e-4, wsmall[i]!));
  hist.sort((p, q) => p - q);
  const med = Math.max(1e-4, hist[hist.length >> 1] ?? 1e-4);
  const light = new Uint16Array(N);
  const fold = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    if (mask[i]! === 0) continue;
    const s = lsmall[i]! / Math.max(1e-4, wsmall[i]!);
    const l = llarge[i]! / Math.max(1e-4, wlarge[i]!);
    light[i] = Math.min(65535, Math.round((s / med) * SHADE_SCALE));
    // Relief only well inside the garment (its outline is not a fold).
    const inside = Math.min(1, Math.max(0, (wlarge[i]! - 0.55) / 0.3));
    const c = (lmid[i]! / Math.max(1e-4, wmid[i]!) - l) / med;
    const dead = Math.max(0, Math.abs(c) - RELIEF_DEAD_ZONE) * Math.sign(c);
    fold[i] = RELIEF_IN * Math.max(-1, Math.min(1, dead)) * inside;
  }
  // Print area: the garment less a thin rim (the matte's soft edge).
  const inner = blur(body01, W, H, Math.max(0.7, 0.05 * ppi));
  const printMask = new Uint8Array(N);
  for (let i = 0; i < N; i++) printMask[i] = inner[i]! > 0.97 ? mask[i]! : 0;
  const out = new Uint8ClampedArray(N * 4);
  out.set(rgba);
  for (let i = 3; i < out.length; i += 4) out[i] = 255;
  return {
    asset: {
      width: W, height: H, ppi, center_x: cx, collar_y: hpsY + (view === 'front' ? shape.front_drop : shape.back_drop) * ppi,
      rgba: out, mask, print_mask: printMask, fold_in: fold, light,
    },
    chest_px: chestPx,
    chest_y: chestY,
  };
}

/** Bilinear resample of a one-byte plane (pixel centres aligned). */
function upsample(src: Uint8Array, sw: number, sh: number, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(sh - 1, Math.max(0, ((y + 0.5) * sh) / h - 0.5));
    const y0 = sy | 0, y1 = Math.min(sh - 1, y0 + 1), ty = sy - y0;
    for (let x = 0; x < w; x++) {
      const sx = Math.min(sw - 1, Math.max(0, ((x + 0.5) * sw) / w - 0.5));
      const x0 = sx | 0, x1 = Math.min(sw - 1, x0 + 1), tx = sx - x0;
      const a = src[y0 * sw + x0]!, b = src[y0 * sw + x1]!, c = src[y1 * sw + x0]!, d = src[y1 * sw + x1]!;
      out[y * w + x] = Math.round((a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty);
    }
  }
  return out;
}

const LIN = new Float32Array(256);
for (let i = 0; i < 256; i++) { const c = i / 255; LIN[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; }
function lin(v: number): number { return LIN[v]!; }
