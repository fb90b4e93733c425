// The pooled Engine: errors rebuilt across the thread boundary, zero-copy transfer of inputs, abort of
// queued and running tasks, the queue limit and draining close().
//
// Slow work for the abort/queue tests is a legitimate op on a legitimately slow input: `info` fully decodes
// a 3000x3000 PNG (9 MP -> 36 MB RGBA), so the task is still in the worker when the test aborts it one
// event-loop turn after submitting. No fake op is added to the public registry.
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, InkprepError, type Engine } from '@inkprep/engine';
import { bombPng, card } from '../raster/fixtures.js';

const small = new Uint8Array(await card().png().toBuffer());
const slow = new Uint8Array(bombPng(3000, 3000));
const copy = (b: Uint8Array) => new Uint8Array(b); // owns its whole ArrayBuffer
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

async function rejection(p: Promise<unknown>): Promise<InkprepError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(InkprepError);
    return err as InkprepError;
  }
  throw new Error('expected a rejection');
}

const engines: Engine[] = [];
function make(opts: Parameters<typeof createEngine>[0]): Engine {
  const e = createEngine(opts);
  engines.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

describe('engine pool', () => {
  const engine = make({ threads: 1 });

  it('runs an op in the worker', async () => {
    const info = await engine.info(copy(small));
    expect(info).toMatchObject({ width: 40, height: 20, format: 'png', has_alpha: true });
  });

  it('errors cross the thread as InkprepError with code, message and details', async () => {
    const unreadable = await rejection(engine.info(new TextEncoder().encode('not an image at all')));
    expect(unreadable.code).toBe('image_unreadable');
    expect(unreadable.status).toBe(400);
    expect(unreadable.message).toMatch(/cannot be read/);

    const tooLarge = await rejection(engine.info(copy(small), {}, { maxPixels: 100 }));
    expect(tooLarge.code).toBe('image_too_large');
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.details).toEqual({ maxPixels: 100, pixels: 800 });
    expect(tooLarge.message).toMatch(/limit is 100 pixels/);

    const unsupported = await rejection(engine.info(new TextEncoder().encode('GIF89a......')));
    expect([unsupported.code, unsupported.details.format]).toEqual(['unsupported_format', 'gif']);
  });

  it('the same errors come out of the in-thread engine (threads: 0)', async () => {
    const local = make({ threads: 0 });
    const err = await rejection(local.info(copy(small), {}, { maxPixels: 100 }));
    expect([err.code, err.details]).toEqual(['image_too_large', { maxPixels: 100, pixels: 800 }]);
  });

  it('options are validated on the calling thread: invalid_option naming the field', async () => {
    const err = await rejection(engine.run('info', copy(small), 'nope' as never));
    expect(err.code).toBe('invalid_option');
  });

  it('moves an input that owns its ArrayBuffer (the sent array is detached), no copy', async () => {
    const bytes = copy(small);
    await engine.info(bytes);
    expect(bytes.byteLength).toBe(0);
    expect(bytes.buffer.byteLength).toBe(0);
  });

  it('moves a Raster input: its pixel buffer is detached', async () => {
    const data = new Uint8ClampedArray(8 * 8 * 4);
    const info = await engine.info({ width: 8, height: 8, data });
    expect([info.width, info.height]).toEqual([8, 8]);
    expect(data.byteLength).toBe(0);
  });

  it('copies (does not detach) a Buffer that is a slice of a pooled slab, and { transfer: false }', async () => {
    const pooled = Buffer.from(small); // small Buffers are carved out of Node's shared 8 KB pool
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength);
    const info = await engine.info(pooled);
    expect(info.width).toBe(40);
    expect(pooled.byteLength).toBe(small.byteLength);
    expect(Buffer.compare(pooled, Buffer.from(small))).toBe(0);

    const kept = copy(small);
    await engine.info(kept, {}, { transfer: false });
    expect(kept.byteLength).toBe(small.byteLength);
  });

  it('abort: a running task rejects with aborted and the pool keeps working', async () => {
    await engine.info(copy(small)); // the worker is up and idle
    const ctrl = new AbortController();
    const p = engine.info(copy(slow), {}, { signal: ctrl.signal });
    await nextTurn();
    expect(engine.stats()).toMatchObject({ running: 1, queued: 0 });
    ctrl.abort();
    const err = await rejection(p);
    expect([err.code, err.status]).toEqual(['aborted', 499]);
    expect((await engine.info(copy(small))).width).toBe(40);
  });

  it('abort: a queued task rejects with aborted, the running one still completes', async () => {
    const running = engine.info(copy(slow));
    const ctrl = new AbortController();
    const queued = engine.info(copy(small), {}, { signal: ctrl.signal });
    await nextTurn();
    expect(engine.stats()).toMatchObject({ running: 1, queued: 1 });
    ctrl.abort();
    expect((await rejection(queued)).code).toBe('aborted');
    expect((await running).width).toBe(3000);
  });

  it('an already aborted signal rejects before any work is queued', async () => {
    const err = await rejection(engine.info(copy(small), {}, { signal: AbortSignal.abort() }));
    expect(err.code).toBe('aborted');
  });

  it('engine_overloaded when more than maxQueue tasks wait', async () => {
    const tight = make({ threads: 1, maxQueue: 1 });
    await tight.info(copy(small));
    const a = tight.info(copy(slow)); // running
    const b = tight.info(copy(small)); // waiting (queue full)
    const err = await rejection(tight.info(copy(small)));
    expect([err.code, err.status]).toEqual(['engine_overloaded', 503]);
    expect((await a).width).toBe(3000);
    expect((await b).width).toBe(40);
  });

  it('close() drains running and queued work, then refuses new calls with shutting_down', async () => {
    const draining = make({ threads: 1 });
    const a = draining.info(copy(slow));
    const b = draining.info(copy(small));
    const c = draining.info(copy(small));
    await draining.close();
    const results = await Promise.allSettled([a, b, c]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect((await rejection(draining.info(copy(small)))).code).toBe('shutting_down');
    await draining.close(); // idempotent
  });
});
