// Local (windowed) round-trip guard of the vector route: flat art whose trace drops thin details (1 px
// whiskers, a small ring emblem) must come back with those details, from the resample route in the windows
// where the trace lost them, while the rest stays the vector render; clean flat art is not patched. The
// former whole-image guard (mean error <= 6) passed this art with the whiskers erased.
import { describe, expect, it } from 'vitest';
import type { Raster } from '@inkprep/engine';
import { checkRoundTrip, roundTripError, upscaleRaster, upscaleVector, VECTOR_MAX_ROUNDTRIP } from '@inkprep/engine/internals';

type Rgb = [number, number, number];
type Seg = [number, number, number, number];
const WHITE: Rgb = [255, 255, 255], FACE: Rgb = [240, 150, 40], DARK: Rgb = [40, 30, 30];
const SIZE = 96, C = SIZE / 2, R = SIZE * 0.36;
const RING = { x: C - 12, y: C - 14, r0: 2, r1: 3.2 };

/** Six whiskers, 0.9 px wide, from the middle of the face out past its edge onto the white background. */
function whiskers(): Seg[] {
  const out: Seg[] = [];
  for (const s of [-1, 1]) for (const k of [-1, 0, 1]) out.push([C + s * 8, C + 6 + k * 4, C + s * 44, C + 2 + k * 12]);
  return out;
}

function distToSeg(px: number, py: number, [x0, y0, x1, y1]: Seg): number {
  const dx = x1 - x0, dy = y1 - y0;
  const t = Math.max(0, Math.min(1, ((px - x0) * dx + (py - y0) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - x0 - t * dx, py - y0 - t * dy);
}

/** Opaque flat art: an orange face on white, dark whiskers and a small dark ring, 8x8 supersampled. */
function cat(withWhiskers: boolean): Raster {
  const S = 8, data = new Uint8ClampedArray(SIZE * SIZE * 4), segs = withWhiskers ? whiskers() : [];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const acc = [0, 0, 0];
      for (let j = 0; j < S; j++) {
        for (let i = 0; i < S; i++) {
          const px = x + (i + 0.5) / S, py = y + (j + 0.5) / S;
          let col = Math.hypot(px - C, py - C) < R ? FACE : WHITE;
          if (segs.some((s) => distToSeg(px, py, s) < 0.45)) col = DARK;
          const d = Math.hypot(px - RING.x, py - RING.y);
          if (d > RING.r0 && d < RING.r1) col = DARK;
          for (let c = 0; c < 3; c++) acc[c]! += col[c]!;
        }
      }
      data.set([acc[0]! / (S * S), acc[1]! / (S * S), acc[2]! / (S * S), 255], (y * SIZE + x) * 4);
    }
  }
  return { width: SIZE, height: SIZE, data };
}

const luma = (r: Raster, x: number, y: number): number => {
  const o = (y * r.width + x) * 4;
  return 0.2126 * r.data[o]! + 0.7152 * r.data[o + 1]! + 0.0722 * r.data[o + 2]!;
};

/** Darkest luma within 2 output px of the point (sx, sy) given in input pixels. */
function darkestNear(r: Raster, scale: number, sx: number, sy: number): number {
  let m = 255;
  const X = Math.round(sx * scale), Y = Math.round(sy * scale);
  for (let y = Y - 2; y <= Y + 2; y++) for (let x = X - 2; x <= X + 2; x++) m = Math.min(m, luma(r, x, y));
  return m;
}

/** Points along every whisker (input px), both over the face and over the white background. */
function whiskerPoints(): Array<[number, number]> {
  const pts: Array<[number, number]> = [];
  for (const [x0, y0, x1, y1] of whiskers()) for (const t of [0.15, 0.35, 0.55, 0.75, 0.95]) pts.push([x0 + t * (x1 - x0), y0 + t * (y1 - y0)]);
  return pts;
}

describe('vector route: local round-trip guard', () => {
  it('the trace alone erases the whiskers, and the whole-image mean error does not notice', async () => {
    const src = cat(true);
    const vec = await upscaleVector(src, 4);
    expect(await roundTripError(src, vec)).toBeLessThan(VECTOR_MAX_ROUNDTRIP); // the old guard passed it
    const lost = whiskerPoints().filter(([x, y]) => darkestNear(vec, 4, x, y) > 150).length;
    expect(lost).toBeGreaterThan(whiskerPoints().length / 2);
    const g = await checkRoundTrip(src, vec);
    expect(g.failed).toBeGreaterThan(0);
  });

  for (const scale of [4, 2] as const) {
    it(`${scale}x: keeps every whisker and the ring, patching only windows around them`, async () => {
      const src = cat(true);
      const out = await upscaleRaster(src, { scale, budget: 1e6, budget4x: 1e6, route: 'auto' });
      expect(out.art.class).toBe('flat');
      expect(out.route).toBe('vector');
      expect(out.patched).toBeGreaterThan(0);
      expect(out.patched).toBeLessThan(0.6);
      // Every point along every whisker is dark (whisker ink luma ~32; face ~160, white 255: a lost whisker reads >= 160).
      for (const [x, y] of whiskerPoints()) expect(darkestNear(out.raster, scale, x, y), `whisker at ${x.toFixed(1)},${y.toFixed(1)}`).toBeLessThan(135);
      // The ring keeps its hole: its centre is face-coloured, its band dark.
      expect(darkestNear(out.raster, scale, RING.x, RING.y - 2.6)).toBeLessThan(135);
      expect(luma(out.raster, Math.round(RING.x * scale), Math.round(RING.y * scale))).toBeGreaterThan(130);
      // Far from any detail the vector render is kept: the top of the face is the exact ink right up to a sharp edge.
      const X = C * scale, top = Math.round((C - R) * scale);
      const o = ((top + 2 * scale) * out.raster.width + X) * 4;
      expect(Array.from(out.raster.data.subarray(o, o + 3))).toEqual(FACE);
      let ramp = 0;
      for (let y = top - 3 * scale; y < top + 3 * scale; y++) {
        const l = luma(out.raster, X, y);
        if (l > 165 && l < 250) ramp++;
      }
      expect(ramp).toBeLessThanOrEqual(2); // resampling would spread the face edge over ~scale+ pixels
    });
  }

  it('leaves clean flat art alone (no window fails, nothing patched)', async () => {
    const src = cat(false);
    const out = await upscaleRaster(src, { scale: 4, budget: 1e6, budget4x: 1e6, route: 'auto' });
    expect(out.route).toBe('vector');
    expect(out.patched).toBe(0);
    expect((await checkRoundTrip(src, await upscaleVector(src, 4))).failed).toBe(0);
  });

  it('a forced vector route renders the trace as it is (no guard)', async () => {
    const out = await upscaleRaster(cat(true), { scale: 4, budget: 1e6, budget4x: 1e6, route: 'vector' });
    expect(out.patched).toBe(0);
    expect(whiskerPoints().filter(([x, y]) => darkestNear(out.raster, 4, x, y) > 150).length).toBeGreaterThan(0);
  });
});

