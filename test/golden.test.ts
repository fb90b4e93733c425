// Golden checks: every case of every golden/cases/<area>.ts against golden/expected/<area>/, compared
// perceptually with its tolerance. A failure prints the metrics and leaves images in golden/diff/<area>/.
import { describe, expect, it } from 'vitest';
import { checkCase, listAreas, loadArea, type GoldenCase } from '../golden/lib/golden.js';

// One area that fails to load fails its own test instead of hiding every other area.
const areas: [string, GoldenCase[] | Error][] = [];
for (const area of listAreas()) areas.push([area, await loadArea(area).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))]);

describe('golden', () => {
  it('has at least one area with cases', () => {
    expect(areas.some(([, cases]) => Array.isArray(cases) && cases.length > 0)).toBe(true);
  });
  for (const [area, cases] of areas) {
    describe(area, () => {
      if (cases instanceof Error) {
        it('loads golden/cases/' + area + '.ts', () => {
          throw cases;
        });
        return;
      }
      for (const c of cases) {
        it(c.name, async () => {
          const r = await checkCase(area, c);
          expect(r.ok, r.message).toBe(true);
        });
      }
    });
  }
});

describe('golden metrics', async () => {
  const { compareRasters, rasteriseSvg } = await import('../golden/lib/metrics.js');
  const { rgbToLab, deltaE76 } = await import('@inkprep/engine/internals');
  const solid = (w: number, h: number, rgba: [number, number, number, number]) => {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
    return { width: w, height: h, data };
  };

  it('identical rasters: zero ΔE, SSIM 1, IoU 1', () => {
    const a = solid(20, 10, [200, 10, 30, 255]);
    expect(compareRasters(a, solid(20, 10, [200, 10, 30, 255]))).toMatchObject({ meanDeltaE: 0, p99DeltaE: 0, maxDeltaE: 0, ssim: 1, alphaIoU: 1 });
  });

  it('ΔE is CIE76 of the grey composites; transparency composites to mid-grey', () => {
    const m = compareRasters(solid(16, 16, [255, 0, 0, 255]), solid(16, 16, [0, 0, 255, 255]));
    const p = rgbToLab(255, 0, 0), q = rgbToLab(0, 0, 255);
    expect(m.meanDeltaE).toBeCloseTo(deltaE76(p[0], p[1], p[2], q[0], q[1], q[2]), 3);
    expect(m.maxDeltaE).toBeCloseTo(m.meanDeltaE, 3);
    // A fully transparent pixel of any colour looks like grey 128: no colour difference, but the masks differ.
    const t = compareRasters(solid(16, 16, [255, 0, 0, 0]), solid(16, 16, [128, 128, 128, 255]));
    expect(t.meanDeltaE).toBe(0);
    expect(t.alphaIoU).toBe(0);
  });

  it('alpha IoU, background cover, p99 and SSIM react to a changed region', () => {
    const a = solid(64, 64, [0, 0, 0, 0]);
    const b = solid(64, 64, [0, 0, 0, 0]);
    for (let y = 0; y < 32; y++) for (let x = 0; x < 64; x++) a.data.set([0, 0, 0, 255], (y * 64 + x) * 4); // top half
    for (let y = 0; y < 64; y++) for (let x = 0; x < 32; x++) b.data.set([0, 0, 0, 255], (y * 64 + x) * 4); // left half
    const m = compareRasters(a, b);
    expect(m.alphaIoU).toBeCloseTo(1024 / 3072, 6);
    expect(m.backgroundCover).toBeCloseTo(0.5, 6);
    expect(m.p99DeltaE).toBeGreaterThan(40);
    expect(m.ssim).toBeLessThan(0.7);
    expect(() => compareRasters(a, solid(64, 63, [0, 0, 0, 0]))).toThrow(RangeError);
  });

  it('rasterises SVG at a fixed width, or long side', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 40"><rect width="20" height="20" fill="#f00"/></svg>';
    const r = await rasteriseSvg(svg, 50);
    expect([r.width, r.height]).toEqual([50, 100]);
    expect(Array.from(r.data.subarray(0, 4))).toEqual([255, 0, 0, 255]);
    expect(r.data[(99 * 50 + 10) * 4 + 3]).toBe(0);
    const l = await rasteriseSvg(svg, 50, { fit: 'long-side' });
    expect([l.width, l.height]).toEqual([25, 50]);
  });
});
