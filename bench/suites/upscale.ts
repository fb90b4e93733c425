// Bench: art-aware upscaling on corpus/open. Each SVG is rendered with resvg at 256 px and 512 px on the
// long side (inputs) and at 4x / 2x of that size (truth, ≈1024 px). Every input is upscaled by our router
// (`auto`: the image of the path it picks after the vector round-trip guard, timed as classification +
// the paths it ran), by each path alone (vector, model, resample = Lanczos-3 + halo-free sharpen; on flat art also
// vector-grid = the vector path traced at the input size, for before/after) and by the baseline
// sharp lanczos3 (premultiplied RGBA) in the same run, then compared to the truth:
//  - PSNR (dB) of the RGB composites over mid-grey (higher is better),
//  - SSIM and mean ΔE (CIE76, all pixels) from golden/lib/metrics.ts,
//  - edge sharpness: mean Sobel magnitude of the result / that of the truth, over pixels where the truth has
//    a strong edge (1.00 = as crisp as the truth, < 1 blurrier, > 1 overshoot).
// Targets (issue 8): flat art (silhouette, lettering, line-art, logo) vector path >= lanczos3 + 3 dB PSNR;
// gradient/illustration model path SSIM >= resample (lanczos3 + sharpen); 4x of a 256 px image < 1.5 s median.
// Full mode: 4x on all 40 artworks, 2x on two per category.
// Short mode (CI): one lettering, logo and gradient artwork, 4x from 128 px only, and a short timing bench.
// Art summary per scale: the router (`auto`) against sharp lanczos3 and against the best peer per piece
// (the best of model, resample and lanczos3): median gain, pieces that lose to the best peer (by > 1 dB).
// Photos (photoSuite below): real photographs shrunk and upscaled back, the photo route against Lanczos-3,
// Lanczos-3 + sharpen and the ESRGAN networks alone, same run.
// UPSCALE_BENCH_PART=art|photos runs one half (the two can run as parallel processes).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Raster, UpscaleRoute } from '@inkprep/engine';
import { checkRoundTrip, classifyArt, DEFAULT_BUDGET, DEFAULT_BUDGET_4X, modelUnavailableReason, OPS, patchFailingWindows, routeFor, WHOLE_FALLBACK_SHARE, runUpscale, upscaleModel, upscaleRaster, upscaleResample, upscaleVector, type GuardReport } from '@inkprep/engine/internals';
import { compareRasters, rasteriseSvg, rasterToPng } from '../../golden/lib/metrics.js';
import { corpusDir } from '../../golden/lib/corpus.js';
import type { BenchContext, Row } from '../lib/harness.js';

interface Item {
  file: string;
  id: string;
  category: string;
}

type Method = 'auto' | UpscaleRoute | 'vector-grid' | 'lanczos3';
// `vector-grid`: the earlier vector path that traced at the input size (edges on the input pixel grid), flat art only.
const METHODS: Method[] = ['auto', 'vector', 'vector-grid', 'model', 'resample', 'lanczos3'];
const FLAT = new Set(['silhouette', 'lettering', 'line-art', 'logo']);

async function lanczos3(r: Raster, scale: number): Promise<Raster> {
  const out = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } })
    .resize(r.width * scale, r.height * scale, { kernel: 'lanczos3', fit: 'fill' })
    .raw()
    .toBuffer();
  return { width: r.width * scale, height: r.height * scale, data: new Uint8ClampedArray(out.buffer, out.byteOffset, out.byteLength) };
}

async function runMethod(m: Method, input: Raster, scale: 2 | 4): Promise<{ raster: Raster; route: string }> {
  if (m === 'lanczos3') return { raster: await lanczos3(input, scale), route: 'lanczos3' };
  if (m === 'vector-grid') return { raster: await upscaleVector(input, scale, { at: 'source' }), route: 'vector-grid' };
  const out = await upscaleRaster(input, { scale, budget: 1e9, budget4x: 1e9, route: m });
  return { raster: out.raster, route: out.route };
}

