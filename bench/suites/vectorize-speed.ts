// Vectorize speed against VTracer, measured in-process and interleaved per image so that both see the same
// machine load: for every corpus artwork at 1024 px (PNG with alpha, and the same flattened on white as JPEG
// q85), ours and VTracer run in ABBA order for R rounds; per image the median wall and CPU ms of each, then the
// median over images of the per-image ratio ours / VTracer (the issue #19 speed criterion: <= 1).
// Fidelity is the `vectorize` suite's job; this one only times.
// Env: VECTORIZE_SPEED_ROUNDS (full default 3), VECTORIZE_BENCH_ONLY (artwork id substring).
// BENCH_SHORT=1: 4 artworks, 1 round (2 runs each), 512 px. Both sides are warmed up on the first artwork.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchContext, Row } from '../lib/harness.js';
import { rasteriseSvg } from '../../golden/lib/metrics.js';
import { corpusDir } from '../../golden/lib/corpus.js';
import { jpegUpload, median, runVtracer } from '../lib/vectorize-metrics.js';
import { resolveVectorize, vectorizeRaster } from '@inkprep/engine/internals';
import type { Raster } from '@inkprep/engine';

interface Item { file: string; id: string }
interface Timing { ms: number; cpuMs: number }
interface ImageRow { variant: string; id: string; ours: Timing; vtracer: Timing; stages: Map<string, number> }

const SHORT_IDS = ['gi-barn-owl', 'noto-1f981-lion', 'noto-1f680-rocket', 'noto-1f351-peach'];

export default async function vectorizeSpeedSuite(ctx: BenchContext): Promise<void> {
  const dir = corpusDir();
  if (!dir) {
    ctx.log('vectorize-speed: corpus not found (set INKPREP_CORPUS); suite skipped');
    return;
  }
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { items: Item[] };
  const only = process.env.VECTORIZE_BENCH_ONLY;
  const items = manifest.items.filter((it) => (ctx.short ? SHORT_IDS.includes(it.id) : true) && (!only || it.id.includes(only)));
  const size = ctx.short ? 512 : 1024;
  const rounds = ctx.short ? 1 : Math.max(1, Number(process.env.VECTORIZE_SPEED_ROUNDS ?? 3) | 0);
  const opts = resolveVectorize({});
  const rows: ImageRow[] = [];

  const time = (fn: () => unknown): Timing => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    const ms = performance.now() - t0;
    const cu = process.cpuUsage(c0);
    return { ms, cpuMs: (cu.user + cu.system) / 1000 };
  };

  for (const it of items) {
    const art = await rasteriseSvg(readFileSync(path.join(dir, it.file), 'utf8'), size, { fit: 'long-side' });
    const variants: Array<[string, Raster]> = [['png', art], ['jpg', await jpegUpload(art)]];
    for (const [variant, input] of variants) {
      // As in the service (vectorizeOp.run): the decoded pixels are the run's own, so prepare may write over them.
      const source = { jpeg: variant === 'jpg', owned: true };
      // Each run gets its own copy of the pixels (neither side may see the other's buffer), made outside the timing.
      const runOurs = (): Timing => {
        const copy = { ...input, data: input.data.slice() };
        return time(() => vectorizeRaster(copy, opts, source));
      };
      const runTheirs = (): Timing => {
        const copy = { ...input, data: input.data.slice() };
        return time(() => runVtracer(copy));
      };
      // Untimed runs of both on the first artwork's two variants: JIT warm-up (a server runs warm code).
      if (it === items[0]) { runOurs(); runTheirs(); }
      const ours: Timing[] = [], theirs: Timing[] = [];
      // ABBA: each side runs first as often as second, so warm caches and load drift favour neither.
      for (let r = 0; r < rounds; r++) {
        ours.push(runOurs()); theirs.push(runTheirs());
        theirs.push(runTheirs()); ours.push(runOurs());
      }
      // Where our time goes: one more run, timed stage by stage through the progress reporter (primitive fitting
      // counts in `trace`; the document writing in `svg`).
      const stages = new Map<string, number>();
      {
        const copy = { ...input, data: input.data.slice() };
        let current = '', since = performance.now();
        vectorizeRaster(copy, opts, source, (stage) => {
          if (stage === current) return;
          const now = performance.now();
          if (current) stages.set(current, (stages.get(current) ?? 0) + now - since);
          current = stage; since = now;
        });
        if (current) stages.set(current, (stages.get(current) ?? 0) + performance.now() - since);
      }
      const med = (ts: Timing[]): Timing => ({ ms: median(ts.map((t) => t.ms)), cpuMs: median(ts.map((t) => t.cpuMs)) });
      rows.push({ variant, id: it.id, ours: med(ours), vtracer: med(theirs), stages });
    }
    ctx.log(`vectorize-speed: ${it.id} done`);
  }

  const summary: Row[] = [];
  for (const variant of ['png', 'jpg']) {
    const rs = rows.filter((r) => r.variant === variant);
    if (!rs.length) continue;
    summary.push({
      variant,
      artworks: rs.length,
      'ours ms': round(median(rs.map((r) => r.ours.ms)), 1),
      'vtracer ms': round(median(rs.map((r) => r.vtracer.ms)), 1),
      'x ms (median of ratios)': round(median(rs.map((r) => r.ours.ms / r.vtracer.ms)), 3),
      'ours cpu ms': round(median(rs.map((r) => r.ours.cpuMs)), 1),
      'vtracer cpu ms': round(median(rs.map((r) => r.vtracer.cpuMs)), 1),
      'x cpu (median of ratios)': round(median(rs.map((r) => r.ours.cpuMs / Math.max(0.001, r.vtracer.cpuMs))), 3),
    });
  }
  ctx.table(`vectorize speed: ours / vtracer, ${size} px, ${rounds} ABBA round(s) per image, medians`, summary);
  const stageRows: Row[] = [];
  for (const variant of ['png', 'jpg']) {
    const rs = rows.filter((r) => r.variant === variant);
    if (!rs.length) continue;
    const names = [...new Set(rs.flatMap((r) => [...r.stages.keys()]))];
    const total = rs.reduce((t, r) => t + [...r.stages.values()].reduce((a, b) => a + b, 0), 0);
    const row: Row = { variant };
    for (const name of names) {
      const sum = rs.reduce((t, r) => t + (r.stages.get(name) ?? 0), 0);
      row[name] = `${round(sum / rs.length, 1)} (${Math.round((100 * sum) / total)} %)`;
    }
    stageRows.push(row);
  }
  ctx.table('vectorize: where our time goes, mean ms per artwork by stage (share), one extra run each', stageRows);
  ctx.table('vectorize speed per artwork (median ms)', rows.map((r) => ({
    variant: r.variant, id: r.id, ours: round(r.ours.ms, 1), vtracer: round(r.vtracer.ms, 1), 'x ms': round(r.ours.ms / r.vtracer.ms, 3),
    'ours cpu': round(r.ours.cpuMs, 1), 'vtracer cpu': round(r.vtracer.cpuMs, 1),
  })));
}

function round(v: number, d: number): number {
  const f = 10 ** d;
  return Math.round(v * f) / f;
}
