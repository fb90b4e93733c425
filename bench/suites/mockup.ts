// Bench: POST /mockup's engine work once the blank is cached (issue 9 target: < 250 ms median at 2000 px
// with fabric 0.8 on this machine), with the flat paste (fabric=false) measured beside it as the baseline.
// - Input: corpus art (fox) as an 11 in, 300 DPI PNG (3300 px); short mode: 1000 px output, 1650 px art.
// - Each call: decode the PNG, look up the cached blank, resize the design, composite, encode PNG (or JPEG).
//   The resampled design is cached per worker (same bytes and print size): rows say whether a call found it
//   (design cached: a customer trying colours/sizes) or paid the decode+resample (new design).
// - Encode settings of the 2000 px output: CPU and bytes per PNG zlib level/filtering and JPEG Huffman mode.
// - Photo-based mockups (supplier style on its garment photo): first use of a photo, then per call.
// - One-off costs, reported separately: neutral render of a blank (first use ever, then disk), loading it
//   from the disk cache, and colouring it (what a new colour costs).
// - New output sizes: a colour at a new size, and a storefront's N colours x M sizes (what the memory cache keeps).
// - Batch (POST /mockup/batch) against 10 single calls, through HTTP on a real server: bench/lib/mockup-batch.ts.
import os from 'node:os';
import path from 'node:path';
import { rmSync } from 'node:fs';
import sharp from 'sharp';
import { createEngine } from '@inkprep/engine';
import { clearGarmentMemory, clearMockupDesignCache, findOwnStyle, getColored, getGarmentAt, getNeutral, renderSizeFor } from '@inkprep/engine/internals';
import type { BenchContext } from '../lib/harness.js';
import { readCorpus } from '../../golden/lib/corpus.js';
import { batchVsSingles } from '../lib/mockup-batch.js';

