// engine.mockupBatch, the library face of batch mockups: typed items (camelCase or snake_case) with shared
// options, images in item order equal to engine.mockup of each item, the two-name conflict and unknown item
// keys named by item, a supplier style's photo attached per item (withGarmentPhotos), and the item cap.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, InkprepError, MOCKUP_BATCH_LIMITS, resolveOptions, type Engine, type MockupBatchItem } from '@inkprep/engine';
import { withGarmentPhotos } from '@inkprep/engine/internals';

let engine: Engine;
let design: Uint8Array;
beforeAll(async () => {
  engine = createEngine({ threads: 1 });
  design = new Uint8Array(await sharp({ create: { width: 600, height: 400, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: { create: { width: 400, height: 300, channels: 4, background: { r: 20, g: 160, b: 60, alpha: 1 } } }, left: 100, top: 50 }])
    .png().toBuffer());
});
afterAll(async () => {
  await engine.close();
});

async function codeOf(p: Promise<unknown>): Promise<{ code: string; field: unknown }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof InkprepError) return { code: err.code, field: err.details.field };
    throw err;
  }
  throw new Error('expected an error');
}

describe('engine.mockupBatch', () => {
  it('renders typed items in order, each equal to engine.mockup of the same fields', async () => {
    const items: MockupBatchItem[] = [{ color: 'navy' }, { color: 'sand', placement: 'left-chest', printWidthIn: 3.5 }, { style: 'own:hoodie', color: 'black', top_in: 4 }];
    const r = await engine.mockupBatch(design, { items, style: 'own:classic-tee', outputSize: 400, fabric: false });
    expect(r.images.map((i) => [i.garment.key, i.garment.color.id, i.placement])).toEqual([
      ['own:classic-tee', 'navy', 'full-front'], ['own:classic-tee', 'sand', 'left-chest'], ['own:hoodie', 'black', 'full-front'],
    ]);
    expect(r.images[1]!.print.widthIn).toBe(3.5);
    expect(r.images[2]!.print.topIn).toBe(4);
    for (const [k, it] of items.entries()) {
      const single = await engine.mockup(design, { style: 'own:classic-tee', outputSize: 400, fabric: false, ...it });
      const a = await sharp(single.data).raw().toBuffer(), b = await sharp(r.images[k]!.data).raw().toBuffer();
      expect(a.equals(b)).toBe(true);
    }
  }, 300_000);

  it('names the item and field of a mistake; caps the list', async () => {
    expect(await codeOf(engine.mockupBatch(design, { items: [{ style: 'own:classic-tee', topIn: 2, top_in: 3 }] }))).toEqual({ code: 'invalid_option', field: 'items[0].top_in' });
    expect(await codeOf(engine.mockupBatch(design, { items: [{ style: 'own:classic-tee' }, { style: 'own:classic-tee', colour: 'red' } as MockupBatchItem] }))).toEqual({ code: 'invalid_option', field: 'items[1].colour' });
    expect(await codeOf(engine.mockupBatch(design, { items: [{ style: 'own:classic-tee', view: 'back', placement: 'left-chest' }] }))).toEqual({ code: 'invalid_option', field: 'items[0].view' });
    // an item's own fields only: a name every object inherits is no item field either
    expect(await codeOf(engine.mockupBatch(design, { items: [{ style: 'own:classic-tee', toString: 1 } as never] }))).toEqual({ code: 'invalid_option', field: 'items[0].toString' });
    const many = Array.from({ length: MOCKUP_BATCH_LIMITS.maxItems + 1 }, () => ({ style: 'own:classic-tee' }));
    expect(await codeOf(engine.mockupBatch(design, { items: many }))).toEqual({ code: 'invalid_option', field: 'items' });
    // Text forms carry the list as JSON text; typed callers pass the array.
    expect(await codeOf(engine.mockupBatch(design, { items: '[]' as never }))).toEqual({ code: 'invalid_option', field: 'items' });
  });

  it('a supplier style draws each item on its photo, or says why it could not', async () => {
    const supplier = {
      key: 'ss:39', brand: 'Gildan', style_number: '5000', title: 'Heavy Cotton T-Shirt', category: 'T-Shirts', base: 'classic-tee',
      colors: [{ id: 'navy', name: 'Navy', hex: '#1e2840' }, { id: 'red', name: 'Red', hex: '#b01c28' }], sizes: ['L'], chest_by_size_in: { L: 22 },
    };
    const batch = resolveOptions('mockupBatch', { items: [{ color: 'navy' }, { color: 'red' }, { style: 'own:classic-tee' }], style: 'ss:39', size: 'L', supplierStyles: { 'ss:39': supplier }, outputSize: 400 });
    const withPhotos = withGarmentPhotos(batch, [{ error: 'no photo listed' }, { bytes: new Uint8Array([1, 2, 3]) }, null]);
    const r = await engine.mockupBatch(design, withPhotos);
    expect(r.images.map((i) => i.garment.key)).toEqual(['ss:39', 'ss:39', 'own:classic-tee']);
    expect(r.images[0]!.warnings.map((w) => w.code)).toContain('photo_unavailable');
    expect(r.images[1]!.warnings.map((w) => w.code)).toContain('photo_unavailable'); // three bytes are no photo
    expect(r.images[2]!.warnings.map((w) => w.code)).not.toContain('photo_unavailable');
  }, 300_000);
});
