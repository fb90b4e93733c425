// Specks: stray bits of ink too small to be a detail and far from everything else, judged in physical
// units at the print resolution so scan (speck_count) and fix (fix_despeckle) agree exactly:
//  - small: the component (visible pixels, alpha >= 1, 8-connected) fits in a square SPECK_MAX_MM
//    (0.5 mm) across, i.e. 6x6 px at 300 DPI (at least 1 px);
//  - isolated: no other visible pixel within about ISOLATION_MM (2 mm) of its bounding box, so the dot of
//    an i, serifs, a halftone screen's dots (neighbours one cell away) and texture stay.
// On an opaque image with a solid background (e.g. a JPEG on white) the components are those of the
// pixels that differ from the background colour (RGB distance >= 40, well above JPEG noise). An image
// with a single component has no specks. The same test finds pinholes (isolated small transparent holes).
import { labelRuns, type RunComponents } from '../raster/components.js';
import type { Raster } from '../raster/types.js';

/** RGB distance from a solid background colour that makes a pixel foreground. */
export const FOREGROUND_DISTANCE = 40;
/** Largest speck, mm across (bounding box side). */
export const SPECK_MAX_MM = 0.5;
/** A speck has no other visible pixel this close, mm. */
export const ISOLATION_MM = 2;

/** 255 where a pixel differs from the background colour by >= FOREGROUND_DISTANCE, else 0. */
export function foregroundPlane(r: Raster, bg: readonly [number, number, number]): Uint8Array {
  const n = r.width * r.height;
  const out = new Uint8Array(n);
  const d = r.data;
  const t2 = FOREGROUND_DISTANCE * FOREGROUND_DISTANCE;
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const er = d[i]! - bg[0];
    const eg = d[i + 1]! - bg[1];
    const eb = d[i + 2]! - bg[2];
    if (er * er + eg * eg + eb * eb >= t2) out[p] = 255;
  }
  return out;
}

/** Largest speck side in px at a print resolution: 0.5 mm rounded to whole pixels, at least 1. */
export function speckMaxPx(dpi: number): number {
  return Math.max(1, Math.ceil((SPECK_MAX_MM * dpi) / 25.4 - 0.05));
}

/** Isolation distance in px at a print resolution (at least 2). */
export function isolationPx(dpi: number): number {
  return Math.max(2, Math.round((ISOLATION_MM * dpi) / 25.4));
}

export interface SpeckReport {
  /** Components of visible pixels. */
  components: RunComponents;
  /** Which components are specks (1) or not (0). */
  isSpeck: Uint8Array;
  count: number;
  /** Largest speck side used, px. */
  maxPx: number;
  /** Isolation distance used, px. */
  isolationPx: number;
}

/**
 * Find specks. `plane`: the mask to judge (default: alpha >= 1 of the raster).
 * @example findSpecks(raster, 300).count
 */
export function findSpecks(r: Raster, dpi: number, plane?: Uint8Array): SpeckReport {
  const components = plane
    ? labelRuns({ data: plane, width: r.width, height: r.height, min: 1 }, 8)
    : labelRuns({ data: r.data, width: r.width, height: r.height, stride: 4, offset: 3, min: 1 }, 8);
  const { isSpeck, count } = smallIsolated(components, dpi);
  return { components, isSpeck, count, maxPx: speckMaxPx(dpi), isolationPx: isolationPx(dpi) };
}

/**
 * Which components of `cc` are small and isolated at `dpi`: isolation counts the pixels of all of the
 * components (the mask they were labelled from) in tiles around each small component.
 */
export function smallIsolated(cc: RunComponents, dpi: number): { isSpeck: Uint8Array; count: number } {
  const isSpeck = new Uint8Array(cc.count);
  if (cc.count <= 1) return { isSpeck, count: 0 };
  const max = speckMaxPx(dpi);
  let anySmall = false;
  for (let c = 0; c < cc.count && !anySmall; c++) if (cc.maxX[c]! - cc.minX[c]! <= max && cc.maxY[c]! - cc.minY[c]! <= max) anySmall = true;
  if (!anySmall) return { isSpeck, count: 0 };
  const { width: w, height: h } = cc;
  const R = isolationPx(dpi);
  // on-pixel counts per tile, summed: the window around a component reaches R..R+T px out
  const T = Math.max(1, Math.floor(R / 8));
  const tw = Math.ceil(w / T);
  const th = Math.ceil(h / T);
  const sum = new Uint32Array((tw + 1) * (th + 1));
  // the on pixels are exactly the runs of the components
  for (let i = 0; i < cc.runCount; i++) {
    const base = (Math.floor(cc.y[i]! / T) + 1) * (tw + 1) + 1;
    let x = cc.x0[i]!;
    const e = cc.x1[i]!;
    while (x < e) {
      const tx = Math.floor(x / T);
      const next = Math.min(e, (tx + 1) * T);
      sum[base + tx]! += next - x;
      x = next;
    }
  }
  for (let ty = 1; ty <= th; ty++) {
    for (let tx = 1; tx <= tw; tx++) {
      const k = ty * (tw + 1) + tx;
      sum[k]! += sum[k - 1]! + sum[k - tw - 1]! - sum[k - tw - 2]!;
    }
  }
  let count = 0;
  for (let c = 0; c < cc.count; c++) {
    if (cc.maxX[c]! - cc.minX[c]! > max || cc.maxY[c]! - cc.minY[c]! > max) continue;
    const tx0 = Math.max(0, Math.floor((cc.minX[c]! - R) / T));
    const ty0 = Math.max(0, Math.floor((cc.minY[c]! - R) / T));
    const tx1 = Math.min(tw, Math.floor((cc.maxX[c]! - 1 + R) / T) + 1);
    const ty1 = Math.min(th, Math.floor((cc.maxY[c]! - 1 + R) / T) + 1);
    const around = sum[ty1 * (tw + 1) + tx1]! - sum[ty0 * (tw + 1) + tx1]! - sum[ty1 * (tw + 1) + tx0]! + sum[ty0 * (tw + 1) + tx0]!;
    if (around - cc.area[c]! > 0) continue;
    isSpeck[c] = 1;
    count++;
  }
  return { isSpeck, count };
}
