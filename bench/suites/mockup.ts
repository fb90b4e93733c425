// Bench: POST /mockup's engine work once the blank is cached (issue 9 target: < 250 ms median at 2000 px
// with fabric 0.8 on this machine), with the flat paste (fabric=false) measured beside it as the baseline.
// - Input: corpus art (fox) as an 11 in, 300 DPI PNG (3300 px); short mode: 1000 px output, 1650 px art.
// - Each call: decode the PNG, look up the cached blank, resize the design, composite, encode PNG (or JPEG).
// - One-off costs, reported separately: neutral render of a blank (first use ever, then disk), loading it
//   from the disk cache, and colouring it (what a new colour costs).
import os from 'node:os';
import path from 'node:path';
import { rmSync } from 'node:fs';
import sharp from 'sharp';
import { clearGarmentMemory, createEngine, findOwnStyle, getColored, getNeutral, renderSizeFor } from '@inkprep/engine';
import type { BenchContext } from '../lib/harness.js';
import { readCorpus } from '../../golden/lib/corpus.js';

export default async function mockupSuite(ctx: BenchContext): Promise<void> {
  const out = ctx.short ? 1000 : 2000;
  const artPx = ctx.short ? 1650 : 3300;
  const cacheDir = path.join(os.tmpdir(), `inkprep-bench-garments-${process.pid}`);
  process.env.INKPREP_GARMENT_CACHE_DIR = cacheDir;
  const png = new Uint8Array(await sharp(Buffer.from(readCorpus('tw-1f98a-fox.svg')), { density: 300 }).resize(artPx).png().toBuffer());
  const tee = findOwnStyle('classic-tee')!;

  // One-off costs.
  const t0 = performance.now();
  await getNeutral(tee, 'front', renderSizeFor(out));
  const renderMs = performance.now() - t0;
  clearGarmentMemory();
  const t1 = performance.now();
  await getNeutral(tee, 'front', renderSizeFor(out));
  const diskMs = performance.now() - t1;
  const t2 = performance.now();
  await getColored(tee, 'front', { hex: '#b01c28' }, renderSizeFor(out));
  const colorMs = performance.now() - t2;
  ctx.table(`blank one-off costs (classic tee front, render size for ${out} px)`, [
    { step: 'neutral render (first use, then on disk)', ms: renderMs },
    { step: 'load neutral from disk cache', ms: diskMs },
    { step: 'colour a cached neutral (new colour)', ms: colorMs },
  ]);

  const engine = createEngine({ threads: 0 });
  const base = { style: 'own:classic-tee', color: 'navy', placement: 'full-front', output_size: String(out) };
  // Warm: blank coloured and resampled to the output size.
  await engine.mockup(png, { ...base, fabric: '0.8' }, { transfer: false });
  const b = ctx.bench(`mockup ${out} px, in-thread, blank cached`, { iterations: ctx.short ? 3 : 15, time: ctx.short ? 200 : 3000 });
  b.add('flat paste (fabric=false), PNG', async () => {
    await engine.mockup(png, { ...base, fabric: 'false' }, { transfer: false });
  });
  b.add('fabric 0.8, PNG', async () => {
    await engine.mockup(png, { ...base, fabric: '0.8' }, { transfer: false });
  });
  b.add('fabric 0.8, JPEG', async () => {
    await engine.mockup(png, { ...base, fabric: '0.8', format: 'jpeg' }, { transfer: false });
  });
  const rows = await ctx.runBench(b, { baseline: 'flat paste (fabric=false), PNG' });
  const fab = rows.find((r) => r.name === 'fabric 0.8, PNG')!;
  ctx.log(`fabric 0.8 at ${out} px: p50 ${fab['p50 ms'].toFixed(1)} ms wall (target < 250 ms at 2000 px)`);
  // CPU time per call (this process, libvips threads included): steadier than wall time on a shared machine.
  const cpuRows = [];
  for (const [name, extra] of [['flat paste (fabric=false), PNG', { fabric: 'false' }], ['fabric 0.8, PNG', { fabric: '0.8' }], ['fabric 0.8, JPEG', { fabric: '0.8', format: 'jpeg' }]] as const) {
    const cpu: number[] = [];
    for (let i = 0; i < (ctx.short ? 3 : 9); i++) {
      const c0 = process.cpuUsage();
      await engine.mockup(png, { ...base, ...extra }, { transfer: false });
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    cpu.sort((a, b) => a - b);
    cpuRows.push({ name, 'cpu p50 ms': cpu[cpu.length >> 1]!, 'cpu min ms': cpu[0]! });
  }
  ctx.table(`mockup ${out} px: CPU time per call`, ctx.ratio(cpuRows, 'flat paste (fabric=false), PNG', 'cpu p50 ms'));
  await engine.close();
  rmSync(cacheDir, { recursive: true, force: true });
}