/** Crop to width x height (top-left). */
function crop(r: Raster, width: number, height: number): Raster {
  if (r.width === width && r.height === height) return r;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) data.set(r.data.subarray(y * r.width * 4, y * r.width * 4 + width * 4), y * width * 4);
  return { width, height, data };
}

/** Grey composite (RGB, 0..255 floats) as the metrics module does. */
function greyComposite(r: Raster): Float32Array {
  const n = r.width * r.height;
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const a = r.data[i * 4 + 3]! / 255;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = r.data[i * 4 + c]! * a + 128 * (1 - a);
  }
  return out;
}

function psnr(a: Float32Array, b: Float32Array): number {
  let se = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    se += d * d;
  }
  const mse = se / a.length;
  return mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
}

function sobelLuma(rgb: Float32Array, w: number, h: number): Float32Array {
  const y = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) y[i] = 0.2126 * rgb[i * 3]! + 0.7152 * rgb[i * 3 + 1]! + 0.0722 * rgb[i * 3 + 2]!;
  const g = new Float32Array(w * h);
  for (let yy = 1; yy < h - 1; yy++) {
    for (let x = 1; x < w - 1; x++) {
      const i = yy * w + x;
      const gx = y[i - w + 1]! + 2 * y[i + 1]! + y[i + w + 1]! - y[i - w - 1]! - 2 * y[i - 1]! - y[i + w - 1]!;
      const gy = y[i + w - 1]! + 2 * y[i + w]! + y[i + w + 1]! - y[i - w - 1]! - 2 * y[i - w]! - y[i - w + 1]!;
      g[i] = Math.hypot(gx, gy);
    }
  }
  return g;
}

