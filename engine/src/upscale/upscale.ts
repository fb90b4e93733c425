// Art-aware upscaling: pre-shrink to the budget (budget.ts), classify the art (classify.ts), then route:
// flat art -> vector path (trace with our vectorizer, render the SVG at the target size: vector.ts),
// painted/photographic art -> super-resolution model (photo.ts picks ESRGAN medium or slim, and at 4x
// averages it with resample; sr.ts runs it in tiles), anything else -> Lanczos-3 on colour bled
// under transparency plus halo-free sharpening (resample.ts). When the chosen path is unavailable or fails,
// resample is used and the result says why (`fallback`). The vector render is checked window by window
// against the input (local round-trip guard, guard.ts): windows where it lost detail are taken from resample
// (`patched` = their share of the art), and when they cover most of the art the whole image falls back.
import { resizeRaster } from '../raster/resize.js';
import type { Raster } from '../raster/types.js';
import { planSize, type Budgets, type SizePlan } from './budget.js';
import { classifyArt, type ArtStats } from './classify.js';
import { modelUnavailableReason } from './model.js';
import { upscaleResample } from './resample.js';
import { upscalePhoto, type PhotoPlan } from './photo.js';
import { checkRoundTrip, patchFailingWindows, WHOLE_FALLBACK_SHARE } from './guard.js';
import { upscaleVector } from './vector.js';

/** The three upscaling paths. */
export type UpscaleRoute = 'vector' | 'model' | 'resample';

export interface UpscaleParams extends Budgets {
  scale: 2 | 4;
  /** `auto` (default) routes by art class; a path name forces that path (benchmarks, debugging). */
  route: 'auto' | UpscaleRoute;
  /** Memory bound per model tile in bytes (sr.ts default when omitted). */
  tileMemory?: number;
  /** Progress: fraction 0..1 of the upscale and the step (shrink, classify, then the route's name). */
  onProgress?: (fraction: number, stage: string) => void;
}

export interface UpscaleOutcome {
  raster: Raster;
  /** Path that produced the image. */
  route: UpscaleRoute;
  /** Path the router chose (or the caller forced) before any fallback. */
  chosen: UpscaleRoute;
  /** Why the chosen path was not used, or null. */
  fallback: string | null;
  /** Model route: the weights, pixel range and blend that ran (photo.ts), else null. */
  model: PhotoPlan | null;
  /**
   * Vector route under the local round-trip guard: share (0..1) of the visible art inside windows where the
   * render lost detail and the resample route was blended in; 0 when nothing was patched or another route ran.
   */
  patched: number;
  art: ArtStats;
  plan: SizePlan;
  /** Milliseconds spent per stage. */
  ms: { shrink: number; classify: number; upscale: number };
}

/** Route for an art class. */
export function routeFor(art: ArtStats): UpscaleRoute {
  return art.class === 'flat' ? 'vector' : art.class === 'painted' ? 'model' : 'resample';
}

/**
 * Upscale a decoded raster by 2 or 4.
 * @throws InkprepError `image_too_large` (413, `maxPixels`, `pixels`) above budget * 4 pixels.
 */
export async function upscaleRaster(src: Raster, p: UpscaleParams): Promise<UpscaleOutcome> {
  const plan = planSize(src.width, src.height, p.scale, p);
  let t = performance.now();
  if (plan.preShrunk) p.onProgress?.(0, 'shrink');
  const input = plan.preShrunk ? await resizeRaster(src, plan.to) : src;
  const shrinkMs = performance.now() - t;
  t = performance.now();
  p.onProgress?.(0, 'classify');
  const art = classifyArt(input);
  const classifyMs = performance.now() - t;
  const chosen: UpscaleRoute = p.route === 'auto' ? routeFor(art) : p.route;
  let route = chosen;
  let fallback: string | null = null;
  let raster: Raster | null = null;
  t = performance.now();
  p.onProgress?.(0, chosen);
  let patched = 0;
  let model: PhotoPlan | null = null;
  if (chosen === 'vector') {
    try {
      const vec = await upscaleVector(input, p.scale, { onProgress: (d, step) => p.onProgress?.(d, step) });
      // The round-trip guard applies to the router's own choice; a forced `vector` renders the trace as it is.
      if (p.route !== 'auto') raster = vec;
      else {
        p.onProgress?.(0.95, 'check');
        const g = await checkRoundTrip(input, vec);
        if (g.share > WHOLE_FALLBACK_SHARE) {
          fallback = `the trace loses detail of this image (${Math.round(g.share * 100)} % of it in ${g.failed} of ${g.windows} windows; round-trip error ${g.meanError.toFixed(1)})`;
        } else if (g.failed > 0) {
          raster = patchFailingWindows(vec, await upscaleResample(input, p.scale), g, input.width, input.height);
          patched = g.share;
        } else raster = vec;
      }
    } catch (err) {
      fallback = `vector path failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  } else if (chosen === 'model') {
    const why = await modelUnavailableReason();
    if (why) fallback = `model unavailable: ${why}`;
    else ({ raster, plan: model } = await upscalePhoto(input, p.scale, { tileMemory: p.tileMemory, onProgress: (d, n) => p.onProgress?.(d / n, 'model') }));
  }
  if (!raster) {
    route = 'resample';
    raster = await upscaleResample(input, p.scale);
  }
  p.onProgress?.(1, route);
  return { raster, route, chosen, fallback, patched, model, art, plan, ms: { shrink: shrinkMs, classify: classifyMs, upscale: performance.now() - t } };
}
