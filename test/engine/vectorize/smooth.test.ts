// The JPEG smoothing path visits only the pixels that can change (flat windows are skipped by a work list) and
// hands blend detection a map of the windows that may hold contrast. Both are shortcuts: the results must be the
// ones the plain filter (every traced pixel, every pass) and the full blend scan give, bit for bit.
import { describe, expect, it } from 'vitest';
import { bilateralLab, toLab } from '../../../engine/src/vectorize/quantize/smooth.js';
import { detectBlends } from '../../../engine/src/vectorize/quantize/blend.js';
import { rgbToLab } from '@inkprep/engine/internals';
import { jpeg, art } from './helpers-colour.js';
import { rng } from '../random.js';


/** Flat blocks of a few inks (some pairs close enough to be smoothed across) with noisy patches, some pixels untraced. */
function noisyArt(w: number, h: number, seed: number, holes: boolean): { rgba: Uint8ClampedArray; mask: Uint8Array } {
  const r = rng(seed);
  const inks = [[250, 250, 250], [30, 60, 200], [236, 238, 244], [220, 40, 40], [44, 70, 206], [20, 20, 20]];
  const rgba = new Uint8ClampedArray(w * h * 4);
  const mask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const ink = inks[((x >> 3) + (y >> 2) * 3 + (x * y > 300 ? 1 : 0)) % inks.length]!;
      const noisy = ((x >> 2) + (y >> 2)) % 3 === 0;
      // Runs of a close shade on the image border: border pixels change while the flat pixels inside do not.
      const rim = (y === 0 || y === h - 1 || x === 0 || x === w - 1) && (x + y) % 7 < 3 ? 8 : 0;
      for (let c = 0; c < 3; c++) rgba[i * 4 + c] = ink[c]! + rim + (noisy ? Math.round((r() - 0.5) * 12) : 0);
      rgba[i * 4 + 3] = 255;
      mask[i] = holes && r() < 0.03 ? 0 : 1;
    }
  }
  return { rgba, mask };
}

/** One flat ink with a close shade in the four corners: border pixels change next to interior pixels that stay flat. */
function cornersArt(w: number, h: number): { rgba: Uint8ClampedArray; mask: Uint8Array } {
  const rgba = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) rgba.set([120, 140, 90, 255], i * 4);
  for (const i of [0, w - 1, w * h - w, w * h - 1]) rgba.set([128, 146, 98, 255], i * 4);
  return { rgba, mask: new Uint8Array(w * h).fill(1) };
}

/** The filter as specified: every traced pixel, every pass; a flat pixel (interior, equal to its four traced neighbours) keeps its value. */
function plainBilateral(lab: Float32Array, mask: Uint8Array, w: number, h: number, sigmaR: number, passes: number): Float32Array {
  let src = lab.slice();
  const TABLE = 1024;
  const maxD2 = 9 * sigmaR * sigmaR;
  const scale = (TABLE - 1) / maxD2;
  const range = new Float32Array(TABLE);
  for (let i = 0; i < TABLE; i++) range[i] = Math.exp(-(i / scale) / (2 * sigmaR * sigmaR));
  const sw = [Math.exp(-1), Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), 1, Math.exp(-0.5), Math.exp(-1), Math.exp(-0.5), Math.exp(-1)];
  const eq = (a: number, b: number): boolean => src[a * 3] === src[b * 3] && src[a * 3 + 1] === src[b * 3 + 1] && src[a * 3 + 2] === src[b * 3 + 2];
  for (let pass = 0; pass < passes; pass++) {
    const dst = src.slice();
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        if (!mask[i]) continue;
        const inner = x > 0 && y > 0 && x < w - 1 && y < h - 1;
        if (inner && [i - 1, i + 1, i - w, i + w].every((j) => mask[j] && eq(i, j))) continue;
        let sL = 0, sA = 0, sB = 0, sWt = 0, k = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++, k++) {
            const xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= w || yy >= h || !mask[yy * w + xx]) continue;
            const q = (yy * w + xx) * 3;
            const dL = src[q]! - src[i * 3]!, dA = src[q + 1]! - src[i * 3 + 1]!, dB = src[q + 2]! - src[i * 3 + 2]!;
            const d2 = dL * dL + dA * dA + dB * dB;
            if (d2 >= maxD2) continue;
            const wt = sw[k]! * range[(d2 * scale) | 0]!;
            sL += wt * src[q]!; sA += wt * src[q + 1]!; sB += wt * src[q + 2]!; sWt += wt;
          }
        }
        dst[i * 3] = sL / sWt; dst[i * 3 + 1] = sA / sWt; dst[i * 3 + 2] = sB / sWt;
      }
    }
    src = dst;
  }
  return src;
}

