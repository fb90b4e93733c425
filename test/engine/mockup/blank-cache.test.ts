// The blanks' share of the memory cache (engine/src/garments/cache.ts over cache/memory.ts): an entry that shares
// another's arrays (a coloured blank its neutral's, a resampled colour its size's geometry) counts only its own
// bytes, goes when that entry goes and is never kept without it; within the budget a new output size of a colour
// is resampled from the kept coloured blank (which a colour in use keeps recent) and every colour at one size
// shares that size's fields; the output is the same byte for byte whether the blanks came from the cache or were
// made afresh.
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Raster } from '@inkprep/engine';
import {
  clearGarmentMemory, DEFAULT_MEMORY_CACHE_MB, findOwnStyle, getColored, getGarmentAt, memoryCacheClear, memoryCacheGet, memoryCacheHas,
  memoryCachePut, memoryCacheStats, setMemoryCacheBytes,
} from '@inkprep/engine/internals';

const MB = 1024 * 1024;

afterEach(() => {
  memoryCacheClear('test:');
  setMemoryCacheBytes(DEFAULT_MEMORY_CACHE_MB * MB);
});

describe('memory cache: entries sharing a parent', () => {
  it('a child counts its own bytes, leaves with its parent and is not kept without it', () => {
    memoryCacheClear();
    setMemoryCacheBytes(100);
    memoryCachePut('test:p', 'parent', 40);
    memoryCachePut('test:p/a', 'a', 10, { parent: 'test:p' });
    memoryCachePut('test:p/b', 'b', 10, { parent: 'test:p' });
    expect(memoryCacheStats()).toMatchObject({ bytes: 60, entries: 3 });
    // No parent cached: the child would keep uncounted arrays alive, so it is not kept.
    memoryCachePut('test:q/a', 'qa', 10, { parent: 'test:q' });
    expect(memoryCacheHas('test:q/a')).toBe(false);
    // Dropping the parent takes its children.
    memoryCacheClear('test:p');
    expect(memoryCacheStats()).toMatchObject({ bytes: 0, entries: 0 });
  });

  it('using a child keeps its parent recent; beyond the budget the least recently used go first', () => {
    memoryCacheClear();
    setMemoryCacheBytes(100);
    memoryCachePut('test:p', 'parent', 40);
    memoryCachePut('test:p/a', 'a', 10, { parent: 'test:p' });
    memoryCachePut('test:x', 'x', 30);
    expect(memoryCacheGet('test:p/a')).toBe('a'); // the parent is now more recent than x
    memoryCachePut('test:y', 'y', 30); // 110 > 100: x is the least recently used
    expect(memoryCacheHas('test:x')).toBe(false);
    expect(memoryCacheHas('test:p')).toBe(true);
    expect(memoryCacheHas('test:p/a')).toBe(true);
    expect(memoryCacheStats().bytes).toBe(80);
    // Room for a larger one: the child goes first, then its parent (never the parent leaving its child behind).
    memoryCachePut('test:z', 'z', 60);
    expect(memoryCacheHas('test:p')).toBe(false);
    expect(memoryCacheHas('test:p/a')).toBe(false);
    expect(memoryCacheStats().bytes).toBeLessThanOrEqual(100);
  });
});

const navy = { hex: '#1e2840' };
const red = { hex: '#b01c28' };

describe('blanks in the memory cache', () => {
  it('a new output size of a colour is resampled from the kept coloured blank; colours at one size share its fields', async () => {
    clearGarmentMemory();
    const tee = findOwnStyle('classic-tee')!;
    const at500 = await getGarmentAt(tee, 'front', navy, 500);
    // The coloured blank at the render size (512) was kept by the resample: asking for it adds nothing.
    const held = memoryCacheStats();
    const coloured = await getColored(tee, 'front', navy, 512);
    expect(memoryCacheStats()).toEqual(held);
    const at480 = await getGarmentAt(tee, 'front', navy, 480);
    // Not coloured again for the new size: the very coloured blank of the first is still the cached one.
    expect(await getColored(tee, 'front', navy, 512)).toBe(coloured);
    expect(at480.width).toBe(480);
    const red500 = await getGarmentAt(tee, 'front', red, 500);
    expect(red500.mask).toBe(at500.mask);
    expect(red500.fold_in).toBe(at500.fold_in);
    expect(red500.rgba).not.toBe(at500.rgba);
    expect(await getGarmentAt(tee, 'front', navy, 500)).toBe(at500);
  }, 120_000);

  it('a colour in use keeps its coloured blank when a new colour needs room', async () => {
    memoryCacheClear();
    const tee = findOwnStyle('classic-tee')!;
    const navy500 = await getGarmentAt(tee, 'front', navy, 500);
    const colouredBytes = (await getColored(tee, 'front', navy, 512)).width * (await getColored(tee, 'front', navy, 512)).height * 4;
    const answerBytes = navy500.width * navy500.height * 4;
    // Room for red's coloured blank and half of its answer: something of navy's must go.
    setMemoryCacheBytes(memoryCacheStats().bytes + colouredBytes + answerBytes / 2);
    await getGarmentAt(tee, 'front', navy, 500); // navy in use
    await getGarmentAt(tee, 'front', red, 500);
    // Navy's answer at 500 went (the least recently used), not its coloured blank: asking for that adds nothing.
    const held = memoryCacheStats();
    await getColored(tee, 'front', navy, 512);
    expect(memoryCacheStats()).toEqual(held);
    expect(held.bytes).toBeLessThanOrEqual(held.limitBytes);
  }, 120_000);

  it('within a small budget the blanks stay under it, and the images are the same cached or made afresh', async () => {
    const art: Raster = { width: 240, height: 240, data: new Uint8ClampedArray(240 * 240 * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) % 251)) };
    const seq = [['navy', 500], ['navy', 480], ['red', 500], ['red', 480], ['navy', 500], ['white', 512]] as const;
    const run = async (memoryCacheMb: number) => {
      clearGarmentMemory();
      const engine = createEngine({ threads: 0, memoryCacheMb });
      const images: string[] = [];
      let most = 0;
      try {
        for (const [color, output_size] of seq) {
          const r = await engine.mockup(art, { style: 'own:classic-tee', color, placement: 'full-front', output_size, format: 'png' }, { transfer: false });
          images.push(Buffer.from(r.data).toString('base64'));
          most = Math.max(most, memoryCacheStats().bytes);
          expect(memoryCacheStats().bytes).toBeLessThanOrEqual(memoryCacheMb * MB);
        }
      } finally {
        await engine.close();
      }
      return { images, most };
    };
    const fresh = await run(0);
    const small = await run(4); // a 512 px neutral is ~2.5 MB: it and a little more fit, not the whole sequence
    const roomy = await run(64);
    expect(small.most).toBeGreaterThan(2 * MB);
    expect(roomy.most).toBeGreaterThan(small.most);
    expect(small.images).toEqual(fresh.images);
    expect(roomy.images).toEqual(fresh.images);
  }, 240_000);
});
