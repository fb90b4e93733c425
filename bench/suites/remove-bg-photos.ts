// Background removal on photos: the artwork matte vs the ISNet segmentation model vs `auto`, same run, on
// composites of known alpha at 1024 x 1024 built at bench time (nothing large is committed):
// - product shots / sky: the procedural scenes of golden/lib/scenes.ts (red mug with a soft shadow on a lit
//   backdrop, white mug whose highlight matches the backdrop, storm sky behind a lighthouse);
// - art on photo: corpus pieces over real photographs from Debian packages (mate-backgrounds nature
//   wallpapers: Storm, Garden, Wood, Dune);
// - subject on photo: a cut-out subject with known alpha (python3-skimage's horse silhouette used as the
//   alpha, filled with the fur of skimage's chelsea cat) over the same photographs;
// - art on busy texture: corpus pieces over the busy texture of bench remove-bg (lettering with narrow gaps, a
//   logo with a ring: where the model keeps background in gaps);
// - art on white: corpus pieces on white (what auto must keep on the matte).
// Unlabelled real photos (skimage astronaut, chelsea, coffee, motorcycle) are run too: method and time only;
// REMOVE_BG_DUMP=<dir> writes every cut-out over magenta to look at.
// Metrics per kind, means over images: soft alpha IoU, SAD (sum |α - α_gt| / 1000, at 1024 px), halo ΔE (edge
// colour error where both alphas >= 0.25 next to the true edge), wall ms per image. Without the Debian files
// the photo composites are skipped (printed); without the model (`inkprep models fetch`) the model and auto
// rows are skipped with the reason (auto without a model answers 422 for photos: counted as "refused").
// Short mode: 512 px, the procedural scenes, two composites, one art on white, no model rows.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { engineConfigFromEnv } from '@inkprep/http';
import { DEFAULT_MODEL, MODEL_CATALOG, type ModelName, type Raster } from '@inkprep/engine';
import { catalogConfig, cachedModelState, matteArtwork, removeBackground, runtimeAvailable, type SegmentationModelConfig } from '@inkprep/engine/internals';
import type { BenchContext, Row } from '../lib/harness.js';
import { measureMatte } from '../lib/matte-metrics.js';
import { busyTexture } from '../lib/busy-texture.js';
import { renderCorpusPiece } from '../../golden/lib/art-render.js';
import { scene, SCENES } from '../../golden/lib/scenes.js';

const SKIMAGE = '/usr/lib/python3/dist-packages/skimage/data';
const NATURE = '/usr/share/backgrounds/mate/nature';
const PHOTO_BGS = ['Storm.jpg', 'Garden.jpg', 'Wood.jpg', 'Dune.jpg'].map((f) => path.join(NATURE, f));
const ART = ['noto-1f981-lion.svg', 'si-docker.svg', 'lettering-brew-co.svg', 'gi-barn-owl.svg'];
const BUSY_ART = ['lettering-brew-co.svg', 'gi-barn-owl.svg', 'si-openbsd.svg'];
const UNLABELLED = ['astronaut.png', 'chelsea.png', 'coffee.png', 'motorcycle_left.png'].map((f) => path.join(SKIMAGE, f));

type Kind = 'product shot / sky' | 'art on photo' | 'subject on photo' | 'art on busy texture' | 'art on white';
interface Case { kind: Kind; name: string; input: Raster; truth: Raster }

async function loadCover(file: string, size: number): Promise<Raster> {
  const { data } = await sharp(file).resize(size, size, { fit: 'cover' }).removeAlpha().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: size, height: size, data: new Uint8ClampedArray(data) };
}

function over(fg: Raster, bg: Raster): Raster {
  const out = new Uint8ClampedArray(bg.data.length);
  for (let i = 0; i < bg.width * bg.height; i++) {
    const a = fg.data[i * 4 + 3]! / 255;
    for (let c = 0; c < 3; c++) out[i * 4 + c] = Math.round(fg.data[i * 4 + c]! * a + bg.data[i * 4 + c]! * (1 - a));
    out[i * 4 + 3] = 255;
  }
  return { width: bg.width, height: bg.height, data: out };
}

