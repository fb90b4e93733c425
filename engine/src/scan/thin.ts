// Thin-line detection: strokes narrower than 1 pt (1/72 in) at the print size. For each horizontal run
// of the solid mask (alpha >= 128) we sample the vertical extent v at points along the run (bounded
// scans); the local stroke width of a straight band crossing a pixel with horizontal extent h and
// vertical extent v is h*v / sqrt(h^2 + v^2) (exact at any angle), so a sample is thin when that is below
// the 1 pt width in pixels.
import { alphaPlane } from '../raster/alpha-plane.js';
import type { Raster } from '../raster/types.js';

export interface ThinReport {
  /** Minimum printable stroke width in px at the print resolution (1 pt). */
  minWidthPx: number;
  /** Solid pixels estimated to lie on strokes thinner than that. */
  thinPixels: number;
  /** Solid pixels (alpha >= 128). */
  solidPixels: number;
  /** thinPixels / solidPixels, 0..1. */
  thinShare: number;
}

/**
 * Estimate how much of the art is thinner than 1 pt at `dpi`.
 * @example thinLines(raster, 300).thinShare
 */
export function thinLines(r: Raster, dpi: number, plane: Uint8Array = alphaPlane(r)): ThinReport {
  const { width: w, height: h } = r;
  const A = plane;
  const words = A.byteOffset % 4 === 0 ? new Uint32Array(A.buffer, A.byteOffset, A.length >> 2) : null;
  const t = dpi / 72;
  let thin = 0;
  let solid = 0;
  // Below 1 px every stroke that exists is at least 1 pt wide.
  const active = t > 1;
  const cap = Math.ceil(t * 4) + 1;
  const step = Math.max(1, Math.floor(t));
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let x = 0;
    while (x < w) {
      if (words) {
        while (x < w && ((row + x) & 3) !== 0 && A[row + x]! < 128) x++;
        while (x + 4 <= w && words[(row + x) >> 2] === 0) x += 4;
      }
      while (x < w && A[row + x]! < 128) x++;
      if (x >= w) break;
      const start = x;
      if (words) {
        while (x < w && ((row + x) & 3) !== 0 && A[row + x]! >= 128) x++;
        while (x + 4 <= w && words[(row + x) >> 2] === 0xffffffff) x += 4;
      }
      while (x < w && A[row + x]! >= 128) x++;
      const hlen = x - start;
      solid += hlen;
      if (!active) continue;
      const hh = Math.min(hlen, cap * 4);
      // largest vertical extent that can still give width < t with this h (v < t h / sqrt(h^2 - t^2))
      const vmax = hh <= t * 1.03 ? cap : Math.min(cap, Math.ceil((t * hh) / Math.sqrt(hh * hh - t * t)));
      // sample points along the run; each stands for `step` pixels (the last one for the remainder)
      for (let sx = start + (Math.min(step, hlen) >> 1); sx < x; sx += step) {
        let v = 1;
        for (let yy = y - 1; v <= vmax && yy >= 0 && A[yy * w + sx]! >= 128; yy--) v++;
        for (let yy = y + 1; v <= vmax && yy < h && A[yy * w + sx]! >= 128; yy++) v++;
        if (v > vmax) continue;
        const width = (hh * v) / Math.sqrt(hh * hh + v * v);
        if (width < t) thin += Math.min(step, x - sx + (step >> 1));
      }
    }
  }
  return { minWidthPx: t, thinPixels: thin, solidPixels: solid, thinShare: solid > 0 ? thin / solid : 0 };
}
