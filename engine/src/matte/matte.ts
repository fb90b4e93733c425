// The artwork matting pipeline (default backend): background model from the border -> compression check ->
// perceptual classification (flood fill + enclosed regions) -> alpha from the mixing model in the band ->
// colour decontamination -> despeckle. Pure TypeScript over typed arrays; runs in a pool worker.
import { rgbToLab, toHex, type Vec3 } from '../colour/convert.js';
import type { Raster } from '../raster/types.js';
import { estimateAlpha } from './alpha.js';
import { backgroundRgbAt, evalModel, fitBackground } from './background.js';
import { classify, distanceMap, thresholdsFor } from './classify.js';
import { looksCompressed } from './artifacts.js';
import { decontaminate, SAMPLE_MODE_NOISE } from './decontaminate.js';
import { despeckle } from './despeckle.js';
import { judgeBorder, judgeClassification, judgeSoftness, softTransitions, type Separability } from './separability.js';
import { BG, FG, type BackgroundModel, type MatteStats } from './types.js';

export interface ArtworkMatte {
  /** Straight-alpha RGBA. */
  data: Uint8ClampedArray;
  model: BackgroundModel;
  separability: Separability;
  stats: MatteStats;
}

/** Tuning of the artwork matte. */
export interface ArtworkMatteOptions {
  /** The pixels came from a JPEG: tolerances are raised to the codec's ringing and chroma error. `false`:
   * certainly not; omitted: detected from the pixels (artifacts.ts), e.g. for a PNG saved from a JPEG. */
  jpeg?: boolean;
  /** `remove` (default): enclosed background-coloured regions are background too; `keep`: only what is connected to the border. */
  enclosed?: 'remove' | 'keep';
  /** Region-by-region rules (off-white enclosed regions kept, flat plateaus kept whole, background-coloured
   * islands removed); default true. `false` gives the plain rules, for before/after benches. */
  regionRules?: boolean;
  /** The JPEG (noisy-source) region rules within `regionRules` (enclosed off-white regions read from their flat
   * pixels); default true. `false` gives the rules before them, for before/after benches. */
  codecRegionRules?: boolean;
  /** Hears how far the matte is (0..1, by the measured share of each step) and the step starting. */
  onProgress?: (done: number, step: string) => void;
}

/** An enclosed background-coloured region whose median ΔE to the background is at least 0.5 is a colour of
 * the art (off-white), kept; quarter units as the distance map. */
export const OFF_WHITE_QUARTER_DE = 2;

/** Smallest noise assumed for JPEG sources, in sRGB units and ΔE (ringing, 4:2:0 chroma). */
export const JPEG_NOISE_RGB = 6;
export const JPEG_NOISE_DELTA_E = 2;

/** Where each step starts, as a share of the whole matte (measured on 2000 px art, bench remove-bg inputs). */
const MATTE_AT = { classify: 0.15, alpha: 0.83, despeckle: 0.92 } as const;

