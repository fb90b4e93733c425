// The worker entry (engine/src/pool/worker.ts) called in-thread: replies are { ok, value } or
// { ok: false, error: { code, message, details } }, and an op's result buffers are handed to Piscina as a
// movable (transfer list = the op's `transfer(result)`), so they are moved to the caller, not copied.
import { describe, expect, it } from 'vitest';
import { Piscina } from 'piscina';
import { OPS } from '@inkprep/engine/internals';
import runTask from '../../../engine/src/pool/worker.js';
import { toWireError } from '../../../engine/src/pool/run-op.js';
import { card } from '../raster/fixtures.js';


describe('pool worker entry', () => {
  it('wraps results with buffers as a Piscina movable listing exactly those buffers', async () => {
    const png = new Uint8Array(await card().png().toBuffer());
    const reply = (await runTask({ op: 'fix', input: png, options: OPS.fix.resolve({}), maxPixels: 1e8 })) as unknown as Record<symbol, unknown>;
    const value = reply[Piscina.valueSymbol] as { ok: true; value: { data: Uint8Array } };
    expect(value.ok).toBe(true);
    expect(value.value.data).toBeInstanceOf(Uint8Array);
    expect(reply[Piscina.transferableSymbol]).toEqual([value.value.data.buffer]);
  });

  it('replies without buffers are plain; failures become wire errors', async () => {
    const png = new Uint8Array(await card().png().toBuffer());
    expect(await runTask({ op: 'info', input: png, options: {}, maxPixels: 1e8 })).toMatchObject({ ok: true, value: { width: 40 } });
    expect(await runTask({ op: 'info', input: png, options: {}, maxPixels: 10 })).toEqual({
      ok: false,
      error: { code: 'image_too_large', message: expect.stringMatching(/limit is 10 pixels/), details: { maxPixels: 10, pixels: 800 } },
    });
    expect(await runTask({ op: 'nope', input: png, options: {}, maxPixels: 10 })).toMatchObject({ ok: false, error: { code: 'internal_error' } });
  });

  it('non-engine errors become processing_failed; allocation failures image_too_large', () => {
    expect(toWireError(new Error('kaboom'))).toEqual({ code: 'processing_failed', message: 'Processing failed: kaboom', details: {} });
    expect(toWireError(new RangeError('Array buffer allocation failed')).code).toBe('image_too_large');
  });
});
