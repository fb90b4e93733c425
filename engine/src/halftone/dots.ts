// Digital dot shapes for the halftone screen. At a few pixels per dot, thresholding a disc at its
// sub-pixel centre gives a different, ragged shape in every cell (crosses, dashes, 1-2 px slivers). So
// every dot is drawn from one of two fixed pixel orderings, by distance from a pixel centre ("centre"
// dots: 1, 9, 21, 25 ... px) or from a pixel corner ("corner" dots: 4, 12, 16, 24, 32 ... px), and
// only the sizes that complete a ring of equal distance are used while the dot is small, keeping those
// whose shape is round: square bounding box, filled at least 60 % (this drops the 5 px cross and the
// 13 px diamond). Which size a cell gets is chosen between the two round sizes around its ink amount by
// an ordered dither, so the mean coverage is kept.

/** Which point a dot is centred on. */
export type DotCentre = 'centre' | 'corner';

export interface DotOrder {
  kind: DotCentre;
  /** Pixel offsets (dx, dy) in order of increasing distance from the reference point. */
  dx: Int16Array;
  dy: Int16Array;
  /** Distance of each pixel centre from the reference point, px. */
  dist: Float32Array;
}

export interface RoundSize {
  /** Pixels in the dot. */
  size: number;
  kind: DotCentre;
  /** Width (= height) of the dot in px. */
  side: number;
}

/** Smallest share of its bounding box a dot must fill to count as round (a 5 px cross fills 56 %). */
const MIN_FILL = 0.6;

/** Pixels ordered by distance from a pixel centre or corner, out to `radius` px. */
export function dotOrder(kind: DotCentre, radius: number): DotOrder {
  const off = kind === 'corner' ? 0.5 : 0;
  const R = Math.ceil(radius) + 1;
  const pts: Array<[number, number, number]> = [];
  for (let dy = -R; dy <= R; dy++) {
    for (let dx = -R; dx <= R; dx++) {
      const d = Math.hypot(dx + off, dy + off);
      if (d <= radius) pts.push([dx, dy, d]);
    }
  }
  // ties in a fixed order (by angle) so equal rings are filled the same way in every cell
  pts.sort((a, b) => a[2] - b[2] || Math.atan2(a[1] + off, a[0] + off) - Math.atan2(b[1] + off, b[0] + off));
  return { kind, dx: Int16Array.from(pts.map((p) => p[0])), dy: Int16Array.from(pts.map((p) => p[1])), dist: Float32Array.from(pts.map((p) => p[2])) };
}

/** Round dot sizes of one ordering: complete rings only, square and filled >= 60 %. */
function roundSizesOf(o: DotOrder, radius: number): RoundSize[] {
  const off = o.kind === 'corner' ? 0.5 : 0;
  const out: RoundSize[] = [];
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let k = 0; k < o.dx.length; k++) {
    const dx = o.dx[k]!;
    const dy = o.dy[k]!;
    x0 = Math.min(x0, dx); x1 = Math.max(x1, dx); y0 = Math.min(y0, dy); y1 = Math.max(y1, dy);
    const d = Math.hypot(dx + off, dy + off);
    const next = k + 1 < o.dx.length ? Math.hypot(o.dx[k + 1]! + off, o.dy[k + 1]! + off) : Infinity;
    if (next - d < 1e-9) continue; // ring not complete
    if (d > radius - 1) break; // rings near the edge of the list may be cut
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    const n = k + 1;
    if (bw === bh && n / (bw * bh) >= MIN_FILL) out.push({ size: n, kind: o.kind, side: bw });
  }
  return out;
}

export interface DotShapes {
  centre: DotOrder;
  corner: DotOrder;
  /** Round sizes of both kinds, ascending, from the minimum printable dot up. */
  sizes: RoundSize[];
  /** The minimum printable dot (first of `sizes`). */
  min: RoundSize;
}

/**
 * Orderings and round sizes for dots in cells of `cellPx`, whose smallest dot is at least `minSidePx`
 * across.
 * @example dotShapes(5.45, 3).min // { size: 9, kind: 'centre', side: 3 }: a 3x3 dot at 300 DPI
 */
export function dotShapes(cellPx: number, minSidePx: number): DotShapes {
  const radius = cellPx * Math.SQRT1_2 + 2;
  const centre = dotOrder('centre', radius);
  const corner = dotOrder('corner', radius);
  const all = [...roundSizesOf(centre, radius), ...roundSizesOf(corner, radius)].sort((a, b) => a.size - b.size);
  let sizes = all.filter((s) => s.side >= minSidePx);
  // a minimum wider than the cell cannot be held: fall back to the smallest size that fits
  if (!sizes.length || sizes[0]!.size > cellPx * cellPx) sizes = all.filter((s) => s.side >= 2);
  return { centre, corner, sizes, min: sizes[0]! };
}

/** 8x8 Bayer matrix: thresholds 0..63 spread evenly in every window. */
const BAYER8 = (() => {
  const m = new Uint8Array(64);
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) {
      let v = 0;
      for (let bit = 0, xx = x, yy = y ^ x; bit < 3; bit++, xx >>= 1, yy >>= 1) v = (v << 2) | ((yy & 1) << 1) | (xx & 1);
      m[y * 8 + x] = v;
    }
  }
  return m;
})();

/** Ordered-dither threshold in (0, 1) of screen cell (iu, iv). */
export function cellThreshold(iu: number, iv: number): number {
  return (BAYER8[((iv & 7) << 3) | (iu & 7)]! + 0.5) / 64;
}
