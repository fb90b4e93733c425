// Upscale budgets (spec 2.4 / 4.5): the upscaler runs at most at `budget` input pixels (2x) or `budget4x`
// (4x). Larger input up to 4x the budget in pixels (2x linear: the "shrink allowance") is first shrunk to
// fit the budget, keeping its aspect ratio; anything larger is refused with 413 `image_too_large`.
import { InkprepError } from '../errors.js';

/** The allowance for automatic pre-shrinking: input may have up to this many times the budget's pixels. */
export const SHRINK_ALLOWANCE = 4;

/**
 * Default budgets in input pixels, chosen so the slowest path (the super-resolution model, tiled, plus
 * PNG encoding of the result) stays under ~10 s on the 2-core reference machine when it is not shared:
 * the model measured 6.3 µs per input pixel at 4x (256 x 256 in 411 ms, 2 ORT threads), about 8 µs with
 * tile margins, plus about 2 µs per input pixel of PNG encoding at 4x (16 output pixels each); 2x costs
 * about 5 µs per input pixel in all. See docs/algorithms/upscale.md and bench/suites/upscale.ts.
 */
export const DEFAULT_BUDGET = 1_500_000;
export const DEFAULT_BUDGET_4X = 750_000;

export interface Budgets {
  /** Input pixels the 2x upscaler runs at. */
  budget: number;
  /** Input pixels the 4x upscaler runs at. */
  budget4x: number;
}

/** Largest input accepted for a scale: its budget times the shrink allowance. */
export function maxPixelsFor(scale: 2 | 4, b: Budgets): number {
  return (scale === 4 ? b.budget4x : b.budget) * SHRINK_ALLOWANCE;
}

/** What the upscaler will do with an input of a given size. */
export interface SizePlan {
  /** Whether the input is shrunk to the budget before upscaling. */
  preShrunk: boolean;
  /** Input size. */
  from: { width: number; height: number };
  /** Size the upscaler runs at (equal to `from` when not shrunk). */
  to: { width: number; height: number };
  /** Output size: `to` times the scale. */
  output: { width: number; height: number };
}

/**
 * Plan the sizes for one input.
 * @throws InkprepError `image_too_large` (413) with `maxPixels` and `pixels` when width*height exceeds
 *   budget * SHRINK_ALLOWANCE for the scale.
 * @example planSize(2000, 1000, 4, { budget: 1e6, budget4x: 250_000 }) // -> to 707x353, preShrunk true
 */
export function planSize(width: number, height: number, scale: 2 | 4, b: Budgets): SizePlan {
  const budget = scale === 4 ? b.budget4x : b.budget;
  const maxPixels = budget * SHRINK_ALLOWANCE;
  const pixels = width * height;
  if (pixels > maxPixels) {
    throw new InkprepError('image_too_large', `The image has ${pixels} pixels; ${scale}x upscaling accepts at most ${maxPixels}`, { maxPixels, pixels });
  }
  const from = { width, height };
  if (pixels <= budget) return { preShrunk: false, from, to: from, output: { width: width * scale, height: height * scale } };
  // Largest size with the same aspect ratio whose pixel count fits the budget.
  const f = Math.sqrt(budget / pixels);
  let w = Math.max(1, Math.floor(width * f));
  let h = Math.max(1, Math.floor(height * f));
  while (w * h > budget && (w > 1 || h > 1)) {
    if (w >= h && w > 1) w--;
    else h--;
  }
  const to = { width: w, height: h };
  return { preShrunk: true, from, to, output: { width: w * scale, height: h * scale } };
}