export default async function mockupSuite(ctx: BenchContext): Promise<void> {
  const out = ctx.short ? 1000 : 2000;
  const artPx = ctx.short ? 1650 : 3300;
  const cacheDir = path.join(os.tmpdir(), `inkprep-bench-garments-${process.pid}`);
  const png = new Uint8Array(await sharp(Buffer.from(readCorpus('tw-1f98a-fox.svg')), { density: 300 }).resize(artPx).png().toBuffer());
  const tee = findOwnStyle('classic-tee')!;

  // One-off costs.
  const t0 = performance.now();
  await getNeutral(tee, 'front', renderSizeFor(out), cacheDir);
  const renderMs = performance.now() - t0;
  clearGarmentMemory();
  const t1 = performance.now();
  await getNeutral(tee, 'front', renderSizeFor(out), cacheDir);
  const diskMs = performance.now() - t1;
  const t2 = performance.now();
  await getColored(tee, 'front', { hex: '#b01c28' }, renderSizeFor(out), cacheDir);
  const colorMs = performance.now() - t2;
  ctx.table(`blank one-off costs (classic tee front, render size for ${out} px)`, [
    { step: 'neutral render (first use, then on disk)', ms: renderMs },
    { step: 'load neutral from disk cache', ms: diskMs },
    { step: 'colour a cached neutral (new colour)', ms: colorMs },
  ]);

  const engine = createEngine({ threads: 0, garmentCacheDir: cacheDir });
  const base = { style: 'own:classic-tee', color: 'navy', placement: 'full-front', output_size: out } as const;
  // Warm: blank coloured and resampled to the output size.
  await engine.mockup(png, { ...base, fabric: 0.8 }, { transfer: false });
  const b = ctx.bench(`mockup ${out} px, in-thread, blank cached`, { iterations: ctx.short ? 3 : 15, time: ctx.short ? 200 : 3000 });
  b.add('flat paste (fabric=false), PNG, design cached', async () => {
    await engine.mockup(png, { ...base, fabric: false }, { transfer: false });
  });
  b.add('fabric 0.8, PNG, design cached', async () => {
    await engine.mockup(png, { ...base, fabric: 0.8 }, { transfer: false });
  });
  b.add('fabric 0.8, JPEG, design cached', async () => {
    await engine.mockup(png, { ...base, fabric: 0.8, format: 'jpeg' }, { transfer: false });
  });
  const rows = await ctx.runBench(b, { baseline: 'flat paste (fabric=false), PNG, design cached' });
  const fab = rows.find((r) => r.name === 'fabric 0.8, PNG, design cached')!;
  ctx.log(`fabric 0.8 at ${out} px: p50 ${fab['p50 ms'].toFixed(1)} ms wall with the design cached (target < 250 ms at 2000 px)`);
  // CPU time per call (this process, libvips threads included): steadier than wall time on a shared machine.
  const cpuRows = [];
  const cases = [
    ['flat paste, PNG, new design', { fabric: false }, true],
    ['fabric 0.8, PNG, new design', { fabric: 0.8 }, true],
    ['fabric 0.8, JPEG, new design', { fabric: 0.8, format: 'jpeg' }, true],
    ['flat paste, PNG, design cached', { fabric: false }, false],
    ['fabric 0.8, PNG, design cached', { fabric: 0.8 }, false],
    ['fabric 0.8, JPEG, design cached', { fabric: 0.8, format: 'jpeg' }, false],
  ] as const;
  let lastPng: Uint8Array | null = null;
  for (const [name, extra, fresh] of cases) {
    const cpu: number[] = [];
    let bytes = 0;
    for (let i = 0; i < (ctx.short ? 3 : 9); i++) {
      if (fresh) clearMockupDesignCache();
      const c0 = process.cpuUsage();
      const r = await engine.mockup(png, { ...base, ...extra }, { transfer: false });
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      bytes = r.data.length;
      if (r.contentType === 'image/png') lastPng = r.data;
    }
    cpu.sort((a, b) => a - b);
    cpuRows.push({ name, 'cpu p50 ms': cpu[cpu.length >> 1]!, 'cpu min ms': cpu[0]!, bytes });
  }
  // Photo-based mockups (a supplier style drawn on its garment photo): the photo is the navy own blank at
  // 1600 px on a white sweep, unevenly lit, with noise, as a JPEG. First use cuts it out and derives its
  // light, relief and chest line (then cached per photo); later calls composite on it like a blank.
  {
    const g = await getGarmentAt(tee, 'front', { hex: '#1e2840' }, 1600, cacheDir);
    const raw = Buffer.alloc(g.width * g.height * 3);
    for (let i = 0; i < g.width * g.height; i++) {
      const x = i % g.width, a = g.mask[i]! / 255, light = 1 - 0.2 * (x / g.width);
      for (let k = 0; k < 3; k++) raw[i * 3 + k] = Math.round((g.rgba[i * 4 + k]! * a + 250 * (1 - a)) * light + ((i * 7919 + k * 31) % 13) - 6);
    }
    const photo = new Uint8Array(await sharp(raw, { raw: { width: g.width, height: g.height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer());
    const supplier_style = {
      key: 'ss:39', brand: 'Gildan', style_number: '5000', title: 'Heavy Cotton T-Shirt', category: 'T-Shirts', base: 'classic-tee',
      colors: [{ id: 'navy', name: 'Navy', hex: '#1e2840' }], sizes: ['L'], chest_by_size_in: { L: 22 },
    };
    const photoOpts = { style: 'ss:39', supplier_style, color: 'navy', size: 'L', placement: 'full-front', output_size: out } as const;
    const c0 = process.cpuUsage();
    await engine.mockup(png, { ...photoOpts, garment_photo: photo, fabric: 0.8 }, { transfer: false });
    const c = process.cpuUsage(c0);
    cpuRows.push({ name: 'photo: first use of a garment photo (cut out, maps, chest line), fabric 0.8, PNG', 'cpu p50 ms': (c.user + c.system) / 1000, 'cpu min ms': (c.user + c.system) / 1000, bytes: 0 });
    for (const [name, extra] of [['photo: fabric 0.8, PNG, design cached', { fabric: 0.8 }], ['photo: flat paste, PNG, design cached', { fabric: false }]] as const) {
      const cpu: number[] = [];
      let bytes = 0;
      for (let i = 0; i < (ctx.short ? 3 : 9); i++) {
        const c1 = process.cpuUsage();
        const r = await engine.mockup(png, { ...photoOpts, garment_photo: photo, ...extra }, { transfer: false });
        const cu = process.cpuUsage(c1);
        cpu.push((cu.user + cu.system) / 1000);
        bytes = r.data.length;
      }
      cpu.sort((a, b) => a - b);
      cpuRows.push({ name, 'cpu p50 ms': cpu[cpu.length >> 1]!, 'cpu min ms': cpu[0]!, bytes });
    }
  }
  ctx.table(`mockup ${out} px: CPU time per call (ratio vs flat paste, new design)`, ctx.ratio(cpuRows, 'flat paste, PNG, new design', 'cpu p50 ms'));
  // What the memory cache saves at new output sizes: a customer's colour at a new size, and a storefront's
  // sequence (one design on N colours x M output sizes, colour by colour), each round from a cache holding no
  // blank (on disk only). CPU per call; the baseline is the same call again (blank and design cached).
  {
    const sizes = ctx.short ? [600, 800, 1000] : [1200, 1600, 2000];
    const colours = ['black', 'white', 'navy', 'red'];
    const steps: Array<[string, string, number]> = [
      ['first (blank on disk only)', 'navy', out], ['same blank again (cached)', 'navy', out],
      ['new colour, same size', 'red', out], [`same colour, new output size (${sizes[1]})`, 'navy', sizes[1]!],
      [`same colour, another new size (${sizes[0]})`, 'navy', sizes[0]!],
    ];
    const perStep: number[][] = steps.map(() => []);
    const shop: number[] = [];
    for (let r = 0; r < (ctx.short ? 1 : 3); r++) {
      clearGarmentMemory();
      clearMockupDesignCache();
      for (let i = 0; i < steps.length; i++) {
        const c0 = process.cpuUsage();
        await engine.mockup(png, { ...base, color: steps[i]![1], output_size: steps[i]![2], fabric: 0.8 }, { transfer: false });
        const c = process.cpuUsage(c0);
        perStep[i]!.push((c.user + c.system) / 1000);
      }
      clearGarmentMemory();
      clearMockupDesignCache();
      const c0 = process.cpuUsage();
      for (const color of colours) for (const output_size of sizes) await engine.mockup(png, { ...base, color, output_size, fabric: 0.8 }, { transfer: false });
      const c = process.cpuUsage(c0);
      shop.push((c.user + c.system) / 1000 / (colours.length * sizes.length));
    }
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
    const rows = steps.map(([name], i) => ({ name, 'cpu p50 ms': med(perStep[i]!) }));
    rows.push({ name: `storefront: ${colours.length} colours x ${sizes.length} sizes (${sizes.join(', ')}), per mockup`, 'cpu p50 ms': med(shop) });
    ctx.table(`mockup: new output sizes and a storefront's sequence (CPU per call, ratio vs the same blank again)`, ctx.ratio(rows, 'same blank again (cached)', 'cpu p50 ms'));
  }
  // PNG encode of the output (the op uses level 1, no adaptive filtering: a preview).
  const { data: raw, info } = await sharp(lastPng!).raw().toBuffer({ resolveWithObject: true });
  const encRows = [];
  for (const [level, adaptive] of [[0, false], [1, false], [1, true], [2, false], [3, false], [6, false]] as const) {
    const cpu: number[] = [];
    let bytes = 0;
    for (let i = 0; i < (ctx.short ? 2 : 5); i++) {
      const c0 = process.cpuUsage();
      const b = await sharp(raw, { raw: { width: info.width, height: info.height, channels: info.channels } }).png({ compressionLevel: level, adaptiveFiltering: adaptive }).toBuffer();
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      bytes = b.length;
    }
    cpu.sort((a, b) => a - b);
    encRows.push({ name: `level ${level}${adaptive ? ', adaptive filter' : ''}`, 'cpu p50 ms': cpu[cpu.length >> 1]!, bytes });
  }
  for (const optimise of [false, true]) {
    const cpu: number[] = [];
    let bytes = 0;
    for (let i = 0; i < (ctx.short ? 2 : 5); i++) {
      const c0 = process.cpuUsage();
      const b = await sharp(raw, { raw: { width: info.width, height: info.height, channels: info.channels } }).jpeg({ quality: 90, chromaSubsampling: '4:4:4', optimiseCoding: optimise }).toBuffer();
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      bytes = b.length;
    }
    cpu.sort((a, b) => a - b);
    encRows.push({ name: `JPEG q90 4:4:4${optimise ? ', optimised Huffman' : ' (the op)'}`, 'cpu p50 ms': cpu[cpu.length >> 1]!, bytes });
  }
  ctx.table(`PNG/JPEG encode of the ${info.width}x${info.height} output`, ctx.ratio(encRows, 'level 1', 'cpu p50 ms'));
  await engine.close();
  rmSync(cacheDir, { recursive: true, force: true });
  await batchVsSingles(ctx);
}
