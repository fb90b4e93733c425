// The two plates a DTF printer lays down, computed from the art: the colour plate (the art with the knock-out
// applied and white-only areas taken out of process ink) and the white plate (8-bit coverage under it).
//   1. optional transparency fix first (fix's alpha threshold or halftone), so no pixel gets half a white
//   2. classify each inked pixel: knocked out (within knockout_tolerance of the garment colour or black),
//      white-only (near-white art is printed with white ink alone), or colour
//   3. white under colour at white_density (raised toward 100 % under light colours by highlight_white),
//      choked by choke_mm measured with an exact distance transform from the nearest pixel without ink, so a
//      colour pixel next to white-only art is not choked (the white runs on under the white art)
// The printability checks (thin white, narrow knock-out gaps) are in checks.ts.
import { thresholdAlpha } from '../alpha/threshold.js';
import { deltaE2000, rgbToLab, type Vec3 } from '../colour/convert.js';
import { halftoneRaster } from '../halftone/screen.js';
import { squaredDistance } from '../raster/distance.js';
import type { Raster } from '../raster/types.js';
import type { ResolvedUnderbase } from './options.js';
import { UNDERBASE_DEFAULTS } from './options.js';

/** Art at least this light (CIELAB L*) and at most this colourful (C*ab) is printed with white ink alone. */
export const WHITE_ONLY_MIN_L = 90;
export const WHITE_ONLY_MAX_CHROMA = 8;
/** highlight_white starts adding white above this lightness (L*) and reaches its full share at L* 100. */
export const HIGHLIGHT_FROM_L = 60;

/** Per-pixel class: no ink in the art, knocked out, white ink alone, or colour over white. */
export const NO_INK = 0;
export const KNOCKED = 1;
export const WHITE_ONLY = 2;
export const COLOUR = 3;

export interface PlateSet {
  width: number;
  height: number;
  /** Resolution the millimetre and point rules were measured at. */
  dpi: number;
  /** The colour plate: the art (after any transparency fix) with knocked-out and white-only pixels cleared. */
  colour: Raster;
  /** The white plate: 0 (no white) to 255 (100 %), one byte per pixel. */
  white: Uint8Array;
  /** NO_INK / KNOCKED / WHITE_ONLY / COLOUR per pixel. */
  classes: Uint8Array;
  /** The choke in pixels at this resolution. */
  chokePx: number;
  /** Pixels that are neither transparent nor opaque after the transparency fix (their white is proportional). */
  semiTransparent: number;
  /** Their bounding box (inclusive-exclusive), when there are any. */
  semiBox: { x: number; y: number; width: number; height: number } | null;
  /** The transparency fix that ran first, if any. */
  fixed: 'alpha_threshold' | 'halftone' | null;
  /**
   * Sum of alpha (0-255 a pixel) over the art's inked pixels, and over those that still print (colour or
   * white-only): the ink laid, taken before the knock-out clears the pixels (nothing_to_print compares them).
   */
  inkAlpha: { inked: number; printed: number };
}

/**
 * Compute the plates of `input`. `o` is resolved (resolveUnderbase). With `owned`, the input's pixels become the
 * colour plate (modified in place: the op's own decoded raster); otherwise they are copied and left as they are.
 * @example const p = computePlates(raster, resolveUnderbase({ garmentColor: '#000000', printWidthInches: 10 }));
 */
