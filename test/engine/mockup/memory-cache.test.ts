// The engine's memory cache budget (EngineOptions.memoryCacheMb): many distinct mockups on an in-thread engine
// with a tiny budget never leave more than the budget cached; within a budget the blank a mockup used stays
// cached (the next mockup of it composites on the same object instead of rendering it again); 0 keeps nothing;
// the budget is split between a pool's threads; a bad value is `invalid_option` naming the field.
import { describe, expect, it } from 'vitest';
import { createEngine, InkprepError, type Raster } from '@inkprep/engine';
import { clearGarmentMemory, findOwnStyle, getGarmentAt, memoryCacheStats, resolveSettings } from '@inkprep/engine/internals';

const MB = 1024 * 1024;
const OUT = 512;

function art(rgb: [number, number, number]): Raster {
  const w = 300, h = 300;
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) data.set([rgb[0], rgb[1], rgb[2], 255], i);
  return { width: w, height: h, data };
}

const STYLES = ['own:classic-tee', 'own:hoodie', 'own:womens-tee', 'own:long-sleeve-tee'] as const;
const COLOURS = ['navy', 'red', 'white', 'forest', 'sand', 'maroon'] as const;

describe('engine memory cache budget', () => {
  it('many distinct mockups never cache more than memoryCacheMb', async () => {
    clearGarmentMemory();
    const engine = createEngine({ threads: 0, memoryCacheMb: 8 });
    try {
      let most = 0;
      for (let i = 0; i < 12; i++) {
        // Each call a new blank (style x colour x view) and a new design: only the budget stops the cache growing.
        await engine.mockup(art([(i * 37) % 256, 90, 200]), {
          style: STYLES[i % STYLES.length]!, color: COLOURS[i % COLOURS.length]!,
          placement: i % 2 ? 'full-back' : 'full-front', output_size: OUT + 16 * i, format: 'jpeg',
        });
        const s = memoryCacheStats();
        expect(s.limitBytes).toBe(8 * MB);
        expect(s.bytes).toBeLessThanOrEqual(8 * MB);
        most = Math.max(most, s.bytes);
      }
      // The bound is not met by caching nothing: the budget is used.
      expect(most).toBeGreaterThan(2 * MB);
    } finally {
      await engine.close();
    }
  }, 240_000);

  it('within the budget the next mockup of a blank finds it cached; with 0 nothing is kept', async () => {
    clearGarmentMemory();
    const tee = findOwnStyle('classic-tee')!;
    const navy = { hex: '#1e2840' };
    const opts = { style: 'own:classic-tee', color: 'navy', placement: 'full-front', output_size: OUT } as const;
    const engine = createEngine({ threads: 0, memoryCacheMb: 64 });
    try {
      await engine.mockup(art([200, 30, 30]), opts);
      const blank = await getGarmentAt(tee, 'front', navy, OUT);
      await engine.mockup(art([30, 200, 30]), opts);
      // The very object the first mockup cached: not rendered, loaded or coloured again.
      expect(await getGarmentAt(tee, 'front', navy, OUT)).toBe(blank);
    } finally {
      await engine.close();
    }
    const none = createEngine({ threads: 0, memoryCacheMb: 0 });
    try {
      await none.mockup(art([200, 30, 30]), opts);
      expect(memoryCacheStats()).toMatchObject({ bytes: 0, entries: 0, limitBytes: 0 });
      const a = await getGarmentAt(tee, 'front', navy, OUT);
      expect(await getGarmentAt(tee, 'front', navy, OUT)).not.toBe(a);
    } finally {
      await none.close();
    }
  }, 240_000);

  it('splits the budget between the pool threads and rejects a bad value naming memoryCacheMb', () => {
    expect(resolveSettings({ memoryCacheMb: 300 }, 3).memoryCacheBytes).toBe(100 * MB);
    expect(resolveSettings({}, 2).memoryCacheBytes).toBe(128 * MB);
    expect(resolveSettings({}, 0).memoryCacheBytes).toBe(256 * MB);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 40]) {
      let err: unknown;
      try {
        createEngine({ threads: 0, memoryCacheMb: bad });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InkprepError);
      expect((err as InkprepError).code).toBe('invalid_option');
      expect((err as InkprepError).details).toMatchObject({ field: 'memoryCacheMb' });
    }
  });
});
