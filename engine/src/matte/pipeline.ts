// Background removal end to end (runs in a pool worker): input already transparent -> keep it; else the
// artwork matte; if the image is not art on a separable background, the segmentation model when one is
// configured (refined by matting), otherwise 422 not_separable (backend auto) or the best matte with a warning
// (backend matte, asked for explicitly). Warnings are ASCII sentences
// "<code>: <text>" so they fit an HTTP header.
import { InkprepError } from '../errors.js';
import type { Raster } from '../raster/types.js';
import { matteArtwork } from './matte.js';
import { predictMask, type SegmentationModelConfig } from './model.js';
import { refineMask } from './refine.js';
import type { MatteResult, MatteStats } from './types.js';

/** Which backend to use. `auto`: matte, model only for inputs that are not art on a separable background. */
export type RemoveBgBackend = 'auto' | 'matte' | 'model';

export interface RemoveBgSettings {
  backend: RemoveBgBackend;
  model: SegmentationModelConfig | null;
  /** Inference threads of the model session; default defaultSegmentationThreads(). */
  threads?: number;
  /** true: the pixels were decoded from a JPEG (raises noise tolerances); false: certainly clean; omitted: detected. */
  jpeg?: boolean;
  /** Enclosed background-coloured regions: `remove` (default) or `keep`. */
  enclosed?: 'remove' | 'keep';
  /** Hears how far the matte is (0..1) and the step running (the op's progress events). */
  onProgress?: (done: number, step: string) => void;
  /** Why `model` is null, for the not_separable error: `absent` (default) or `loading` (being fetched). */
  modelState?: 'absent' | 'loading';
}

function notSeparable(why: string, model: 'absent' | 'loading' | 'failed', detail: string): InkprepError {
  const tail = model === 'loading'
    ? 'the segmentation model is still being fetched; try again in a minute'
    : model === 'failed'
      ? `the segmentation model could not run (${detail})`
      : 'no segmentation model is available';
  return new InkprepError('not_separable', `This looks like a photo, not art on a plain background (${why}); ${tail}`, { reason: why, model });
}

/** Share of border pixels that must be (nearly) transparent for the input to count as already cut out. */
const TRANSPARENT_BORDER = 0.5;

function borderTransparency(src: Raster): { transparent: number; anyPartial: boolean } {
  const { width, height, data } = src;
  let t = 0, total = 0;
  const visit = (i: number): void => { total++; if (data[i * 4 + 3]! <= 16) t++; };
  for (let x = 0; x < width; x++) { visit(x); visit((height - 1) * width + x); }
  for (let y = 1; y < height - 1; y++) { visit(y * width); visit(y * width + width - 1); }
  let anyPartial = false;
  for (let i = 3; i < data.length; i += 4) if (data[i]! < 255) { anyPartial = true; break; }
  return { transparent: t / Math.max(1, total), anyPartial };
}

function emptyStats(): MatteStats {
  return { background: 'none', backgroundColor: null, inlierFraction: 0, noiseDeltaE: 0, compression: 'none', separable: true, softFraction: 0, faintFraction: 0, transparentFraction: 0, bandPixels: 0, holesRemoved: 0, specksRemoved: 0 };
}

/**
 * Remove the background of an image. Same size out, straight alpha.
 * @throws InkprepError `processing_failed` when backend `model` is forced and the model cannot run;
 *   `not_separable` (422) with backend `auto` when the image is not art on a separable background and no
 *   model is configured or it cannot run (never a cut-out with holes in the subject)
 */
export async function removeBackground(src: Raster, s: RemoveBgSettings): Promise<MatteResult> {
  const { width, height } = src;
  const n = width * height;
  const alphaInfo = borderTransparency(src);
  if (alphaInfo.transparent >= TRANSPARENT_BORDER) {
    let transparent = 0;
    for (let i = 3; i < src.data.length; i += 4) if (src.data[i] === 0) transparent++;
    return {
      data: src.data.slice(), width, height, method: 'alpha',
      warnings: ['already_transparent: the image already has a transparent background; it was returned unchanged'],
      stats: { ...emptyStats(), transparentFraction: transparent / Math.max(1, n) },
    };
  }
  const warnings: string[] = [];
  let result: MatteResult;
  if (s.backend === 'model') {
    s.onProgress?.(0, 'model');
    result = await viaModel(src, s.model!, s.threads, warnings);
  } else {
    const matte = matteArtwork(src, { jpeg: s.jpeg, enclosed: s.enclosed ?? 'remove', ...(s.onProgress ? { onProgress: s.onProgress } : {}) });
    result = { data: matte.data, width, height, method: 'matte', warnings, stats: matte.stats };
    if (!matte.separability.separable) {
      const why = matte.separability.reason;
      if (s.backend === 'auto') {
        // Never a hole-punched cut-out: a photo goes to the model or is refused (422), not matted.
        if (!s.model) throw notSeparable(why, s.modelState ?? 'absent', '');
        try {
          s.onProgress?.(0.9, 'model');
          result = await viaModel(src, s.model, s.threads, warnings);
          warnings.unshift(`not_separable: ${why}; used the segmentation model`);
        } catch (err) {
          throw notSeparable(why, 'failed', ((err as Error).message ?? String(err)).replace(/[^\x20-\x7e]/g, '?'));
        }
      } else {
        // backend=matte was asked for explicitly (library/CLI): the best matte, with the warning.
        warnings.push(`not_separable: ${why}; the result may keep parts of the background or cut into the subject`);
      }
    }
  }
  if (alphaInfo.anyPartial) {
    // Keep the source's own transparency: final alpha = matte alpha x source alpha.
    const d = result.data, a = src.data;
    for (let i = 3; i < d.length; i += 4) d[i] = Math.round((d[i]! * a[i]!) / 255);
  }
  return result;
}

async function viaModel(src: Raster, cfg: SegmentationModelConfig, threads: number | undefined, warnings: string[]): Promise<MatteResult> {
  const mask = await predictMask(src, cfg, threads);
  const r = refineMask(src, mask);
  let transparent = 0;
  for (let i = 3; i < r.data.length; i += 4) if (r.data[i] === 0) transparent++;
  return {
    data: r.data, width: src.width, height: src.height, method: 'model', warnings,
    stats: { ...emptyStats(), separable: false, transparentFraction: Math.round((transparent / Math.max(1, src.width * src.height)) * 1000) / 1000, bandPixels: r.bandPixels, specksRemoved: r.specksRemoved },
  };
}