describe('JPEG smoothing shortcuts', () => {
  it('toLab gives the direct conversion of every pixel', () => {
    const { rgba } = noisyArt(61, 47, 1, false);
    const r = rng(9);
    for (let i = 0; i < rgba.length; i += 4) if (r() < 0.3) for (let c = 0; c < 3; c++) rgba[i + c] = Math.floor(r() * 256);
    const lab = toLab(rgba);
    for (let i = 0; i < rgba.length >> 2; i++) {
      const want = Float32Array.from(rgbToLab(rgba[i * 4]!, rgba[i * 4 + 1]!, rgba[i * 4 + 2]!));
      expect([lab[i * 3], lab[i * 3 + 1], lab[i * 3 + 2]]).toEqual([want[0], want[1], want[2]]);
    }
  });

  for (const [name, holes, passes] of [['opaque', false, 2], ['with untraced pixels', true, 2], ['three passes', true, 3]] as const) {
    it(`the work-list filter equals the plain filter bit for bit (${name})`, () => {
      for (const [w, h, seed] of [[64, 40, 1], [33, 17, 2], [9, 7, 3], [3, 3, 5], [5, 90, 4], [1, 9, 6], [9, 1, 7], [2, 2, 8], [1, 1, 9]] as const) {
        const { rgba, mask } = seed === 3 ? cornersArt(w, h) : noisyArt(w, h, seed, holes);
        const want = plainBilateral(toLab(rgba), mask, w, h, 7, passes);
        for (const px of [rgba, undefined]) {
          const img = bilateralLab(toLab(rgba), mask, w, h, 7, passes, px);
          expect(Buffer.from(img.lab.buffer).equals(Buffer.from(want.buffer))).toBe(true);
        }
      }
    });
  }

  it('a pixel outside the varied map has nine equal colours, and blend detection finds the same blends without the map', async () => {
    const r = await jpeg(await art(160, 120, `<rect width="160" height="120" fill="#ffffff"/><circle cx="60" cy="60" r="37.3" fill="#e63946"/><rect x="100" y="20" width="40" height="70" fill="#264653"/>`));
    const { width: w, height: h } = r;
    const mask = new Uint8Array(w * h).fill(1);
    const img = bilateralLab(toLab(r.data), mask, w, h, 7, 2, r.data);
    const varied = img.varied!;
    let flat = 0;
    for (let y = 1; y < h - 1; y++) {
      for (let x = 1; x < w - 1; x++) {
        const i = y * w + x;
        if (varied[i]) continue;
        flat++;
        for (const j of [i - w - 1, i - w, i - w + 1, i - 1, i + 1, i + w - 1, i + w, i + w + 1]) {
          expect([img.lab[j * 3], img.lab[j * 3 + 1], img.lab[j * 3 + 2]]).toEqual([img.lab[i * 3], img.lab[i * 3 + 1], img.lab[i * 3 + 2]]);
        }
      }
    }
    expect(flat).toBeGreaterThan(w * h / 4);
    const blends = detectBlends(img, mask, w, h);
    expect(blends.some((b) => b >= 0)).toBe(true);
    expect(Buffer.from(blends.buffer).equals(Buffer.from(detectBlends({ index: img.index, lab: img.lab }, mask, w, h).buffer))).toBe(true);
  });
});