/** Mean gradient of `out` / mean gradient of `truth` over the truth's strong-edge pixels (top 5 % or > 100). */
function edgeSharpness(outRgb: Float32Array, truthRgb: Float32Array, w: number, h: number): number {
  const gt = sobelLuma(truthRgb, w, h);
  const go = sobelLuma(outRgb, w, h);
  let st = 0, so = 0;
  for (let i = 0; i < gt.length; i++) {
    if (gt[i]! > 100) {
      st += gt[i]!;
      so += go[i]!;
    }
  }
  return st > 0 ? so / st : 1;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

export default async function upscaleSuite(ctx: BenchContext): Promise<void> {
  const part = process.env.UPSCALE_BENCH_PART;
  if (part !== 'photos') await artSuite(ctx);
  if (part !== 'art') await photoSuite(ctx);
}

async function artSuite(ctx: BenchContext): Promise<void> {
  const dir = corpusDir();
  if (!dir) throw new Error('corpus/open not found (set INKPREP_CORPUS)');
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { items: Item[] };
  let items = manifest.items;
  if (ctx.short) {
    const seen = new Set<string>();
    const keep = new Set(['lettering', 'logo', 'gradient']);
    items = items.filter((it) => (!keep.has(it.category) || seen.has(it.category) ? false : (seen.add(it.category), true)));
  }
  const cases: Array<{ scale: 2 | 4; size: number }> = ctx.short ? [{ scale: 4, size: 128 }] : [{ scale: 4, size: 256 }, { scale: 2, size: 512 }];
  // 2x from 512 px costs about 2.5x the 4x case (4x the input pixels): full mode runs it on the first two
  // artworks of each category (12 of 40) so the suite stays within ~30 min on the shared 2-core machine.
  const perCategory = new Map<string, number>();
  const in2x = new Set(items.filter((it) => {
    const n = perCategory.get(it.category) ?? 0;
    perCategory.set(it.category, n + 1);
    return n < 2;
  }).map((it) => it.id));

  interface Result { id: string; category: string; scale: number; method: Method; route: string; psnr: number; ssim: number; dE: number; edge: number; ms: number }
  const results: Result[] = [];
  const inputs256 = new Map<string, Raster>();
  for (const it of items) {
    const svg = readFileSync(path.join(dir, it.file), 'utf8');
    for (const c of cases) {
      if (c.scale === 2 && !in2x.has(it.id)) continue;
      const input = await rasteriseSvg(svg, c.size, { fit: 'long-side' });
      if (c.size === 256) inputs256.set(it.id, input);
      const truthFull = await rasteriseSvg(svg, input.width * c.scale, { fit: 'width' });
      const W = Math.min(truthFull.width, input.width * c.scale), H = Math.min(truthFull.height, input.height * c.scale);
      const truth = crop(truthFull, W, H);
      const truthRgb = greyComposite(truth);
      // `auto` is the path the router picks: its image is that path's image (deterministic), so it is not
      // computed twice; its time is the classification plus that path's time.
      const cls = performance.now();
      const picked = routeFor(classifyArt(input));
      const classifyMs = performance.now() - cls;
      const byMethod = new Map<Method, Result>();
      const images = new Map<Method, Raster>();
      let guard: GuardReport | null = null;
      let guardMs = 0;
      for (const m of METHODS.filter((x) => x !== 'auto' && (x !== 'vector-grid' || FLAT.has(it.category)))) {
        const t = performance.now();
        const out = await runMethod(m, input, c.scale);
        let ms = performance.now() - t;
        if (m === 'vector') {
          // The router's local round-trip guard (timed into the vector path's cost, which auto pays).
          const g = performance.now();
          guard = await checkRoundTrip(input, out.raster);
          guardMs = performance.now() - g;
          ms += guardMs;
        }
        images.set(m, out.raster);
        const o = crop(out.raster, W, H);
        const oRgb = greyComposite(o);
        const cm = compareRasters(o, truth);
        const r: Result = {
          id: it.id, category: it.category, scale: c.scale, method: m, route: out.route,
          psnr: psnr(oRgb, truthRgb), ssim: cm.ssim, dE: cm.meanDeltaE, edge: edgeSharpness(oRgb, truthRgb, W, H), ms,
        };
        results.push(r);
        byMethod.set(m, r);
        if (process.env.UPSCALE_BENCH_DUMP && c.scale === 4) {
          await sharp(await rasterToPng(o)).toFile(path.join(process.env.UPSCALE_BENCH_DUMP, `${it.id}_${m}.png`));
        }
      }
      // auto = what the router returns, rebuilt from the images above: the vector render with failing windows
      // patched from resample (or resample outright when they cover most of the art), else the picked path.
      const g = guard as GuardReport | null;
      if (picked === 'vector' && g && g.failed > 0) {
        const res = byMethod.get('resample')!, vec = byMethod.get('vector')!;
        const whole = g.share > WHOLE_FALLBACK_SHARE;
        const img = crop(whole ? images.get('resample')! : patchFailingWindows(images.get('vector')!, images.get('resample')!, g, input.width, input.height), W, H);
        const oRgb = greyComposite(img);
        const cm = compareRasters(img, truth);
        results.push({ ...vec, method: 'auto', route: whole ? 'resample' : 'vector+patch', psnr: psnr(oRgb, truthRgb), ssim: cm.ssim, dE: cm.meanDeltaE, edge: edgeSharpness(oRgb, truthRgb, W, H), ms: vec.ms + res.ms + classifyMs });
      } else {
        const chosen = byMethod.get(picked)!;
        results.push({ ...chosen, method: 'auto', route: chosen.route, ms: chosen.ms + classifyMs });
      }
    }
  }

  // Per category and scale: mean of each metric per method.
  const categories = [...new Set(items.map((i) => i.category))];
  for (const c of cases) {
    const rows: Row[] = [];
    for (const cat of categories) {
      for (const m of METHODS) {
        const rs = results.filter((r) => r.category === cat && r.scale === c.scale && r.method === m);
        if (!rs.length) continue;
        const routes = m === 'auto' ? [...new Set(rs.map((r) => r.route))].join('+') : m;
        rows.push({ category: cat, method: m, routes, n: rs.length, 'PSNR dB': mean(rs.map((r) => r.psnr)), SSIM: mean(rs.map((r) => r.ssim)), 'ΔE': mean(rs.map((r) => r.dE)), edge: mean(rs.map((r) => r.edge)), 'median ms': median(rs.map((r) => r.ms)) });
      }
    }
    ctx.table(`${c.scale}x from ${c.size} px (means per category; truth = resvg at ${c.scale}x size)`, rows);
  }

  // The router against sharp lanczos3 and the best peer, per piece (the issue-20 view).
  const summary: Row[] = [];
  for (const c of cases) {
    for (const flatOnly of [true, false]) {
      const autos = results.filter((r) => r.scale === c.scale && r.method === 'auto' && (!flatOnly || FLAT.has(r.category)));
      const gainL: number[] = [], gainPeer: number[] = [];
      let lose = 0, lose1 = 0;
      const losers: string[] = [];
      for (const a of autos) {
        const same = results.filter((r) => r.id === a.id && r.scale === c.scale);
        const l = same.find((r) => r.method === 'lanczos3')!;
        const peer = Math.max(...same.filter((r) => r.method === 'model' || r.method === 'resample' || r.method === 'lanczos3').map((r) => r.psnr));
        gainL.push(a.psnr - l.psnr);
        gainPeer.push(a.psnr - peer);
        if (a.psnr < peer - 0.05) {
          lose++;
          losers.push(`${a.id} ${(a.psnr - peer).toFixed(2)}`);
        }
        if (a.psnr < peer - 1) lose1++;
      }
      summary.push({
        scale: `${c.scale}x from ${c.size} px`, art: flatOnly ? 'flat (vector route)' : 'all', n: autos.length,
        'median dB vs lanczos3': median(gainL), 'median dB vs best peer': median(gainPeer),
        'lose to best peer': lose, 'by > 1 dB': lose1, 'edge auto/lanczos3': mean(autos.map((a) => a.edge)) / mean(results.filter((r) => r.scale === c.scale && r.method === 'lanczos3' && autos.some((a) => a.id === r.id)).map((r) => r.edge)),
        losers: losers.join(', '),
      });
    }
  }
  ctx.table('router (auto) vs sharp lanczos3 and vs the best peer per piece (best of model, resample, lanczos3), PSNR', summary);

  // Targets.
  const target: Row[] = [];
  for (const c of cases) {
    const flatVec = results.filter((r) => FLAT.has(r.category) && r.scale === c.scale && r.method === 'vector');
    const flatL = results.filter((r) => FLAT.has(r.category) && r.scale === c.scale && r.method === 'lanczos3');
    const flatAuto = results.filter((r) => FLAT.has(r.category) && r.scale === c.scale && r.method === 'auto');
    target.push({ target: `${c.scale}x flat: vector - lanczos3 PSNR (>= 3 dB)`, value: mean(flatVec.map((r) => r.psnr)) - mean(flatL.map((r) => r.psnr)), auto_minus_lanczos3: mean(flatAuto.map((r) => r.psnr)) - mean(flatL.map((r) => r.psnr)) });
    for (const cat of ['gradient', 'illustration']) {
      const mod = results.filter((r) => r.category === cat && r.scale === c.scale && r.method === 'model');
      const res = results.filter((r) => r.category === cat && r.scale === c.scale && r.method === 'resample');
      if (mod.length) target.push({ target: `${c.scale}x ${cat}: model SSIM - resample SSIM (>= 0)`, value: mean(mod.map((r) => r.ssim)) - mean(res.map((r) => r.ssim)) });
    }
  }
  const auto4 = results.filter((r) => r.scale === 4 && r.method === 'auto').map((r) => r.ms);
  target.push({ target: `4x of ${cases[0]!.size} px, auto route, median ms over the items (< 1500 at 256 px)`, value: median(auto4) });
  ctx.table('targets', target);

  // Timing: 4x of a 256 px image through the router (in-thread), against sharp lanczos3 in the same bench.
  const at256 = async (cat: string): Promise<Raster> => {
    const it = items.find((i) => i.category === cat)!;
    return inputs256.get(it.id) ?? rasteriseSvg(readFileSync(path.join(dir, it.file), 'utf8'), 256, { fit: 'long-side' });
  };
  const flatInput = await at256('lettering');
  const paintedInput = await at256('gradient');
  const b = ctx.bench('4x of 256 px', { time: ctx.short ? 100 : 2000, iterations: ctx.short ? 2 : 5, warmupIterations: 1 });
  b.add('baseline: sharp lanczos3', async () => { await lanczos3(paintedInput, 4); });
  b.add('auto, flat (lettering -> vector)', async () => { await upscaleRaster(flatInput, { scale: 4, budget: DEFAULT_BUDGET, budget4x: DEFAULT_BUDGET_4X, route: 'auto' }); });
  b.add('auto, painted (gradient -> model)', async () => { await upscaleRaster(paintedInput, { scale: 4, budget: DEFAULT_BUDGET, budget4x: DEFAULT_BUDGET_4X, route: 'auto' }); });
  b.add('resample (lanczos3 + sharpen)', async () => { await upscaleRaster(paintedInput, { scale: 4, budget: DEFAULT_BUDGET, budget4x: DEFAULT_BUDGET_4X, route: 'resample' }); });
  await ctx.runBench(b, { baseline: 'baseline: sharp lanczos3' });

  // Budget calibration (full mode): the slowest path (model) at the default budgets, end to end (PNG in, PNG out).
  if (!ctx.short) {
    const rows: Row[] = [];
    const svg = readFileSync(path.join(dir, items.find((i) => i.category === 'gradient')!.file), 'utf8');
    for (const scale of [4, 2] as const) {
      const budget = scale === 4 ? DEFAULT_BUDGET_4X : DEFAULT_BUDGET;
      const side = Math.floor(Math.sqrt(budget));
      const png = await rasterToPng(await rasteriseSvg(svg, side, { fit: 'width' }));
      const t = performance.now();
      const out = await runUpscale(png, OPS.upscale.resolve({ scale, route: 'model' }), { maxPixels: 1e9 });
      rows.push({ scale, input: `${side}x${side}`, output: `${out.width}x${out.height}`, route: out.route, 'total ms': performance.now() - t, 'upscale ms': out.ms.upscale });
    }
    ctx.table('model path at the default budgets (end to end, PNG in/out, in-thread)', rows);
  }
}

const NATURE = '/usr/share/backgrounds/mate/nature';
const SKIMAGE = '/usr/lib/python3/dist-packages/skimage/data';
/** mate-backgrounds nature wallpapers and scikit-image's photographs of people, animals and objects. */
const PHOTOS = ['Aqua', 'Blinds', 'Dune', 'FreshFlower', 'Garden', 'GreenMeadow', 'LadyBird', 'RainDrops', 'Storm', 'TwoWings', 'Wood', 'YellowFlower']
  .map((n) => path.join(NATURE, `${n}.jpg`))
  .concat(['astronaut.png', 'chelsea.png', 'coffee.png', 'rocket.jpg'].map((n) => path.join(SKIMAGE, n)));
const SHORT_PHOTOS = ['Storm', 'Dune'].map((n) => path.join(NATURE, `${n}.jpg`));

type PhotoMethod = 'lanczos3' | 'resample' | 'esrgan-slim 0..1 (old route)' | 'esrgan-slim' | 'esrgan-medium' | 'photo route (auto)';

async function coverCrop(file: string, w: number, h: number): Promise<Raster> {
  const { data } = await sharp(file).resize(w, h, { fit: 'cover' }).removeAlpha().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: w, height: h, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}

async function shrinkCubic(r: Raster, s: number): Promise<Raster> {
  const b = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } })
    .resize(r.width / s, r.height / s, { kernel: 'cubic' }).raw().toBuffer();
  return { width: r.width / s, height: r.height / s, data: new Uint8ClampedArray(b.buffer, b.byteOffset, b.byteLength) };
}