export function computePlates(input: Raster, o: Readonly<ResolvedUnderbase>, owned = false): PlateSet {
  const { width: w, height: h } = input;
  const dpi = o.printWidthInches ? w / o.printWidthInches : UNDERBASE_DEFAULTS.dpi;
  const art: Raster = owned ? input : { width: w, height: h, data: input.data.slice() };
  let fixed: PlateSet['fixed'] = null;
  if (o.fixHalftone) {
    halftoneRaster(art, { lpi: o.halftoneLpi, dpi });
    fixed = 'halftone';
  } else if (o.fixAlphaThreshold) {
    thresholdAlpha(art, o.alphaThreshold);
    fixed = 'alpha_threshold';
  }
  const n = w * h;
  const px = art.data;
  const classes = new Uint8Array(n);
  // L* in steps of 100/255 (one byte a pixel: it only scales highlight_white)
  const lightness = new Uint8Array(n);
  const target: Vec3 | null = o.knockout === 'garment' && o.garment ? rgbToLab(o.garment.rgb[0], o.garment.rgb[1], o.garment.rgb[2])
    : o.knockout === 'black' ? [0, 0, 0] : null;
  // art has few distinct colours: classify each once (class in the low 2 bits, L* above them)
  const seen = new Map<number, number>();
  const lab: Vec3 = [0, 0, 0];
  let lastKey = -1, lastV = 0;
  let semiTransparent = 0;
  let inkedAlpha = 0, printedAlpha = 0;
  let sx0 = w, sy0 = h, sx1 = -1, sy1 = -1;
  for (let i = 0; i < n; i++) {
    const a = px[i * 4 + 3]!;
    if (a === 0) continue;
    if (a !== 255) {
      semiTransparent++;
      const x = i % w, y = (i - x) / w;
      if (x < sx0) sx0 = x;
      if (x > sx1) sx1 = x;
      if (y < sy0) sy0 = y;
      if (y > sy1) sy1 = y;
    }
    const key = (px[i * 4]! << 16) | (px[i * 4 + 1]! << 8) | px[i * 4 + 2]!;
    // neighbours mostly share a colour: the last one's class saves the map lookup
    let v = key === lastKey ? lastV : seen.get(key);
    if (v === undefined) {
      rgbToLab(px[i * 4]!, px[i * 4 + 1]!, px[i * 4 + 2]!, lab);
      const cls = target && deltaE2000(lab[0], lab[1], lab[2], target[0], target[1], target[2]) <= o.knockoutTolerance ? KNOCKED
        : lab[0] >= WHITE_ONLY_MIN_L && Math.hypot(lab[1], lab[2]) <= WHITE_ONLY_MAX_CHROMA ? WHITE_ONLY : COLOUR;
      v = cls | (Math.round(Math.max(0, Math.min(100, lab[0])) * 2.55) << 2);
      if (seen.size < 1 << 20) seen.set(key, v);
    }
    lastKey = key;
    lastV = v;
    classes[i] = v & 3;
    lightness[i] = v >> 2;
    inkedAlpha += a;
    if ((v & 3) !== KNOCKED) printedAlpha += a;
  }
  // distance from each pixel to the nearest pixel that carries no ink (transparent or knocked out); the art
  // ends at the image border, so beyond it counts as no ink
  const noInk = new Uint8Array(n);
  for (let i = 0; i < n; i++) noInk[i] = classes[i] === NO_INK || classes[i] === KNOCKED ? 1 : 0;
  const chokePx = (o.chokeMm / 25.4) * dpi;
  const choke2 = chokePx * chokePx;
  // only "within the choke or not" is asked, so distances beyond it are not needed
  const d2 = chokePx > 0 ? squaredDistance(w, h, noInk, true, choke2) : null;
  const white = new Uint8Array(n);
  const density = o.whiteDensity / 100;
  const boost = o.highlightWhite / 100;
  const colour = art;
  for (let i = 0; i < n; i++) {
    const cls = classes[i]!;
    const a = px[i * 4 + 3]! / 255;
    if (cls === KNOCKED || cls === WHITE_ONLY) {
      // knocked out: no ink at all; white-only: the white plate is the colour, so no process ink either
      if (cls === WHITE_ONLY) white[i] = Math.round(255 * a);
      px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = px[i * 4 + 3] = 0;
      continue;
    }
    if (cls !== COLOUR) continue;
    if (d2 && d2[i]! <= choke2) continue;
    const L = lightness[i]! / 2.55;
    const base = L > HIGHLIGHT_FROM_L ? density + (1 - density) * boost * ((L - HIGHLIGHT_FROM_L) / (100 - HIGHLIGHT_FROM_L)) : density;
    white[i] = Math.round(255 * base * a);
  }
  const semiBox = semiTransparent ? { x: sx0, y: sy0, width: sx1 - sx0 + 1, height: sy1 - sy0 + 1 } : null;
  return { width: w, height: h, dpi, colour, white, classes, chokePx, semiTransparent, semiBox, fixed, inkAlpha: { inked: inkedAlpha, printed: printedAlpha } };
}