/** Run the artwork matting pipeline on an opaque raster (its alpha channel is ignored). */
export function matteArtwork(src: Raster, opts: ArtworkMatteOptions = {}): ArtworkMatte {
  const { width, height, data } = src;
  const n = width * height;
  const progress = opts.onProgress ?? (() => {});
  progress(0, 'background');
  const model = fitBackground(data, width, height);
  const dist = distanceMap(data, width, height, model);
  let compression: 'jpeg' | 'detected' | 'none' = 'none';
  if (opts.jpeg === true) {
    compression = 'jpeg';
    model.noiseRgb = Math.max(model.noiseRgb, JPEG_NOISE_RGB);
    model.noiseDeltaE = Math.max(model.noiseDeltaE, JPEG_NOISE_DELTA_E);
  } else if (opts.jpeg === undefined && looksCompressed(dist, width, height, model.noiseDeltaE)) {
    // Detected, not known: the colour tolerances of alpha and decontamination rise, the background match
    // tolerance does not (a false detection must not merge pale art into the background).
    compression = 'detected';
    model.noiseRgb = Math.max(model.noiseRgb, JPEG_NOISE_RGB);
  }
  let separability = judgeBorder(model);
  const t = thresholdsFor(model, width, height);
  if (opts.enclosed === 'keep') t.minHoleArea = Number.POSITIVE_INFINITY;
  const queue = new Int32Array(n);
  progress(MATTE_AT.classify, 'classify');
  // Region rules need exact colours: clean sources only (JPEG noise breaks plateaus and off-white medians).
  const rules = opts.regionRules !== false;
  const clean = rules && compression === 'none' && model.noiseDeltaE < 1;
  // Plateaus need exact colours only, which a decoded JPEG does not repeat over 40 px; a PNG whose faint rims
  // merely look like ringing ('detected') keeps the rule.
  const plateaus = rules && compression !== 'jpeg' && model.kind === 'quadratic';
  // Off-white holes only on a single-colour background: a counter there shows exactly that colour, while on a
  // gradient it shows the fit's residual (0.5-1 dE), which would read as off-white.
  // Noisy sources (JPEG) read the region's colour from its flat pixels instead (classify.ts).
  const offWhite = rules && model.kind === 'constant' ? (clean ? { offWhite: OFF_WHITE_QUARTER_DE } : opts.codecRegionRules !== false ? { codecOffWhite: { data, bgL: model.lab[0]! } } : {}) : {};
  const cls = classify(dist, width, height, t, queue, { ...(plateaus ? { data } : {}), ...offWhite });
  if (separability.separable) separability = judgeClassification(cls.borderBackground);
  const { state, band } = cls;
  const soft = softTransitions(dist, (i) => (state[i]! & BG) !== 0, width, height, t.bgDeltaE);
  if (separability.separable) separability = judgeSoftness(soft);

  const out = data.slice();
  const out32 = new Uint32Array(out.buffer);
  for (let i = 0; i < n; i++) {
    if (state[i]! & FG) out[i * 4 + 3] = 255;
    else out32[i] = 0;
  }
  const bg = new Float32Array(band.length * 3);
  const tmp = new Float64Array(3);
  for (let k = 0; k < band.length; k++) {
    const i = band[k]!;
    backgroundRgbAt(model, i % width, Math.floor(i / width), tmp);
    bg[k * 3] = tmp[0]!; bg[k * 3 + 1] = tmp[1]!; bg[k * 3 + 2] = tmp[2]!;
  }
  progress(MATTE_AT.alpha, 'alpha');
  const { alpha, fg } = estimateAlpha(data, width, height, state, band, bg, model.noiseRgb);
  decontaminate(data, out, band, alpha, fg, bg, model.noiseRgb >= SAMPLE_MODE_NOISE ? 'sample' : 'unmix');
  progress(MATTE_AT.despeckle, 'despeckle');
  const specks = despeckle(out, width, height, band, t.speckArea, queue, rules ? { area: islandArea(n, t.speckArea), near: islandNear(data, dist, width, model, t.bgDeltaE, compression === 'jpeg') } : undefined);

  let transparent = 0;
  for (let i = 0; i < n; i++) if (out[i * 4 + 3] === 0) transparent++;
  backgroundRgbAt(model, (width - 1) / 2, (height - 1) / 2, tmp);
  return {
    data: out,
    model,
    separability,
    stats: {
      background: model.kind,
      backgroundColor: toHex(Math.round(tmp[0]!), Math.round(tmp[1]!), Math.round(tmp[2]!)),
      inlierFraction: round3(model.inlierFraction),
      noiseDeltaE: round3(model.noiseDeltaE),
      compression,
      separable: separability.separable,
      softFraction: round3(soft.fraction),
      faintFraction: round3(soft.faint),
      transparentFraction: round3(transparent / Math.max(1, n)),
      bandPixels: band.length,
      holesRemoved: cls.holesRemoved,
      specksRemoved: specks,
    },
  };
}

/** Background-coloured islands (every pixel within twice the match tolerance of the background) up to
 * max(speck size, 0.006 % of the pixels), at most 256 px, are removed: 63 px at 1024 x 1024. */
export function islandArea(n: number, speckArea: number): number {
  return Math.min(256, Math.max(speckArea, Math.round(n * 6e-5)));
}

/**
 * Which pixels an island of the background's own colour may hold: within twice the match tolerance; on a JPEG
 * also a pale tint within four times it whose lightness is within the tolerance (4:2:0 chroma ringing: a
 * yellow edge leaves cream pixels at the background's lightness, ΔE 10-25 at q60, white dots on a dark shirt).
 * A pale-coloured dot of the art differs in lightness or by more (#fff0aa: ΔL 5, ΔE 37) and stays.
 */
function islandNear(data: Uint8ClampedArray, dist: Uint8Array, width: number, model: BackgroundModel, tolDeltaE: number, jpeg: boolean): (i: number) => boolean {
  const near = 2 * Math.round(tolDeltaE * 4);
  if (!jpeg) return (i) => dist[i]! < near;
  const tinted = 2 * near;
  const lab: Vec3 = [0, 0, 0];
  const sx = width > 1 ? 2 / (width - 1) : 0, sy = model.height > 1 ? 2 / (model.height - 1) : 0;
  return (i) => {
    const d = dist[i]!;
    if (d < near) return true;
    if (d >= tinted) return false;
    rgbToLab(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!, lab);
    const x = i % width, y = (i - x) / width;
    const bgL = model.kind === 'constant' ? model.lab[0]! : evalModel(model.lab, 0, x * sx - 1, y * sy - 1);
    return Math.abs(lab[0] - bgL) <= tolDeltaE;
  };
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