// Ink whose luma equals the mid-grey the guard composites over (teal, luma ~128) on transparency: thin
// "small-script" hairline strokes next to bold bars, as in lettering-mountain-club's HIKING CLUB line, which the
// trace erased while the luma-only guard saw an error of at most 2 (over grey, vanished teal looks like grey).
describe('vector route: guard on mid-luma ink over transparency', () => {
  const TEAL: Rgb = [30, 160, 150]; // luma 0.2126*30 + 0.7152*160 + 0.0722*150 = 131
  const W = 128, H = 64;
  /** Hairline letters: vertical, horizontal and slanted strokes 0.4 px wide in the lower half, like a thin sans at a small size. */
  const hairlines = (): Seg[] => {
    const out: Seg[] = [];
    for (let k = 0; k < 6; k++) {
      const x = 10.5 + k * 19;
      out.push([x, 30.5, x, 56.5], [x + 9, 30.5, x + 9, 56.5], [x, 43.5, x + 9, 43.5], [x + 13, 30.5, x + 17, 56.5]);
    }
    return out;
  };
  /** Bold teal bars (a heading) and, optionally, the hairline letters; alpha = coverage (8x8 supersampled). */
  function art(withHairlines: boolean): Raster {
    const S = 8, data = new Uint8ClampedArray(W * H * 4), segs = withHairlines ? hairlines() : [];
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        let cover = 0;
        for (let j = 0; j < S; j++) {
          for (let i = 0; i < S; i++) {
            const px = x + (i + 0.5) / S, py = y + (j + 0.5) / S;
            const bar = py > 6.3 && py < 13.7 && px > 8.2 && px < 119.6 && !(px > 30.4 && px < 36.5);
            if (bar || segs.some((s) => distToSeg(px, py, s) < 0.2)) cover++;
          }
        }
        if (cover) data.set([...TEAL, Math.round((255 * cover) / (S * S))], (y * W + x) * 4);
      }
    }
    return { width: W, height: H, data };
  }
  /** Points along every hairline stroke (input px). */
  const points = (): Array<[number, number]> => hairlines().flatMap(([x0, y0, x1, y1]) => [0.2, 0.5, 0.8].map((t): [number, number] => [x0 + t * (x1 - x0), y0 + t * (y1 - y0)]));
  /** Largest alpha within 1 output px of (sx, sy) given in input pixels. */
  const alphaNear = (r: Raster, scale: number, sx: number, sy: number): number => {
    let m = 0;
    const X = Math.round(sx * scale), Y = Math.round(sy * scale);
    for (let y = Y - 1; y <= Y + 1; y++) for (let x = X - 1; x <= X + 1; x++) m = Math.max(m, r.data[(y * r.width + x) * 4 + 3]!);
    return m;
  };

  for (const scale of [2, 4] as const) {
    it(`${scale}x: the trace loses the hairlines, the guard sees it, and auto brings them back`, async () => {
      const src = art(true);
      const vec = await upscaleVector(src, scale);
      // The trace erases most of the hairline ink (alpha ~128 on the input: 0.4 px of teal).
      expect(points().filter(([x, y]) => alphaNear(vec, scale, x, y) < 40).length).toBeGreaterThan(points().length / 2);
      const g = await checkRoundTrip(src, vec);
      expect(g.failed).toBeGreaterThan(0);
      const out = await upscaleRaster(src, { scale, budget: 1e6, budget4x: 1e6, route: 'auto' });
      expect(out.route).toBe('vector');
      expect(out.patched).toBeGreaterThan(0);
      for (const [x, y] of points()) expect(alphaNear(out.raster, scale, x, y), `hairline at ${x.toFixed(1)},${y.toFixed(1)}`).toBeGreaterThan(40);
      // The bars, away from the hairlines, stay the vector render: full ink inside, an edge at most one ramp pixel.
      const o = ((10 * scale) * out.raster.width + 60 * scale) * 4;
      expect(Array.from(out.raster.data.subarray(o, o + 4))).toEqual([...TEAL, 255]);
    });
  }

  it('mid-luma ink without hairlines is not patched (the alpha term does not flag clean edges)', async () => {
    for (const scale of [2, 4] as const) {
      const out = await upscaleRaster(art(false), { scale, budget: 1e6, budget4x: 1e6, route: 'auto' });
      expect(out.route).toBe('vector');
      expect(out.patched).toBe(0);
    }
  });
});
