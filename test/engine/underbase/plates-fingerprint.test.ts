// The underbase's output pinned byte for byte: plates, classes and the checks' regions on procedurally drawn
// art (seeded, so no renderer version moves it), compared with SHA-256 fingerprints taken from the code
// before it was made faster. Also the distance transform against a brute-force reference on random masks.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { computePlates, narrowKnockouts, resolveUnderbase, squaredDistance, thinWhite } from '@inkprep/engine/internals';
import { rng } from '../random.js';


const PALETTE: [number, number, number][] = [
  [220, 20, 30], [255, 255, 255], [0, 0, 0], [27, 27, 29], [246, 246, 243], [240, 200, 60], [30, 90, 200], [250, 250, 250], [128, 128, 128],
];

/** Discs, thin lines of several widths (some touching the border) and a few semi-transparent pixels. */
function drawArt(w: number, h: number, seed: number, semi: boolean): Raster {
  const r = rng(seed);
  const data = new Uint8ClampedArray(w * h * 4);
  const put = (x: number, y: number, c: [number, number, number], a = 255) => {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    data.set([c[0], c[1], c[2], a], (y * w + x) * 4);
  };
  for (let k = 0; k < 14; k++) {
    const c = PALETTE[Math.floor(r() * PALETTE.length)]!;
    const cx = r() * w, cy = r() * h, rad = 3 + r() * w / 5;
    for (let y = Math.floor(cy - rad); y <= cy + rad; y++) for (let x = Math.floor(cx - rad); x <= cx + rad; x++) {
      if ((x - cx) ** 2 + (y - cy) ** 2 <= rad * rad) put(x, y, c);
    }
  }
  for (let k = 0; k < 30; k++) {
    const c = PALETTE[Math.floor(r() * PALETTE.length)]!;
    const x0 = r() * w, y0 = r() * h, ang = r() * Math.PI, len = 10 + r() * w, half = 0.3 + r() * 4;
    const dx = Math.cos(ang), dy = Math.sin(ang);
    for (let t = -len / 2; t <= len / 2; t += 0.5) for (let s = -half; s <= half; s += 0.5) {
      put(Math.round(x0 + dx * t - dy * s), Math.round(y0 + dy * t + dx * s), c);
    }
  }
  if (semi) for (let k = 0; k < 200; k++) put(Math.floor(r() * w), Math.floor(r() * h), PALETTE[k % PALETTE.length]!, 1 + Math.floor(r() * 254));
  return { width: w, height: h, data };
}

function sha(...parts: (Uint8Array | Uint8ClampedArray | string)[]): string {
  const hash = createHash('sha256');
  for (const p of parts) hash.update(typeof p === 'string' ? p : new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
  return hash.digest('hex').slice(0, 16);
}

const CASES: { name: string; w: number; h: number; seed: number; semi: boolean; opts: Record<string, unknown> }[] = [
  { name: 'black garment, default choke', w: 300, h: 220, seed: 1, semi: false, opts: { garmentColor: '#1b1b1d', printWidthInches: 2 } },
  { name: 'white garment, 300 dpi', w: 257, h: 301, seed: 2, semi: true, opts: { garmentColor: '#f6f6f3' } },
  { name: 'knockout black, big choke, highlight', w: 240, h: 240, seed: 3, semi: true, opts: { knockout: 'black', chokeMm: 0.6, whiteDensity: 60, highlightWhite: 50, printWidthInches: 1 } },
  { name: 'no choke, no knockout', w: 199, h: 131, seed: 4, semi: false, opts: { chokeMm: 0, printWidthInches: 0.5 } },
  { name: 'alpha threshold', w: 220, h: 180, seed: 5, semi: true, opts: { garmentColor: '#000000', fixAlphaThreshold: true, printWidthInches: 3 } },
  { name: 'halftone', w: 200, h: 200, seed: 6, semi: true, opts: { garmentColor: '#808080', fixHalftone: true, printWidthInches: 1 } },
  { name: 'coarse print (thin lines everywhere)', w: 320, h: 90, seed: 7, semi: false, opts: { garmentColor: '#1b1b1d', printWidthInches: 8 } },
];

/** SHA-256 prefixes of the plates, classes and checks, from the transform before the speed work. */
const EXPECTED: Record<string, string> = {
  'black garment, default choke': '520f7811b4d968d3',
  'white garment, 300 dpi': '2ab82eda668f6b26',
  'knockout black, big choke, highlight': 'a95f23eb4f77e2f6',
  'no choke, no knockout': 'a79f189a9fe844d8',
  'alpha threshold': 'f85c20a8835dad81',
  'halftone': '7b99643c379fcf81',
  'coarse print (thin lines everywhere)': '2b67fe5befe1d880',
};

describe('underbase output is pinned', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const art = drawArt(c.w, c.h, c.seed, c.semi);
      const p = computePlates(art, resolveUnderbase(c.opts));
      const checks = JSON.stringify({ thin: thinWhite(p), gaps: narrowKnockouts(p), semi: p.semiTransparent, box: p.semiBox, choke: p.chokePx });
      const got = sha(p.white, p.colour.data, p.classes, checks);
      expect(got).toBe(EXPECTED[c.name]);
    });
  }
});

describe('squaredDistance', () => {
  it('equals the brute-force nearest source on random masks, with and without the border as source, with and without a limit', () => {
    const r = rng(42);
    for (let t = 0; t < 40; t++) {
      const w = 1 + Math.floor(r() * 23), h = 1 + Math.floor(r() * 23);
      const density = [0, 0.01, 0.1, 0.5, 0.95][t % 5]!;
      const src = new Uint8Array(w * h);
      for (let i = 0; i < src.length; i++) src[i] = r() < density ? 1 : 0;
      for (const outside of [false, true]) {
        const truth = new Float64Array(w * h);
        for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
          let best = Infinity;
          for (let yy = 0; yy < h; yy++) for (let xx = 0; xx < w; xx++) if (src[yy * w + xx]) best = Math.min(best, (x - xx) ** 2 + (y - yy) ** 2);
          if (outside) best = Math.min(best, (x + 1) ** 2, (w - x) ** 2, (y + 1) ** 2, (h - y) ** 2);
          truth[y * w + x] = best;
        }
        const got = squaredDistance(w, h, src, outside);
        for (let i = 0; i < w * h; i++) {
          if (truth[i] === Infinity) expect(got[i]).toBeGreaterThanOrEqual(1e19);
          else expect(got[i]).toBe(truth[i]);
        }
        // with a limit (scan and envelope paths): exact up to it, above it otherwise; written into `out`
        for (const limit of [0.35, 2.4, 7, 21.8, 64, 100.5]) {
          const out = new Float32Array(w * h).fill(-1);
          const lim = squaredDistance(w, h, src, outside, limit, out);
          expect(lim).toBe(out);
          for (let i = 0; i < w * h; i++) {
            if (truth[i]! <= limit) expect(lim[i]).toBe(truth[i]);
            else expect(lim[i]).toBeGreaterThan(limit);
          }
        }
      }
    }
  });
});
