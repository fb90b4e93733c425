// The model route for painted and photographic art: which ESRGAN weights run at which scale, chosen by
// measurement (bench `upscale`, photo table; docs/algorithms/upscale.md), on 16 real photographs (mate-backgrounds
// nature wallpapers and scikit-image samples) downscaled with bicubic and compared with the original:
//  - 2x: ESRGAN-medium beats slim by 0.19 dB and Lanczos-3 + sharpen by 2.3 dB but costs ~2.7x slim, so it
//    runs up to MEDIUM_MAX_PIXELS_2X input pixels (within the time the budgets were set for) and slim above.
//  - 4x: every shipped x4 network alone is at or below Lanczos-3 + sharpen on photos (slim -0.4 dB,
//    medium +0.08 dB); the mean of ESRGAN-medium and Lanczos-3 + sharpen beats both (+0.38 dB, SSIM +0.006),
//    the two err differently. Medium costs ~1.9x slim at 4x, so above MEDIUM_MAX_PIXELS_4X the mean is taken
//    with slim instead (+0.16 dB, SSIM +0.004 over Lanczos-3 + sharpen). ESRGAN-thick (RRDN) would win at 4x
//    (+1.0 dB) but is 58 MB and ~9x medium's time: not shipped.
// Time (same-run ratios at load ~19, 240x240 input): medium / slim = 1.6-2.1 at 4x, 2.4-2.9 at 2x. With slim
// at about 8 µs per input pixel at 4x and 4 at 2x on the idle reference machine (budget.ts), the limits keep
// the network near 7-8 s at either scale.
// Pixel range fed to the networks: 0..255 at 2x (as @upscalerjs declares for these RDN weights; +0.15 dB over
// 0..1 on slim) but 0..1 at 4x, where the x4 weights measure better (medium +0.18 dB, slim +0.10 dB).
import type { Raster } from '../raster/types.js';
import type { ModelScale, ModelVariant } from './model.js';
import { upscaleResample } from './resample.js';
import { upscaleModel, type SrOptions } from './sr.js';

/** Above this many input pixels a 2x photo runs on ESRGAN-slim instead of medium (time). */
export const MEDIUM_MAX_PIXELS_2X = 750_000;
/** Above this many input pixels a 4x photo's mean is taken with ESRGAN-slim instead of medium (time). */
export const MEDIUM_MAX_PIXELS_4X = 500_000;

/** Weight of the network in the 4x mean with Lanczos-3 + sharpen (0.5 and 0.65 measured equal within 0.02 dB). */
const MODEL_WEIGHT_4X = 0.5;

/** What the model route runs for one input. */
export interface PhotoPlan {
  variant: ModelVariant;
  range: 1 | 255;
  /** Whether the network's result is averaged with Lanczos-3 + sharpen. */
  blend: boolean;
}

/** The plan for an input of `pixels` pixels at `scale`. */
export function photoPlan(scale: ModelScale, pixels: number): PhotoPlan {
  if (scale === 4) return { variant: pixels <= MEDIUM_MAX_PIXELS_4X ? 'medium' : 'slim', range: 1, blend: true };
  return { variant: pixels <= MEDIUM_MAX_PIXELS_2X ? 'medium' : 'slim', range: 255, blend: false };
}

/**
 * Upscale painted/photographic art by 2 or 4 along the plan.
 * @throws InkprepError `processing_failed` when the model runtime is unavailable.
 */
export async function upscalePhoto(src: Raster, scale: ModelScale, opts: Omit<SrOptions, 'variant' | 'range'> = {}): Promise<{ raster: Raster; plan: PhotoPlan }> {
  const plan = photoPlan(scale, src.width * src.height);
  const net = await upscaleModel(src, scale, { ...opts, variant: plan.variant, range: plan.range });
  if (!plan.blend) return { raster: net, plan };
  const res = await upscaleResample(src, scale);
  // Both share the same alpha plane (Lanczos-3 of the input's alpha) and colour bled under transparency.
  const a = net.data, b = res.data;
  for (let i = 0; i < a.length; i += 4) {
    a[i] = a[i]! * MODEL_WEIGHT_4X + b[i]! * (1 - MODEL_WEIGHT_4X);
    a[i + 1] = a[i + 1]! * MODEL_WEIGHT_4X + b[i + 1]! * (1 - MODEL_WEIGHT_4X);
    a[i + 2] = a[i + 2]! * MODEL_WEIGHT_4X + b[i + 2]! * (1 - MODEL_WEIGHT_4X);
  }
  return { raster: net, plan };
}
