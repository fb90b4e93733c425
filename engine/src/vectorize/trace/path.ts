// The per-path record the trace stages fill in turn (decompose -> straight -> polygon -> adjust -> smooth ->
// opticurve), modelled on the one-struct-per-path layout of potrace. Plain typed arrays only.

/** A closed (or, for cutout chains, open) lattice path on the pixel-corner grid: unit steps only. */
export interface LatticePath {
  /** Corner x coordinates, one per point (point i -> i+1 is a unit step; closed paths wrap n-1 -> 0). */
  xs: Int32Array;
  ys: Int32Array;
  /** Signed area enclosed (positive: set pixels inside, i.e. an outer boundary; negative: a hole). */
  area: number;
  /** Open chains (cutout) have fixed end points and no wrap-around. */
  open: boolean;
}

/** A smoothed curve: m segments; segment j runs from the end of segment j-1 to `ex/ey[j]`. */
export interface SmoothCurve {
  m: number;
  /** 1 = corner (line to vertex then line to end), 0 = cubic Bézier with controls c1, c2. */
  corner: Uint8Array;
  /** Polygon vertex of segment j (the corner point, or the point the Bézier is tangent towards). */
  vx: Float64Array;
  vy: Float64Array;
  c1x: Float64Array;
  c1y: Float64Array;
  c2x: Float64Array;
  c2y: Float64Array;
  ex: Float64Array;
  ey: Float64Array;
  /** Open curves start at (sx, sy); closed ones start at the end of segment m-1. */
  sx: number;
  sy: number;
  open: boolean;
}

export function allocCurve(m: number, open: boolean): SmoothCurve {
  return {
    m,
    corner: new Uint8Array(m),
    vx: new Float64Array(m),
    vy: new Float64Array(m),
    c1x: new Float64Array(m),
    c1y: new Float64Array(m),
    c2x: new Float64Array(m),
    c2y: new Float64Array(m),
    ex: new Float64Array(m),
    ey: new Float64Array(m),
    sx: 0,
    sy: 0,
    open,
  };
}

/** Which reusable curve: the smoothed polygon, or the optimised curve made from it. */
export enum CurveSlot {
  Smooth,
  Optimized,
}

const curves: (SmoothCurve | undefined)[] = [];

/**
 * A reusable curve with room for `m` segments (contents stale: the caller writes every field of segments
 * 0..m-1). Valid until the next call for the same slot; every reader goes by `m`, never by array lengths.
 * One fit runs at a time per thread, and a fitted curve lives only until it is emitted as path data.
 */
export function scratchCurve(slot: CurveSlot, m: number, open: boolean): SmoothCurve {
  let c = curves[slot];
  if (!c || c.corner.length < m) {
    c = allocCurve(Math.max(m, c ? 2 * c.corner.length : 0, 64), open);
    curves[slot] = c;
  }
  c.m = m;
  c.open = open;
  c.sx = 0;
  c.sy = 0;
  return c;
}
