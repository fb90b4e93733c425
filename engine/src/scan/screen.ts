// Halftone screen recognition: a regular screen's dots (or, in dark tones, its holes) are small
// components on a lattice, so each sits halfway between two of its neighbours in two different
// directions. Components that pass are screen elements; the screen region (each element's box grown by
// about half the spacing of its neighbours, which covers the web between holes) is left out of the
// thin-line and jagged-edge measures, since a screen is dots, not strokes or curves. Random specks,
// letters and details are not on a lattice and are judged as before.
import { labelRuns, type RunComponents } from '../raster/components.js';

/** Largest screen element, mm across (a 15 lpi cell is 1.7 mm). */
export const SCREEN_ELEMENT_MAX_MM = 2;
/** Fewest screen elements that make a screen. */
const MIN_ELEMENTS = 12;
/** Fewest small components before the lattice test runs at all. */
const MIN_CANDIDATES = 24;

export interface ScreenReport {
  /** Dots and holes found on a lattice. */
  elements: number;
  /** 1 inside the screen region, or null when no screen was found. */
  mask: Uint8Array | null;
}

/**
 * Find halftone screen regions of a mask (`plane`, on = value >= 1) at `dpi`. `visible`: its components
 * when already labelled. Holes are looked for only when the mask is binary (`binary`), as halftone output is.
 * @example findScreen(plane, w, h, 300, cc, true).mask
 */
export function findScreen(plane: Uint8Array, w: number, h: number, dpi: number, visible: RunComponents, binary: boolean): ScreenReport {
  const maxSide = Math.max(3, (SCREEN_ELEMENT_MAX_MM * dpi) / 25.4);
  const mask = new Uint8Array(w * h);
  let elements = latticeElements(visible, maxSide, mask);
  if (binary) {
    const holes = labelRuns({ data: plane, width: w, height: h, min: 1, invert: true }, 4);
    elements += latticeElements(holes, maxSide, mask);
  }
  return elements >= MIN_ELEMENTS ? { elements, mask } : { elements, mask: null };
}

/** Mark the lattice elements of `cc` (boxes grown by half their neighbour spacing) in `mask`; returns how many. */
function latticeElements(cc: RunComponents, maxSide: number, mask: Uint8Array): number {
  const { width: w, height: h } = cc;
  const ids: number[] = [];
  for (let c = 0; c < cc.count; c++) {
    if (cc.touchesBorder[c]) continue;
    if (cc.maxX[c]! - cc.minX[c]! <= maxSide && cc.maxY[c]! - cc.minY[c]! <= maxSide) ids.push(c);
  }
  if (ids.length < MIN_CANDIDATES) return 0;
  const n = ids.length;
  const cx = new Float64Array(n);
  const cy = new Float64Array(n);
  const reach = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const c = ids[i]!;
    cx[i] = cc.sumX[c]! / cc.area[c]!;
    cy[i] = cc.sumY[c]! / cc.area[c]!;
    // neighbours of a screen element sit within a few of its own sizes
    reach[i] = 3 * Math.max(cc.maxX[c]! - cc.minX[c]!, cc.maxY[c]! - cc.minY[c]!) + 3;
  }
  const G = Math.max(4, median(reach));
  const gw = Math.ceil(w / G) + 1;
  const gh = Math.ceil(h / G) + 1;
  // bucket lists (counting sort by bucket)
  const start = new Int32Array(gw * gh + 1);
  const bucketOf = (i: number): number => Math.floor(cy[i]! / G) * gw + Math.floor(cx[i]! / G);
  for (let i = 0; i < n; i++) start[bucketOf(i) + 1]!++;
  for (let b = 0; b < gw * gh; b++) start[b + 1]! += start[b]!;
  const fillAt = start.slice();
  const members = new Int32Array(n);
  for (let i = 0; i < n; i++) members[fillAt[bucketOf(i)]!++] = i;

  const near: Array<[number, number]> = [];
  let found = 0;
  for (let i = 0; i < n; i++) {
    const r = reach[i]!;
    const span = Math.ceil(r / G);
    const bx = Math.floor(cx[i]! / G);
    const by = Math.floor(cy[i]! / G);
    near.length = 0;
    for (let yy = Math.max(0, by - span); yy <= Math.min(gh - 1, by + span); yy++) {
      for (let xx = Math.max(0, bx - span); xx <= Math.min(gw - 1, bx + span); xx++) {
        const b = yy * gw + xx;
        for (let m = start[b]!; m < start[b + 1]!; m++) {
          const j = members[m]!;
          if (j === i) continue;
          const d = Math.hypot(cx[j]! - cx[i]!, cy[j]! - cy[i]!);
          if (d <= r) near.push([j, d]);
        }
      }
    }
    if (near.length < 4) continue;
    near.sort((a, b) => a[1] - b[1]);
    const k = Math.min(8, near.length);
    // directions (mod 180°) in which i is the midpoint of two neighbours
    let dir0 = NaN;
    let lattice = false;
    let spacing = 0;
    for (let a = 0; a < k && !lattice; a++) {
      const [ja, da] = near[a]!;
      const ox = 2 * cx[i]! - cx[ja]!;
      const oy = 2 * cy[i]! - cy[ja]!;
      const tol = 0.25 * da + 0.75;
      for (let b = 0; b < k; b++) {
        if (b === a) continue;
        const jb = near[b]![0];
        if (Math.hypot(cx[jb]! - ox, cy[jb]! - oy) > tol) continue;
        const ang = Math.atan2(cy[ja]! - cy[i]!, cx[ja]! - cx[i]!);
        if (Number.isNaN(dir0)) {
          dir0 = ang;
          spacing = da;
        } else if (Math.abs(Math.sin(ang - dir0)) > 0.5) {
          lattice = true;
          spacing = Math.max(spacing, da);
        }
        break;
      }
    }
    if (!lattice) continue;
    found++;
    const c = ids[i]!;
    const grow = Math.ceil(spacing / 2) + 1;
    const x0 = Math.max(0, cc.minX[c]! - grow);
    const x1 = Math.min(w, cc.maxX[c]! + grow);
    const y0 = Math.max(0, cc.minY[c]! - grow);
    const y1 = Math.min(h, cc.maxY[c]! + grow);
    for (let y = y0; y < y1; y++) mask.fill(1, y * w + x0, y * w + x1);
  }
  return found;
}

/**
 * Binary edge steps (|d alpha| >= 128 to the right or below) and staircase corners (both at once) of
 * `plane`, leaving out pixels inside `mask` (see AlphaStats.hardSteps).
 */
export function stairsOutside(plane: Uint8Array, w: number, h: number, mask: Uint8Array): { hardSteps: number; stairCorners: number } {
  let hardSteps = 0;
  let stairCorners = 0;
  for (let y = 0; y < h; y++) {
    const last = y === h - 1;
    for (let x = 0, p = y * w; x < w; x++, p++) {
      if (mask[p]) continue;
      const a = plane[p]!;
      const right = x < w - 1 && !mask[p + 1] ? plane[p + 1]! : a;
      const below = !last && !mask[p + w] ? plane[p + w]! : a;
      const hx = right - a >= 128 || right - a <= -128;
      const hy = below - a >= 128 || below - a <= -128;
      if (hx || hy) {
        hardSteps++;
        if (hx && hy) stairCorners++;
      }
    }
  }
  return { hardSteps, stairCorners };
}

function median(v: Float64Array): number {
  const s = Float64Array.from(v).sort();
  return s[s.length >> 1]!;
}