/** The horse silhouette (dark = subject) as alpha, filled with the cat's fur, centred at 80 % of the canvas. */
async function furryHorse(size: number): Promise<Raster> {
  const inner = Math.round(size * 0.8);
  const mask = await sharp(path.join(SKIMAGE, 'horse.png')).flatten({ background: '#ffffff' }).greyscale().resize(inner, inner, { fit: 'contain', background: '#ffffff' }).negate().raw().toBuffer();
  const fur = await sharp(path.join(SKIMAGE, 'chelsea.png')).resize(inner, inner, { fit: 'cover' }).removeAlpha().raw().toBuffer();
  const out = new Uint8ClampedArray(size * size * 4);
  const o = Math.floor((size - inner) / 2);
  for (let y = 0; y < inner; y++) {
    for (let x = 0; x < inner; x++) {
      const i = ((y + o) * size + x + o) * 4, j = y * inner + x;
      out[i] = fur[j * 3]!; out[i + 1] = fur[j * 3 + 1]!; out[i + 2] = fur[j * 3 + 2]!; out[i + 3] = mask[j]!;
    }
  }
  return { width: size, height: size, data: out };
}

interface Metrics { iou: number; sad: number; halo: number }

/** The shared matte metrics, with SAD in thousands at 1024 x 1024 (scaled from the bench size so short and full mode compare). */
function measure(out: Uint8ClampedArray, gt: Raster): Metrics {
  const m = measureMatte(out, gt);
  return { iou: m.iou, sad: (m.meanAbsAlpha * 1024 * 1024) / 1000, halo: m.halo };
}

async function dump(dir: string, name: string, r: Raster): Promise<void> {
  const c = new Uint8ClampedArray(r.data.length);
  for (let i = 0; i < r.width * r.height; i++) {
    const a = r.data[i * 4 + 3]! / 255;
    c[i * 4] = r.data[i * 4]! * a + 255 * (1 - a); c[i * 4 + 1] = r.data[i * 4 + 1]! * a; c[i * 4 + 2] = r.data[i * 4 + 2]! * a + 255 * (1 - a); c[i * 4 + 3] = 255;
  }
  await sharp(Buffer.from(c.buffer), { raw: { width: r.width, height: r.height, channels: 4 } }).png().toFile(path.join(dir, `${name}.png`));
}

/** CPU ms of this process since `since` (the model's inference threads included). */
const cpuMs = (since: NodeJS.CpuUsage): number => { const d = process.cpuUsage(since); return (d.user + d.system) / 1000; };
const mean = (xs: number[]): number => xs.reduce((s, v) => s + v, 0) / Math.max(1, xs.length);

