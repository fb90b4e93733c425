// Art classification for routing: flat (few fills + anti-aliased edges), painted (smooth shading), other.
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { classifyArt, routeFor } from '@inkprep/engine/internals';

function make(w: number, h: number, px: (x: number, y: number) => [number, number, number, number]): Raster {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(px(x, y), (y * w + x) * 4);
  return { width: w, height: h, data };
}

describe('classifyArt', () => {
  it('flat: two inks with an anti-aliased circle edge, on transparency', () => {
    const r = make(64, 64, (x, y) => {
      const d = Math.hypot(x - 32, y - 32) - 20;
      if (d > 8) return [0, 0, 0, 0];
      const t = Math.min(1, Math.max(0, d + 0.5)); // 1 px anti-aliasing between red and blue
      return [Math.round(220 * (1 - t) + 20 * t), 30, Math.round(40 * (1 - t) + 200 * t), 255];
    });
    const s = classifyArt(r);
    expect(s.class).toBe('flat');
    expect(routeFor(s)).toBe('vector');
  });

  it('painted: smooth two-axis shading', () => {
    const r = make(64, 64, (x, y) => [x * 4, y * 4, 128 + ((x + y) >> 1), 255]);
    const s = classifyArt(r);
    expect(s.class).toBe('painted');
    expect(routeFor(s)).toBe('model');
  });

  it('other: a few colours with no dominant fills (dither)', () => {
    let seed = 7;
    const cols: Array<[number, number, number]> = [];
    for (let i = 0; i < 200; i++) cols.push([(i * 37) & 255, (i * 91) & 255, (i * 53) & 255]);
    const r = make(64, 64, () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const c = cols[(seed >> 8) % cols.length]!;
      return [c[0], c[1], c[2], 255];
    });
    const s = classifyArt(r);
    expect(s.class).toBe('other');
    expect(routeFor(s)).toBe('resample');
  });

  it('other when almost nothing is opaque', () => {
    const r = make(32, 32, (x, y) => (x < 4 && y < 4 ? [255, 0, 0, 255] : [0, 0, 0, 0]));
    expect(classifyArt(r).class).toBe('other');
  });
});

describe('classifyArt on soft gradients', () => {
  it('a few-band radial gradient (near24 high, top24 low) is painted, not flat', () => {
    // Smooth radial ramp over ~40 levels: 5-bit bins are few (near24 high) but exact colours are many.
    const r = make(96, 96, (x, y) => {
      const d = Math.min(1, Math.hypot(x - 48, y - 48) / 48);
      return [Math.round(255 - 40 * d), Math.round(200 - (30 * x) / 96), Math.round(40 + (20 * y) / 96), 255];
    });
    const s = classifyArt(r);
    expect(s.near24).toBeGreaterThanOrEqual(0.97);
    expect(s.top24).toBeLessThan(0.7);
    expect(s.class).toBe('painted');
  });
});
