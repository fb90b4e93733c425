// Specks: isolated components of visible pixels (alpha >= 1, 8-connected) too small to print, i.e.
// smaller than a disc 1/100 inch across at the print resolution, and never fewer than 2 px (so at low
// resolution only single stray pixels count). On an opaque image with a solid background (e.g. a JPEG on
// white) the components are those of the pixels that differ from the background colour (RGB distance
// >= 40, well above JPEG noise). Shared by scan (counting) and fix (removing).
import { labelRuns, type RunComponents } from '../raster/components.js';

/** RGB distance from a solid background colour that makes a pixel foreground. */
export const FOREGROUND_DISTANCE = 40;

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
import type { Raster } from '../raster/types.js';

/** Largest speck area in pixels (exclusive) at a print resolution: max(2, pi/4 * (dpi/100)^2). */
export function speckAreaLimit(dpi: number): number {
  return Math.max(2, (Math.PI / 4) * (dpi / 100) ** 2);
}

export interface SpeckReport {
  /** Components of visible pixels. */
  components: RunComponents;
  /** Which components are specks (1) or not (0). */
  isSpeck: Uint8Array;
  count: number;
  /** Area limit used (pixels, exclusive). */
  limit: number;
}

/**
 * Find specks. A speck is a component with area < limit. When the image holds only one component it is
 * the artwork, never a speck.
 * @example findSpecks(raster, 300).count
 */
export function findSpecks(r: Raster, dpi: number, plane?: Uint8Array): SpeckReport {
  const components = plane
    ? labelRuns({ data: plane, width: r.width, height: r.height, min: 1 }, 8)
    : labelRuns({ data: r.data, width: r.width, height: r.height, stride: 4, offset: 3, min: 1 }, 8);
  const limit = speckAreaLimit(dpi);
  const isSpeck = new Uint8Array(components.count);
  let count = 0;
  if (components.count > 1) {
    for (let c = 0; c < components.count; c++) {
      if (components.area[c]! < limit) {
        isSpeck[c] = 1;
        count++;
      }
    }
  }
  return { components, isSpeck, count, limit };
}
