// Progress events (CallOptions.onProgress): every op reports its stages in order with a never-decreasing
// fraction, in-thread and from a pool worker through the MessagePort that travels with the task; a throwing
// listener never fails the op; abort and transfer still work with a listener.
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createEngine, InkprepError, type Engine, type OpName, type ProgressEvent } from '@inkprep/engine';
import { bombPng } from '../raster/fixtures.js';
import { disc, png } from '../scan/fixtures.js';

const art = await png(disc(160, 120, { r: 40, rgb: [200, 30, 60], glowSigma: 4 }));
const onWhite = new Uint8Array(await sharp(art).flatten({ background: '#ffffff' }).png().toBuffer());

/** Op, input, options, and the stages it must report in this order (in-thread, where nothing is dropped). */
const CASES: Array<[OpName, Uint8Array, Record<string, unknown>, string[]]> = [
  ['info', art, {}, ['decode']],
  ['scan', art, {}, ['decode', 'alpha', 'background', 'specks', 'lines']],
  ['fix', art, { fix_despeckle: true, fix_trim: true, resize_width_px: 200, fix_halftone: true }, ['decode', 'despeckle', 'trim', 'resize', 'halftone', 'encode']],
  ['fix', art, { fix_alpha_threshold: true, fix_trim: true }, ['decode', 'alpha_threshold', 'trim', 'encode']],
  ['removeBg', onWhite, {}, ['decode', 'matte', 'background', 'classify', 'alpha', 'despeckle', 'encode']],
  ['vectorize', onWhite, {}, ['decode', 'prepare', 'quantize', 'specks', 'trace', 'fills', 'svg']],
  ['vectorize', onWhite, { gradients: true }, ['decode', 'prepare', 'quantize', 'bands', 'specks', 'trace', 'fills', 'svg']],
  ['upscale', art, { scale: 2, route: 'resample' }, ['decode', 'classify', 'resample', 'encode']],
  ['upscale', art, { scale: 2, route: 'vector' }, ['decode', 'classify', 'vector', 'quantize', 'enlarge', 'label', 'trace', 'render', 'vector', 'encode']],
  ['mockup', art, { style: 'own:classic-tee', color: 'navy', placement: 'left-chest', output_size: 400 }, ['decode', 'garment', 'design', 'composite', 'encode']],
];

/** Stage names in order of first appearance (a stage may report several times as it advances). */
function stagesOf(events: ProgressEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) if (out[out.length - 1] !== e.stage) out.push(e.stage);
  return out;
}

function expectWellFormed(events: ProgressEvent[]): void {
  expect(events.length).toBeGreaterThan(0);
  let last = 0;
  for (const e of events) {
    expect(e.fraction).toBeGreaterThanOrEqual(last);
    expect(e.fraction).toBeLessThanOrEqual(1);
    last = e.fraction;
  }
}

const engines: Engine[] = [];
function make(threads: number): Engine {
  const e = createEngine({ threads });
  engines.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
});

describe('progress events', () => {
  const inThread = make(0);
  const pooled = make(1);

  it.each(CASES)('%s reports its stages in order (in-thread)', async (op, input, options, stages) => {
    const events: ProgressEvent[] = [];
    await inThread.run(op, new Uint8Array(input), options as never, { onProgress: (e) => events.push(e) });
    expectWellFormed(events);
    expect(stagesOf(events)).toEqual(stages);
    expect(events[0]!.fraction).toBe(0);
  });

  // Every event the worker posted reaches the listener before the call resolves, and none after: the last
  // stage included, for a one-stage op too. Each case runs several times (info, whose one stage is posted just
  // before its result, most): before the engine waited for the worker's end marker, a one-stage op's events
  // could all arrive after its result and be dropped.
  const POOL_RUNS = 4;
  const INFO_RUNS = 40;
  it.each(CASES)('%s reports all its stages from the pool worker before the call resolves', async (op, input, options, stages) => {
    const runs = op === 'info' ? INFO_RUNS : POOL_RUNS;
    const calls: Array<{ events: ProgressEvent[]; late: ProgressEvent[] }> = [];
    for (let i = 0; i < runs; i++) {
      const call = { events: [] as ProgressEvent[], late: [] as ProgressEvent[] };
      let resolved = false;
      calls.push(call);
      await pooled.run(op, new Uint8Array(input), options as never, { onProgress: (e) => (resolved ? call.late : call.events).push(e) });
      resolved = true;
      expectWellFormed(call.events);
      expect(stagesOf(call.events), `run ${i + 1} of ${runs}`).toEqual(stages);
      expect(call.events[0]!.fraction).toBe(0);
    }
    // A later call on the same worker has gone through both ports since: nothing came to an earlier listener
    // after its call resolved.
    await pooled.info(new Uint8Array(art), {}, { onProgress: () => {} });
    expect(calls.flatMap((c) => c.late)).toEqual([]);
  });

  it('trace reports its layers as it goes (more than one trace event on a many-colour input)', async () => {
    const data = Buffer.alloc(120 * 90 * 4);
    const inks = [[230, 30, 30], [30, 160, 60], [40, 60, 200], [240, 200, 20]];
    for (let y = 0; y < 90; y++) for (let x = 0; x < 120; x++) data.set([...inks[(Math.floor(x / 30) + Math.floor(y / 30)) % 4]!, 255], (y * 120 + x) * 4);
    const input = new Uint8Array(await sharp(data, { raw: { width: 120, height: 90, channels: 4 } }).png().toBuffer());
    const events: ProgressEvent[] = [];
    await inThread.vectorize(input, { colors: 4 }, { onProgress: (e) => events.push(e) });
    const trace = events.filter((e) => e.stage === 'trace');
    expect(trace.length).toBeGreaterThan(2);
    expect(trace[trace.length - 1]!.fraction).toBeGreaterThan(trace[0]!.fraction);
  });

  it('a listener that throws does not fail the op', async () => {
    const bad = () => {
      throw new Error('display broke');
    };
    await expect(inThread.scan(new Uint8Array(art), {}, { onProgress: bad })).resolves.toHaveProperty('dpi');
    await expect(pooled.scan(new Uint8Array(art), {}, { onProgress: bad })).resolves.toHaveProperty('dpi');
  });

  it('abort still rejects with aborted when a listener is attached', async () => {
    const ac = new AbortController();
    const events: ProgressEvent[] = [];
    const p = pooled.info(new Uint8Array(bombPng(3000, 3000)), {}, { signal: ac.signal, onProgress: (e) => events.push(e) });
    await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    const err = await p.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(InkprepError);
    expect((err as InkprepError).code).toBe('aborted');
    // Nothing reaches the listener after the rejection, and the engine still works afterwards, with every
    // stage of a one-stage op reported before it resolves.
    const atReject = events.length;
    const after: ProgressEvent[] = [];
    await expect(pooled.info(new Uint8Array(art), {}, { onProgress: (e) => after.push(e) })).resolves.toHaveProperty('width');
    expect(stagesOf(after)).toEqual(['decode']);
    expect(events.length).toBe(atReject);
  });
});
