// What listening to progress events costs: the same op on the same pooled engine (1 worker) without and with
// `onProgress` (a MessageChannel per call, its port moved with the task, ~5-30 events posted back), and
// in-thread as the CLI runs it. Inputs: corpus flat art (owl) rendered as PNG; info = a short op where the
// channel's fixed cost shows, vectorize = a long op with many events (quantize steps, trace layers).
import sharp from 'sharp';
import { createEngine, type ProgressEvent } from '@inkprep/engine';
import type { BenchContext } from '../lib/harness.js';
import { readCorpus } from '../../golden/lib/corpus.js';

async function owl(size: number): Promise<Uint8Array> {
  const png = await sharp(Buffer.from(readCorpus('gi-barn-owl.svg')), { density: 300 }).resize(size).flatten({ background: '#ffffff' }).png().toBuffer();
  return new Uint8Array(png);
}

export default async function (ctx: BenchContext): Promise<void> {
  const small = await owl(256);
  const big = await owl(ctx.short ? 600 : 1500);
  const pooled = createEngine({ threads: 1 });
  const inThread = createEngine({ threads: 0 });
  let events = 0;
  const listen = (e: ProgressEvent): void => {
    events += e.fraction >= 0 ? 1 : 0;
  };
  try {
    // Start the worker and warm both threads' JIT outside the measurement (the first task would pay it).
    for (let i = 0; i < 3; i++) await pooled.info(small);
    await pooled.vectorize(big);
    await inThread.vectorize(big);

    const info = ctx.bench('info 256 px PNG, pooled (1 worker)', { iterations: 30, time: 1500 });
    info.add('baseline: no listener', async () => {
      await pooled.info(small);
    });
    info.add('onProgress', async () => {
      await pooled.info(small, {}, { onProgress: listen });
    });
    await ctx.runBench(info, { baseline: 'baseline: no listener' });

    const size = ctx.short ? 600 : 1500;
    const vec = ctx.bench(`vectorize ${size} px PNG`, { iterations: ctx.short ? 3 : 8, time: ctx.short ? 1000 : 5000 });
    vec.add('baseline: pooled, no listener', async () => {
      await pooled.vectorize(big);
    });
    vec.add('pooled, onProgress', async () => {
      await pooled.vectorize(big, {}, { onProgress: listen });
    });
    vec.add('in-thread (CLI), no listener', async () => {
      await inThread.vectorize(big);
    });
    vec.add('in-thread (CLI), onProgress', async () => {
      await inThread.vectorize(big, {}, { onProgress: listen });
    });
    events = 0;
    await ctx.runBench(vec, { baseline: 'baseline: pooled, no listener' });
    const one: ProgressEvent[] = [];
    await pooled.vectorize(big, {}, { onProgress: (e) => one.push(e) });
    ctx.log(`vectorize ${size} px: ${one.length} events per call through the pool (${[...new Set(one.map((e) => e.stage))].join(', ')})`);
  } finally {
    await Promise.all([pooled.close(), inThread.close()]);
  }
}
