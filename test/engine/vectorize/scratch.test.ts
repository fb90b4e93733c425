import { describe, expect, it } from 'vitest';
import { prepareImage } from '@inkprep/engine/internals';
import { quantize } from '@inkprep/engine/internals';
import { Scratch, withScratch } from '../../../engine/src/vectorize/scratch.js';
import { resolveVectorize, vectorizeRaster } from '@inkprep/engine/internals';
import type { Raster } from '@inkprep/engine';
import { art, jpeg } from './helpers-colour.js';

const BIG = `<rect width="240" height="180" fill="#ffffff"/><circle cx="80" cy="90" r="50" fill="#e63946"/>
  <rect x="140" y="40" width="70" height="90" rx="12" fill="#264653" opacity="0.8"/><path d="M20 170 L120 120 L200 170 Z" fill="#f4a261"/>`;
// Transparent background: the prepare stage must clear what a bigger opaque run left in the scratch arrays.
const SMALL = `<circle cx="50" cy="40" r="30" fill="#2a9d8f"/><rect x="10" y="60" width="30" height="15" fill="#8338ec" opacity="0.6"/>`;

const copy = (r: Raster): Raster => ({ ...r, data: r.data.slice() });

function quantizeFresh(r: Raster, jpegSource: boolean): { labels: Uint16Array; palette: Uint8Array } {
  const { map } = quantize(prepareImage(copy(r), true), 'auto', undefined, jpegSource);
  return { labels: map.labels.slice(), palette: map.palette.slice() };
}

describe('scratch buffers', () => {
  it('trim drops the largest buffers until the limit is met, and keeps the rest', () => {
    const s = new Scratch();
    s.uint8('a', 100);
    s.uint8('b', 1000);
    s.uint8('c', 10);
    s.trim(500);
    expect(s.bytes).toBe(110);
    s.trim(500);
    expect(s.bytes).toBe(110);
  });

  it('lends the spare to one run at a time: a nested run gets its own, the next run reuses it', () => {
    let outer: Scratch | null = null, inner: Scratch | null = null;
    withScratch((s) => {
      outer = s;
      withScratch((t) => { inner = t; });
    });
    expect(outer).not.toBeNull();
    expect(inner).not.toBe(outer);
    let again: Scratch | null = null;
    withScratch((s) => { again = s; });
    expect(again === outer || again === inner).toBe(true);
  });

  it('interleaved runs of different sizes through one scratch give the same labels and palette as fresh arrays', async () => {
    const big = await art(240, 180, BIG);
    const small = await art(100, 80, SMALL);
    const bigJpeg = await jpeg(big);
    const runs: Array<[Raster, boolean]> = [[big, false], [small, false], [bigJpeg, true], [small, false], [big, false], [bigJpeg, true]];
    const fresh = runs.map(([r, j]) => quantizeFresh(r, j));
    const scratch = new Scratch();
    runs.forEach(([r, j], i) => {
      const { map } = quantize(prepareImage(copy(r), true, false, scratch), 'auto', undefined, j, undefined, scratch);
      expect(Buffer.from(map.labels.buffer, map.labels.byteOffset, map.labels.byteLength).equals(Buffer.from(fresh[i]!.labels.buffer))).toBe(true);
      expect([...map.palette]).toEqual([...fresh[i]!.palette]);
    });
    // The scratch was really shared (sized for the biggest run), not reallocated per run.
    // Per pixel: RGBA, mask, colour index, labels, blend map; the JPEG's Lab and smoothing flags; the smoothing's
    // two work lists (a quarter of the pixels each) and its output slots (border ring and work list, 3 floats each).
    const n = 240 * 180, list = n >> 2, ring = 2 * 240 + 2 * 178;
    expect(scratch.bytes).toBe(n * (4 + 1 + 4 + 2 + 1) + n * (12 + 1) + 2 * 4 * list + 12 * (ring + list));
  });

  it('vectorize gives the same SVG whatever ran before it on the thread', async () => {
    const big = await art(240, 180, BIG);
    const small = await art(100, 80, SMALL);
    const opts = resolveVectorize({});
    const first = vectorizeRaster(copy(small), opts).svg;
    vectorizeRaster(copy(big), opts);
    expect(vectorizeRaster(copy(small), opts).svg).toBe(first);
    expect(vectorizeRaster(copy(small), opts, { owned: true }).svg).toBe(first);
  });
});
