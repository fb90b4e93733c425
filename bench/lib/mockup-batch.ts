// The mockup bench's batch section (issue 33: "batch mockups of 10 colours answer with 10 images in less time
// than 10 single calls in the same run"), through HTTP on a real server in this process (2 engine workers, SQLite
// store, local result storage). Each round uploads a new design (one pixel changed, so no call finds it in the
// design cache) and runs, in an order that rotates per round:
// - batch: one POST /mockup/batch with the 10 colours of the classic tee, then the 10 hosted images fetched;
// - 10 singles, one after another: POST /mockup (response=image) per colour, as a simple client would;
// - 10 singles at once: the 10 POST /mockup concurrently (a client that fans out).
// Wall time per round (the client's view: until it holds all 10 images), the process's CPU time (server,
// engine workers and client are all this process: steadier than wall time on a shared machine), and its peak
// RSS above the idle level while each ran (sampled every 10 ms; the engine's workers are threads of it).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { BenchContext } from './harness.js';

const KEY = 'ink_live_batchbenchbatchbenchbatchbenchba';
const COLORS = ['black', 'white', 'navy', 'heather-grey', 'red', 'royal', 'forest', 'sand', 'charcoal', 'maroon'];

/** A design whose bytes differ per round (one pixel), so every round pays its decode. */
async function designFor(base: Buffer, width: number, height: number, round: number): Promise<Blob> {
  const raw = Buffer.from(base);
  raw[((round * 7919) % (width * height)) * 4] ^= 1;
  return new Blob([new Uint8Array(await sharp(raw, { raw: { width, height, channels: 4 } }).png({ compressionLevel: 6 }).toBuffer())]);
}

/** Peak RSS (MB above `idle`) while `fn` runs. */
async function withPeak<T>(idle: number, fn: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, peakMb: Math.max(0, peak - idle) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

export async function batchVsSingles(ctx: BenchContext): Promise<void> {
  const out = ctx.short ? 800 : 2000;
  const rounds = ctx.short ? 2 : 6;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkprep-bench-batch-'));
  const http = await import('../../adapter-http/dist/index.js');
  const config = { ...http.configFromEnv(), host: '127.0.0.1', port: 0, threads: 2, dataDir, warmBlanks: false };
  const store = http.openStore({ dataDir });
  const boot = await http.bootstrapStore(store, KEY, Date.now());
  if (boot.created) await store.updateAccount(boot.accountId, { dailyLimit: 100_000 });
  const server = await http.startServer({ config, store, log: http.createLogger('error') });
  const base = `http://127.0.0.1:${server.port}`;
  const headers = { 'x-api-key': KEY };
  const artPx = ctx.short ? 1200 : 2400;
  const { data: art, info } = await sharp({ create: { width: artPx, height: Math.round(artPx * 0.8), channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${artPx}" height="${Math.round(artPx * 0.8)}"><circle cx="${artPx / 2}" cy="${artPx * 0.4}" r="${artPx * 0.35}" fill="#e0a020"/><rect x="${artPx * 0.2}" y="${artPx * 0.3}" width="${artPx * 0.6}" height="${artPx * 0.2}" fill="#2050c0"/></svg>`) }])
    .raw().toBuffer({ resolveWithObject: true });
  const fields = { style: 'own:classic-tee', placement: 'full-front', output_size: String(out) };

  const post = async (p: string, design: Blob, extra: Record<string, string>): Promise<Response> => {
    const f = new FormData();
    f.append('image', design, 'art.png');
    for (const [k, v] of Object.entries({ ...fields, ...extra })) f.append(k, v);
    const res = await fetch(base + p, { method: 'POST', body: f, headers });
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res;
  };
  const modes: Record<string, (design: Blob) => Promise<number>> = {
    'batch (1 POST /mockup/batch + 10 GET)': async (design) => {
      const res = await post('/api/v1/mockup/batch', design, { items: JSON.stringify(COLORS.map((color) => ({ color }))) });
      const body = (await res.json()) as { images: { image: { url: string } }[] };
      // The client fetches the hosted images side by side, as a browser does.
      const sizes = await Promise.all(body.images.map(async (img) => (await (await fetch(base + img.image.url)).arrayBuffer()).byteLength));
      const bytes = sizes.reduce((s, n) => s + n, 0);
      if (body.images.length !== 10) throw new Error(`batch answered ${body.images.length} images`);
      return bytes;
    },
    '10 singles, one after another': async (design) => {
      let bytes = 0;
      for (const color of COLORS) bytes += (await (await post('/api/v1/mockup', design, { color })).arrayBuffer()).byteLength;
      return bytes;
    },
    '10 singles at once': async (design) => {
      const all = await Promise.all(COLORS.map(async (color) => (await (await post('/api/v1/mockup', design, { color })).arrayBuffer()).byteLength));
      return all.reduce((s, n) => s + n, 0);
    },
  };
  const names = Object.keys(modes);
  try {
    // Warm: every blank coloured at this size in both workers (a one-off per colour, not what is compared).
    for (const n of names) await modes[n]!(await designFor(art, info.width, info.height, 999));
    const ms: Record<string, number[]> = {}, cpu: Record<string, number[]> = {}, peak: Record<string, number[]> = {}, bytes: Record<string, number> = {};
    for (const n of names) { ms[n] = []; cpu[n] = []; peak[n] = []; }
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < names.length; k++) {
        const n = names[(r + k) % names.length]!;
        const design = await designFor(art, info.width, info.height, r * names.length + k);
        global.gc?.();
        await new Promise((res) => setTimeout(res, 200));
        const idle = process.memoryUsage().rss;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        const { value, peakMb } = await withPeak(idle, () => modes[n]!(design));
        const c = process.cpuUsage(c0);
        ms[n]!.push(performance.now() - t0);
        cpu[n]!.push((c.user + c.system) / 1000);
        peak[n]!.push(peakMb);
        bytes[n] = value;
      }
    }
    const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
    const rows = names.map((n) => ({
      name: n, 'p50 ms': median(ms[n]!), 'min ms': Math.min(...ms[n]!), 'max ms': Math.max(...ms[n]!), 'cpu p50 ms': median(cpu[n]!),
      'peak RSS MB p50': median(peak[n]!), 'image bytes': bytes[n]!, rounds,
    }));
    const title = `10 colours of one new design at ${out} px through HTTP (2 workers), interleaved`;
    ctx.table(`${title}; wall ratio vs 10 singles one after another`, ctx.ratio(rows, '10 singles, one after another', 'p50 ms'));
    ctx.table(`${title}; CPU ratio vs 10 singles one after another`, ctx.ratio(rows.map((r) => ({ name: r.name, 'cpu p50 ms': r['cpu p50 ms'] })), '10 singles, one after another', 'cpu p50 ms'));
    const b = rows[0]!, seq = rows[1]!, par = rows[2]!;
    ctx.log(`batch of 10 colours: p50 ${b['p50 ms'].toFixed(0)} ms vs ${seq['p50 ms'].toFixed(0)} ms for 10 singles one after another (x${(b['p50 ms'] / seq['p50 ms']).toFixed(2)}) and ${par['p50 ms'].toFixed(0)} ms for 10 at once (x${(b['p50 ms'] / par['p50 ms']).toFixed(2)}); CPU ${b['cpu p50 ms'].toFixed(0)} vs ${seq['cpu p50 ms'].toFixed(0)} / ${par['cpu p50 ms'].toFixed(0)} ms`);
  } finally {
    await server.close(5000);
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