export default async function removeBgPhotosBench(ctx: BenchContext): Promise<void> {
  const size = ctx.short ? 512 : 1024;
  const dumpDir = process.env.REMOVE_BG_DUMP;
  if (dumpDir) mkdirSync(dumpDir, { recursive: true });

  // Models: the default and (full mode) the quantized variant, when cached and the runtime loads.
  const runtime = await runtimeAvailable();
  const dir = engineConfigFromEnv().modelDir;
  const models: { label: string; name: ModelName; cfg: SegmentationModelConfig }[] = [];
  if (ctx.short) ctx.log('remove-bg-photos: short mode: model rows skipped (ISNet takes seconds per image; run the full suite)');
  for (const name of (ctx.short ? [] : Object.keys(MODEL_CATALOG)) as ModelName[]) {
    if (!runtime.ok) break;
    if (cachedModelState(name, dir) === 'ready') models.push({ label: name, name, cfg: catalogConfig(name, dir) });
    else ctx.log(`remove-bg-photos: model rows for ${name} skipped: not cached in ${dir} (run \`inkprep models fetch ${name}\`)`);
  }
  if (!runtime.ok) ctx.log(`remove-bg-photos: model and auto rows skipped: ${runtime.reason}`);
  const auto = models.find((m) => m.name === DEFAULT_MODEL) ?? null;

  const cases: Case[] = [];
  for (const k of SCENES) { const s = scene(k, size); cases.push({ kind: 'product shot / sky', name: k, input: s.input, truth: s.truth }); }
  const havePhotos = PHOTO_BGS.every((f) => existsSync(f));
  const haveSkimage = existsSync(path.join(SKIMAGE, 'horse.png')) && existsSync(path.join(SKIMAGE, 'chelsea.png'));
  if (!havePhotos) ctx.log(`remove-bg-photos: art/subject on photo skipped: ${NATURE} not found (apt-get install mate-backgrounds)`);
  if (!haveSkimage) ctx.log(`remove-bg-photos: subject on photo and unlabelled photos skipped: ${SKIMAGE} not found (apt-get install python3-skimage)`);
  const bgs = havePhotos ? PHOTO_BGS.slice(0, ctx.short ? 1 : 2) : [];
  for (let b = 0; b < bgs.length; b++) {
    const bg = await loadCover(bgs[b]!, size);
    const art = await renderCorpusPiece(ART[b % ART.length]!, size);
    cases.push({ kind: 'art on photo', name: `${ART[b % ART.length]!.replace('.svg', '')} on ${path.basename(bgs[b]!)}`, input: over(art, bg), truth: art });
    if (haveSkimage) {
      const horse = await furryHorse(size);
      cases.push({ kind: 'subject on photo', name: `furry horse on ${path.basename(bgs[b]!)}`, input: over(horse, bg), truth: horse });
    }
  }
  for (const file of BUSY_ART.slice(0, ctx.short ? 1 : BUSY_ART.length)) {
    const art = await renderCorpusPiece(file, size);
    const tex = busyTexture();
    const bg = new Uint8ClampedArray(size * size * 4);
    for (let i = 0; i < size * size; i++) { bg.set(tex(i % size, Math.floor(i / size)), i * 4); bg[i * 4 + 3] = 255; }
    cases.push({ kind: 'art on busy texture', name: `${file.replace('.svg', '')} on busy texture`, input: over(art, { width: size, height: size, data: bg }), truth: art });
  }
  for (const file of ART.slice(0, ctx.short ? 1 : ART.length)) {
    const art = await renderCorpusPiece(file, size);
    const white: Raster = over(art, { width: size, height: size, data: new Uint8ClampedArray(size * size * 4).fill(255) });
    cases.push({ kind: 'art on white', name: `${file.replace('.svg', '')} on white`, input: white, truth: art });
  }
  ctx.log(`remove-bg-photos: ${cases.length} composites at ${size}x${size}; models: ${models.map((m) => m.label).join(', ') || 'none'}`);

  type Acc = { m: Metrics[]; ms: number[]; cpu: number[]; refused: number; routed: Record<string, number> };
  const acc = new Map<string, Acc>();
  const add = (kind: Kind, method: string, r: { m?: Metrics; ms: number; cpu: number; refused?: boolean; routed?: string }): void => {
    const key = `${kind}\u0000${method}`;
    const a = acc.get(key) ?? { m: [], ms: [], cpu: [], refused: 0, routed: {} };
    if (r.m) a.m.push(r.m);
    a.ms.push(r.ms);
    a.cpu.push(r.cpu);
    if (r.refused) a.refused++;
    if (r.routed) a.routed[r.routed] = (a.routed[r.routed] ?? 0) + 1;
    acc.set(key, a);
  };
  const perImage: Row[] = [];
  for (const c of cases) {
    let t = performance.now(), cpu = process.cpuUsage();
    const matte = matteArtwork(c.input);
    const matteMs = performance.now() - t, matteCpu = cpuMs(cpu);
    add(c.kind, 'matte', { m: measure(matte.data, c.truth), ms: matteMs, cpu: matteCpu });
    const row: Row = { kind: c.kind, image: c.name, separable: matte.separability.separable, 'matte IoU': measure(matte.data, c.truth).iou };
    if (dumpDir) await dump(dumpDir, `${c.name}-matte`, { width: size, height: size, data: matte.data });
    const modelOut = new Map<string, { r: Raster; ms: number; cpu: number }>();
    for (const m of models) {
      t = performance.now(); cpu = process.cpuUsage();
      const r = await removeBackground(c.input, { backend: 'model', model: m.cfg, jpeg: false });
      const ms = performance.now() - t, mcpu = cpuMs(cpu);
      modelOut.set(m.label, { r, ms, cpu: mcpu });
      const mm = measure(r.data, c.truth);
      add(c.kind, `model ${m.label}`, { m: mm, ms, cpu: mcpu });
      row[`${m.label} IoU`] = mm.iou;
      if (dumpDir) await dump(dumpDir, `${c.name}-${m.label}`, r);
    }
    // auto: the API's path. When it routes to the model, its output is the forced model run above (same code
    // path): reused, timed as the matte's decision + that run, instead of running ISNet a second time.
    const autoName = auto ? 'auto' : 'auto (no model)';
    t = performance.now(); cpu = process.cpuUsage();
    if (!matte.separability.separable && auto) {
      const m = modelOut.get(auto.label)!;
      const mm = measure(m.r.data, c.truth);
      add(c.kind, autoName, { m: mm, ms: m.ms + matteMs, cpu: m.cpu + matteCpu, routed: 'model' });
      row['auto IoU'] = mm.iou;
      row['auto method'] = 'model';
    } else {
      try {
        const r = await removeBackground(c.input, { backend: 'auto', model: auto?.cfg ?? null, jpeg: false });
        const mm = measure(r.data, c.truth);
        add(c.kind, autoName, { m: mm, ms: performance.now() - t, cpu: cpuMs(cpu), routed: r.method });
        row['auto IoU'] = mm.iou;
        row['auto method'] = r.method;
        if (dumpDir) await dump(dumpDir, `${c.name}-auto`, r);
      } catch (err) {
        add(c.kind, autoName, { ms: performance.now() - t, cpu: cpuMs(cpu), refused: true, routed: `422 ${(err as { code?: string }).code ?? 'error'}` });
        row['auto method'] = `422 ${(err as { code?: string }).code ?? ''}`;
      }
    }
    perImage.push(row);
  }

  const rows: Row[] = [];
  for (const [key, a] of acc) {
    const [kind, method] = key.split('\u0000') as [string, string];
    rows.push({
      kind, method, images: a.ms.length,
      'alpha IoU': a.m.length ? mean(a.m.map((m) => m.iou)) : '',
      'min IoU': a.m.length ? Math.min(...a.m.map((m) => m.iou)) : '',
      'SAD (k, 1024px)': a.m.length ? mean(a.m.map((m) => m.sad)) : '',
      'halo dE': a.m.length ? mean(a.m.map((m) => m.halo)) : '',
      'ms / image': mean(a.ms),
      'cpu ms / image': mean(a.cpu),
      'routed / refused': Object.entries(a.routed).map(([k, v]) => `${k} ${v}`).join(', '),
    });
  }
  rows.sort((p, q) => String(p.kind).localeCompare(String(q.kind)) || String(p.method).localeCompare(String(q.method)));
  ctx.table(`remove-bg on photos (${size}x${size}; means per kind; same run)`, rows);
  ctx.table('remove-bg on photos: per image', perImage);

  if (haveSkimage && auto && !ctx.short) {
    const rows2: Row[] = [];
    for (const f of UNLABELLED.slice(0, ctx.short ? 1 : UNLABELLED.length)) {
      const img = await loadCover(f, size);
      const t = performance.now();
      try {
        const r = await removeBackground(img, { backend: 'auto', model: auto.cfg, jpeg: false });
        let kept = 0;
        for (let i = 3; i < r.data.length; i += 4) kept += r.data[i]! / 255;
        rows2.push({ photo: path.basename(f), method: r.method, 'opaque %': (100 * kept) / (size * size), 'ms': performance.now() - t });
        if (dumpDir) await dump(dumpDir, `photo-${path.basename(f, path.extname(f))}-auto`, r);
      } catch (err) {
        rows2.push({ photo: path.basename(f), method: `422 ${(err as { code?: string }).code}`, 'opaque %': '', ms: performance.now() - t });
      }
    }
    ctx.table('unlabelled photos through auto (look at REMOVE_BG_DUMP)', rows2);
  }
}
