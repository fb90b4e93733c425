// The pooled Engine: errors rebuilt across the thread boundary, input ownership (copied by default, moved
// with { transfer: true }, detached inputs refused), abort of
// queued and running tasks, the queue limit and draining close().
//
// Slow work for the abort/queue tests is a legitimate op on a legitimately slow input: `info` fully decodes
// a 3000x3000 PNG (9 MP -> 36 MB RGBA), so the task is still in the worker when the test aborts it one
// event-loop turn after submitting. No fake op is added to the public registry.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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
    expect(info).toMatchObject({ width: 40, height: 20, format: 'png', hasAlpha: true });
  });

  it('errors cross the thread as InkprepError with code, message and details', async () => {
    const unreadable = await rejection(engine.info(new TextEncoder().encode('not an image at all')));
    expect(unreadable.code).toBe('image_unreadable');
    expect(unreadable.message).toMatch(/cannot be read/);

    const tooLarge = await rejection(engine.info(copy(small), {}, { maxPixels: 100 }));
    expect(tooLarge.code).toBe('image_too_large');
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

  it('never touches the caller\'s buffer by default: one readFile buffer serves scan, vectorize and info', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'inkprep-engine-'));
    const file = path.join(dir, 'card.png');
    await writeFile(file, small);
    const b = await readFile(file);
    expect(b.byteOffset === 0 && b.byteLength === b.buffer.byteLength).toBe(true); // owns its buffer: movable
    const report = await engine.scan(b);
    expect(report).toHaveProperty('issues');
    const svg = await engine.vectorize(b, { colors: 2 });
    expect(svg.svg).toMatch(/^<svg|<\?xml/);
    expect((await engine.info(b)).width).toBe(40);
    expect(Buffer.compare(b, Buffer.from(small))).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('a Raster input is copied by default: its pixels stay with the caller', async () => {
    const data = new Uint8ClampedArray(8 * 8 * 4).fill(200);
    const info = await engine.info({ width: 8, height: 8, data });
    expect([info.width, info.height]).toEqual([8, 8]);
    expect(data.byteLength).toBe(8 * 8 * 4);
    expect(data[5]).toBe(200);
  });

  it('{ transfer: true } moves an input that owns its ArrayBuffer (detached afterwards), encoded or Raster', async () => {
    const bytes = copy(small);
    expect((await engine.info(bytes, {}, { transfer: true })).width).toBe(40);
    expect(bytes.byteLength).toBe(0);
    expect(bytes.buffer.byteLength).toBe(0);
    const data = new Uint8ClampedArray(8 * 8 * 4);
    await engine.info({ width: 8, height: 8, data }, {}, { transfer: true });
    expect(data.byteLength).toBe(0);
  });

  it('{ transfer: true } still copies a view into a larger buffer (a pooled Buffer), which it does not own', async () => {
    const pooled = Buffer.from(small); // small Buffers are carved out of Node's shared 8 KB pool
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength);
    const info = await engine.info(pooled, {}, { transfer: true });
    expect(info.width).toBe(40);
    expect(Buffer.compare(pooled, Buffer.from(small))).toBe(0);
  });

  it('a detached buffer gives invalid_option saying so, pooled or in-thread, not processing_failed', async () => {
    const bytes = copy(small);
    await engine.info(bytes, {}, { transfer: true });
    const pooledErr = await rejection(engine.vectorize(bytes));
    expect([pooledErr.code, pooledErr.details.field]).toEqual(['invalid_option', 'input']);
    expect(pooledErr.message).toMatch(/detached/);
    const local = make({ threads: 0 });
    const localErr = await rejection(local.scan(bytes));
    expect([localErr.code, localErr.details.field]).toEqual(['invalid_option', 'input']);
    const raster = { width: 8, height: 8, data: new Uint8ClampedArray(8 * 8 * 4) };
    structuredClone(raster.data.buffer, { transfer: [raster.data.buffer] });
    expect((await rejection(engine.info(raster))).message).toMatch(/detached/);
  });

  it('a missing or non-image input is a client error, not a crash', async () => {
    expect((await rejection(engine.info(undefined as never))).code).toBe('missing_image');
    const wrong = await rejection(engine.info('art.png' as never));
    expect([wrong.code, wrong.details.field]).toEqual(['invalid_option', 'input']);
  });

  it('abort: a running task rejects with aborted and the pool keeps working', async () => {
    await engine.info(copy(small)); // the worker is up and idle
    const ctrl = new AbortController();
    const p = engine.info(copy(slow), {}, { signal: ctrl.signal });
    await nextTurn();
    expect(engine.stats()).toMatchObject({ running: 1, queued: 0 });
    ctrl.abort();
    const err = await rejection(p);
    expect(err.code).toBe('aborted');
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
    expect(err.code).toBe('engine_overloaded');
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
