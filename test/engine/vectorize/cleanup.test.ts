import { describe, expect, it } from 'vitest';
import { majorityCleanup } from '../../../engine/src/vectorize/quantize/cleanup.js';
import { TRANSPARENT } from '@inkprep/engine/internals';

/** The rule stated in cleanup.ts, applied by rescanning the whole map every pass (no change tracking). */
function referenceCleanup(labels: Uint16Array, w: number, h: number, passes: number): number {
  let total = 0;
  for (let pass = 0; pass < passes; pass++) {
    let changed = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const l = labels[y * w + x]!;
        if (l === TRANSPARENT) continue;
        let same = 0;
        const counts = new Map<number, number>();
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx, yy = y + dy;
            if ((dx === 0 && dy === 0) || xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
            const v = labels[yy * w + xx]!;
            if (v === l) same++;
            else if (v !== TRANSPARENT) counts.set(v, (counts.get(v) ?? 0) + 1);
          }
        }
        const others = [...counts.values()].reduce((a, b) => a + b, 0);
        if (same > 1 || others < 3) continue;
        let best = -1, bestC = 0;
        for (const [v, c] of counts) if (c > bestC || (c === bestC && v < best)) { best = v; bestC = c; }
        if (bestC >= 3) { labels[y * w + x] = best; changed++; }
      }
    }
    total += changed;
    if (!changed) break;
  }
  return total;
}

/** Deterministic noisy label map: blobs of a few labels, salt noise and transparent holes. */
function noisyMap(w: number, h: number, seed: number, inks: number): Uint16Array {
  let s = seed >>> 0;
  const rnd = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
  const out = new Uint16Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let l = (Math.floor(x / 23) + Math.floor(y / 17)) % inks;
      const r = rnd();
      if (r < 0.12) l = Math.floor(rnd() * inks);
      else if (r < 0.14) l = TRANSPARENT;
      out[y * w + x] = l;
    }
  }
  return out;
}

describe('majorityCleanup', () => {
  it('gives the same labels as rescanning every pixel each pass (change tracking skips only unchanged neighbourhoods)', () => {
    let changedSomewhere = 0;
    for (const [w, h, passes, inks, seed] of [[150, 40, 2, 3, 1], [200, 90, 4, 5, 7], [64, 64, 3, 2, 3], [65, 9, 6, 4, 11], [1, 50, 2, 3, 5], [300, 1, 2, 3, 9], [70, 30, 6, 4, 37], [70, 30, 6, 4, 87]] as const) {
      const a = noisyMap(w, h, seed, inks);
      const b = a.slice();
      const na = majorityCleanup(a, w, h, passes);
      const nb = referenceCleanup(b, w, h, passes);
      expect(na).toBe(nb);
      expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
      changedSomewhere += na;
    }
    // The maps are noisy enough that later passes have work to do.
    expect(changedSomewhere).toBeGreaterThan(100);
  });
});
