import { describe, expect, it } from 'vitest';
import { prepareImage } from '@inkprep/engine/internals';

function raster(w: number, h: number, px: Array<[number, number, number, number]>) {
  const data = new Uint8ClampedArray(w * h * 4);
  px.forEach((p, i) => data.set(p, i * 4));
  return { width: w, height: h, data };
}

describe('prepareImage', () => {
  // Row: opaque red, opaque red, semi (alpha 200, colour contaminated towards dark), semi (alpha 90), transparent.
  const r = raster(5, 1, [[200, 0, 0, 255], [200, 0, 0, 255], [120, 10, 10, 200], [90, 5, 5, 90], [0, 0, 0, 0]]);

  it('edge_cleanup: alpha split at 128 and decontaminated edge colours', () => {
    const p = prepareImage(r, true);
    expect([...p.mask]).toEqual([1, 1, 1, 0, 0]);
    expect([...p.rgba.slice(8, 12)]).toEqual([200, 0, 0, 255]);
    expect([...p.rgba.slice(12, 16)]).toEqual([0, 0, 0, 0]);
    expect(p.opaqueCount).toBe(3);
    expect(p.fullyOpaque).toBe(false);
  });

  it('edge_cleanup=false keeps every pixel with alpha > 0 and its own colour', () => {
    const p = prepareImage(r, false);
    expect([...p.mask]).toEqual([1, 1, 1, 1, 0]);
    expect([...p.rgba.slice(8, 11)]).toEqual([120, 10, 10]);
    expect([...p.rgba.slice(12, 15)]).toEqual([90, 5, 5]);
  });

  it('reports fully opaque uploads', () => {
    expect(prepareImage(raster(2, 1, [[1, 2, 3, 255], [4, 5, 6, 255]]), true).fullyOpaque).toBe(true);
  });
});
