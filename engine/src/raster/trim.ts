// Trimming: the bounding box of the pixels that carry any alpha, and cropping a Raster to a box.
import type { Raster } from './types.js';

/** A pixel rectangle: x, y of the top-left corner, width and height. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}


/** Bounding box of pixels with alpha >= minAlpha (default 1); null when every pixel is below it. */
export function opaqueBounds(r: Raster, minAlpha = 1): Box | null {
  const { width: w, height: h, data } = r;
  let top = -1;
  for (let y = 0; y < h && top < 0; y++) {
    for (let i = y * w * 4 + 3, e = i + w * 4; i < e; i += 4) if (data[i]! >= minAlpha) { top = y; break; }
  }
  if (top < 0) return null;
  let bottom = top;
  for (let y = h - 1; y > top; y--) {
    let hit = false;
    for (let i = y * w * 4 + 3, e = i + w * 4; i < e; i += 4) if (data[i]! >= minAlpha) { hit = true; break; }
    if (hit) { bottom = y; break; }
  }
  let left = w;
  let right = -1;
  for (let y = top; y <= bottom; y++) {
    const row = y * w * 4 + 3;
    for (let x = 0; x < left; x++) if (data[row + x * 4]! >= minAlpha) { left = x; break; }
    for (let x = w - 1; x > right; x--) if (data[row + x * 4]! >= minAlpha) { right = x; break; }
  }
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

/** Copy a box out of a raster (the box must lie inside it). */
export function cropRaster(r: Raster, b: Box): Raster {
  if (b.x === 0 && b.y === 0 && b.width === r.width && b.height === r.height) return r;
  const data = new Uint8ClampedArray(b.width * b.height * 4);
  for (let y = 0; y < b.height; y++) {
    const s = ((b.y + y) * r.width + b.x) * 4;
    data.set(r.data.subarray(s, s + b.width * 4), y * b.width * 4);
  }
  return { width: b.width, height: b.height, data };
}

/** Crop away fully transparent borders; an all-transparent image is returned unchanged. */
export function trimTransparent(r: Raster): { raster: Raster; box: Box } {
  const b = opaqueBounds(r, 1);
  if (!b) return { raster: r, box: { x: 0, y: 0, width: r.width, height: r.height } };
  return { raster: cropRaster(r, b), box: b };
}
