// Specks: isolated components of visible pixels (alpha >= 1, 8-connected) too small to print, i.e.
// smaller than a disc 1/100 inch across at the print resolution, and never fewer than 2 px (so at low
// resolution only single stray pixels count). Shared by scan (counting) and fix (removing).
import { labelRuns, type RunComponents } from '../raster/components.js';
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