/**
 * Photos: each a 512x384 cover crop (the truth), shrunk 2x / 4x with bicubic and upscaled back by every method in
 * the same run; PSNR (RGB) and SSIM (luma) against the truth, wall ms. The networks alone run at the route's pixel
 * range for their scale (0..255 at 2x, 0..1 at 4x; photo.ts), plus slim at 0..1 as the model route used to run.
 * Short mode: Storm and Dune at 4x only, without the networks alone.
 */
async function photoSuite(ctx: BenchContext): Promise<void> {
  const files = (ctx.short ? SHORT_PHOTOS : PHOTOS).filter((f) => existsSync(f));
  if (!files.length) {
    ctx.table('photos', [{ skipped: `no photographs (Debian packages mate-backgrounds, python3-skimage): ${NATURE}` }]);
    return;
  }
  const why = await modelUnavailableReason();
  if (why) {
    ctx.table('photos', [{ skipped: `model route unavailable: ${why}` }]);
    return;
  }
  const scales: Array<2 | 4> = ctx.short ? [4] : [2, 4];
  const rows: Row[] = [];
  for (const scale of scales) {
    const range = scale === 2 ? 255 : 1;
    const methods: Array<[PhotoMethod, (r: Raster) => Promise<Raster>]> = [
      ['lanczos3', (r) => lanczos3(r, scale)],
      ['resample', (r) => upscaleResample(r, scale)],
    ];
    if (!ctx.short) {
      methods.push(['esrgan-slim 0..1 (old route)', (r) => upscaleModel(r, scale, { variant: 'slim', range: 1 })]);
      if (range !== 1) methods.push(['esrgan-slim', (r) => upscaleModel(r, scale, { variant: 'slim', range })]);
      methods.push(['esrgan-medium', (r) => upscaleModel(r, scale, { variant: 'medium', range })]);
    }
    methods.push(['photo route (auto)', async (r) => {
      const out = await upscaleRaster(r, { scale, budget: 1e9, budget4x: 1e9, route: 'auto' });
      if (out.route !== 'model') throw new Error(`a photo went to ${out.route} (${out.art.class})`);
      return out.raster;
    }]);
    const per = new Map<PhotoMethod, { psnr: number[]; ssim: number[]; ms: number[] }>();
    for (const file of files) {
      const truth = await coverCrop(file, 512, 384);
      const input = await shrinkCubic(truth, scale);
      const truthRgb = greyComposite(truth);
      for (const [name, run] of methods) {
        const t = performance.now();
        const out = await run(input);
        const ms = performance.now() - t;
        const m = per.get(name) ?? { psnr: [], ssim: [], ms: [] };
        m.psnr.push(psnr(greyComposite(out), truthRgb));
        m.ssim.push(compareRasters(out, truth).ssim);
        m.ms.push(ms);
        per.set(name, m);
        if (process.env.UPSCALE_BENCH_DUMP) await sharp(await rasterToPng(out)).toFile(path.join(process.env.UPSCALE_BENCH_DUMP, `photo-${scale}x-${path.basename(file).replace(/\.\w+$/, '')}_${name.replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, '')}.png`));
      }
    }
    const base = per.get('resample')!;
    for (const [name, m] of per) {
      const winsP = m.psnr.filter((v, i) => v > base.psnr[i]!).length, winsS = m.ssim.filter((v, i) => v > base.ssim[i]!).length;
      rows.push({ scale: `${scale}x`, method: name, n: m.psnr.length, 'PSNR dB': mean(m.psnr), SSIM: mean(m.ssim), 'PSNR wins vs resample': name === 'resample' ? '' : `${winsP}/${m.psnr.length}`, 'SSIM wins vs resample': name === 'resample' ? '' : `${winsS}/${m.ssim.length}`, 'median ms': median(m.ms) });
    }
  }
  ctx.table('photos: 512x384 crops shrunk (bicubic) and upscaled back; means; resample = Lanczos-3 + halo-free sharpen', rows);
}
