// CIELAB image behind the quantize stage, sized by distinct colours rather than by pixels: clean art has a
// few thousand colours over millions of pixels, so a per-pixel entry index (4 B) and one Lab triple per
// distinct colour replace 12 B of floats per pixel (a 100 MP flat image: 400 MB instead of 1.2 GB).
// Smoothed (noisy) art has a Lab triple per pixel; its index is the identity.
import { rgbToLab, type Vec3 } from '../../colour/convert.js';
import type { Scratch } from '../scratch.js';
import { MAX_RUN_SHARE, type ColourRuns } from './runs.js';

/** Lab of pixel i: `lab[index[i] * 3 .. + 2]`. */
export interface LabImage {
  /** Pixel -> entry of `lab`. */
  index: Uint32Array;
  /** 3 CIELAB floats per entry. */
  lab: Float32Array;
  /**
   * Optional, per pixel: 0 guarantees that the pixel's 3x3 window holds nine equal colours (so no contrast
   * around it); 1 promises nothing. Set by the smoothing, which knows its flat pixels.
   */
  varied?: Uint8Array;
  /** Optional: the runs of one packed colour of each row (clean art, see runs.ts). */
  runs?: ColourRuns;
}

/**
 * One entry per distinct RGB (alpha ignored) of `rgba` (rows of `w` pixels), in order of first appearance, with
 * the runs of one colour of each row when few enough (see runs.ts). `scratch`: the index is a view of its buffer
 * (every element written here).
 */
export function labOfColours(rgba: Uint8ClampedArray, w: number, scratch?: Scratch): LabImage {
  const n = rgba.length >> 2;
  const h = w > 0 ? Math.floor(n / w) : 0;
  const px = new Uint32Array(rgba.buffer, rgba.byteOffset, n);
  const index = scratch ? scratch.uint32('lab.index', n) : new Uint32Array(n);
  // Open addressing on RGB; grows at half load.
  let size = 1 << 12;
  let keys = new Int32Array(size).fill(-1);
  let slots = new Uint32Array(size);
  let count = 0;
  let lab = new Float32Array(1024 * 3);
  const tmp: Vec3 = [0, 0, 0];
  // Run starts, while under the cap (then dropped: rows are scanned again where needed).
  const maxRuns = Math.floor(n * MAX_RUN_SHARE) + h;
  let starts: Int32Array | null = new Int32Array(Math.min(maxRuns, 1024 + 4 * h) + 1);
  const rowFirst = new Int32Array(h + 1);
  let r = 0;
  let prevPx = -1, prevEntry = 0;
  for (let y = 0; y < h; y++) {
    rowFirst[y] = r;
    const end = y * w + w;
    for (let i = y * w; i < end;) {
      const v = px[i]!;
      let j = i + 1;
      while (j < end && px[j] === v) j++;
      if (starts) {
        if (r + 1 === starts.length) {
          if (r === maxRuns) starts = null;
          else { const g = new Int32Array(Math.min(maxRuns, 2 * r) + 1); g.set(starts); starts = g; }
        }
        if (starts) starts[r++] = i;
      }
      // A row's first run may repeat the colour that ended the row above.
      if (v !== prevPx) {
        prevPx = v;
        const rgb = v & 0xffffff;
        let s = (Math.imul(rgb, 0x9e3779b1) >>> 0) & (size - 1);
        while (keys[s] !== -1 && keys[s] !== rgb) s = (s + 1) & (size - 1);
        if (keys[s] === rgb) prevEntry = slots[s]!;
        else {
          if (count * 3 === lab.length) { const g = new Float32Array(lab.length * 2); g.set(lab); lab = g; }
          rgbToLab(rgb & 255, (rgb >>> 8) & 255, (rgb >>> 16) & 255, tmp);
          lab[count * 3] = tmp[0]; lab[count * 3 + 1] = tmp[1]; lab[count * 3 + 2] = tmp[2];
          keys[s] = rgb; slots[s] = count;
          prevEntry = count++;
          if (count * 2 > size) {
            const oldKeys = keys, oldSlots = slots;
            size *= 2;
            keys = new Int32Array(size).fill(-1);
            slots = new Uint32Array(size);
            for (let t = 0; t < oldKeys.length; t++) {
              const k = oldKeys[t]!;
              if (k === -1) continue;
              let u = (Math.imul(k, 0x9e3779b1) >>> 0) & (size - 1);
              while (keys[u] !== -1) u = (u + 1) & (size - 1);
              keys[u] = k; slots[u] = oldSlots[t]!;
            }
          }
        }
      }
      if (j - i > 16) index.fill(prevEntry, i, j);
      else for (let t = i; t < j; t++) index[t] = prevEntry;
      i = j;
    }
  }
  rowFirst[h] = r;
  const img: LabImage = { index, lab: lab.slice(0, count * 3) };
  if (starts) { starts[r] = n; img.runs = { starts, rowFirst }; }
  return img;
}

/** A per-pixel Lab image (3 floats per pixel) with the identity index (`scratch`: a view of its buffer). */
export function perPixelLab(lab: Float32Array, scratch?: Scratch): LabImage {
  const n = lab.length / 3;
  const index = scratch ? scratch.uint32('lab.index', n) : new Uint32Array(n);
  for (let i = 0; i < n; i++) index[i] = i;
  return { index, lab };
}

/** Per-pixel Lab floats of an image (3 per pixel), for stages that rewrite them (smoothing). */
export function expandLab(img: LabImage): Float32Array {
  const n = img.index.length;
  const out = new Float32Array(n * 3);
  const { index, lab } = img;
  for (let i = 0; i < n; i++) {
    const e = index[i]! * 3;
    out[i * 3] = lab[e]!; out[i * 3 + 1] = lab[e + 1]!; out[i * 3 + 2] = lab[e + 2]!;
  }
  return out;
}
