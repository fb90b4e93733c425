// The worker entry (engine/src/pool/worker.ts) called in-thread: replies are { ok, value } or
// { ok: false, error: { code, message, details } }, and an op's result buffers are handed to Piscina as a
// movable (transfer list = the op's `transfer(result)`), so they are moved to the caller, not copied. With a
// progress port it posts the op's events, then the end marker, then closes the port.
import { describe, expect, it } from 'vitest';
import { Piscina } from 'piscina';
import { MessageChannel } from 'node:worker_threads';
import { OPS } from '@inkprep/engine/internals';
import runTask from '../../../engine/src/pool/worker.js';
import { toWireError } from '../../../engine/src/pool/run-op.js';
import type { ProgressPortMessage } from '../../../engine/src/pool/messages.js';
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

  // The main side waits for the end marker before settling a call: it must follow the op's last event, on
  // failure too, and the port must close after it (a dead or finished worker never leaves the caller waiting).
  it.each([[1e8, true], [10, false]] as const)('with a progress port (maxPixels %s), posts the events, then the end marker null, then closes', async (maxPixels, ok) => {
    const png = new Uint8Array(await card().png().toBuffer());
    const { port1, port2 } = new MessageChannel();
    const got: ProgressPortMessage[] = [];
    port1.on('message', (m: ProgressPortMessage) => got.push(m));
    const closed = new Promise<void>((resolve) => port1.once('close', () => resolve()));
    const reply = await runTask({ op: 'scan', input: png, options: OPS.scan.resolve({}), maxPixels, progress: port2 });
    expect(reply).toMatchObject({ ok });
    await closed;
    expect(got.at(-1)).toBeNull();
    expect(got.indexOf(null)).toBe(got.length - 1);
    if (ok) expect(got.slice(0, -1).map((e) => e!.stage)).toEqual(['decode', 'alpha', 'background', 'specks', 'lines']);
  });

  it('non-engine errors become processing_failed; allocation failures image_too_large', () => {
    expect(toWireError(new Error('kaboom'))).toEqual({ code: 'processing_failed', message: 'Processing failed: kaboom', details: {} });
    expect(toWireError(new RangeError('Array buffer allocation failed')).code).toBe('image_too_large');
  });
});
