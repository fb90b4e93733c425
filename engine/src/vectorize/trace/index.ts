// Tracing a label map into shapes, potrace-style (Selinger 2003), one stage per file:
// decompose.ts (sec. 2.1) -> straight.ts (2.2.1) -> polygon.ts (2.2.2-2.2.4) -> adjust.ts (2.3.1) ->
// smooth.ts (2.3.2) -> opticurve.ts (2.4) -> area.ts (our area correction) -> emit.ts, driven by fit.ts.
// Layers come from order.ts (stacked) or cutout.ts (planar map, shared boundaries fitted once).
//
// stacked: layer k (back to front) traces the union of its colour and every colour painted above it, so the
// layers above always cover its seams; transparent pixels are in no layer, so nothing is painted over them.
// cutout: see cutout.ts. smooth=false: pixel-exact staircase outlines. Stacked falls back to cutout pieces
// (also seam-free) when the layer order cannot avoid tracing every edge many times (noisy photos).

import type { LabelMap, PathSegments, TraceParams, TraceResult, TracedShape } from '../types.js';
import { walkFrom, WalkBuffer, type PixelSet } from './decompose.js';
import { fitPath } from './fit.js';
import { orderLayers } from './order.js';
import { traceCutout } from './cutout.js';
import { keepPaths, regionSeeds } from './islands.js';
import type { LatticePath } from './path.js';
import type { LabelRuns } from './runs.js';

export { orderLayers } from './order.js';
export { fitPath } from './fit.js';
export { reverseSegments } from './cutout.js';

/** Stacked tracing falls back to cutout pieces above this many traced edges per boundary edge... */
const STACK_WORK_RATIO = 6;
/** ...when it would trace at least this many edge units. */
const STACK_WORK_MIN = 2_000_000;

/**
 * Vertical boundary edges (index y * (w + 1) + x, between pixels (x-1, y) and (x, y)) grouped by the higher
 * rank of the two sides: edge e bounds stacked layer k iff lo(e) < k <= hi(e). They are the run starts (and
 * the row ends): read from the runs, not a pass over the grid.
 */
function boundaryEdges(runs: LabelRuns, rank: Int16Array, layers: number): { start: Int32Array; edge: Int32Array; lo: Int32Array } {
  const { width: w, height: h, rowStart, x0 } = runs;
  const pw = w + 2;
  // one pass: collect (edge, lo, hi) for every vertical edge whose two sides differ, in scan order
  let cap = 1 << 14;
  let raw = new Int32Array(cap * 3);
  let n = 0;
  const perHi = new Int32Array(layers + 1);
  for (let y = 0; y < h; y++) {
    const row = (y + 1) * pw + 1;
    const end = rowStart[y + 1]!;
    let a = -1;
    for (let i = rowStart[y]!; i <= end; i++) {
      // i === end: the right border (rank -1) after the last run
      const x = i < end ? x0[i]! : w;
      const b = i < end ? rank[row + x]! : -1;
      if (a !== b) {
        if (n === cap) {
          cap *= 2;
          const next = new Int32Array(cap * 3);
          next.set(raw);
          raw = next;
        }
        const hi = a > b ? a : b;
        raw[n * 3] = y * (w + 1) + x;
        raw[n * 3 + 1] = a > b ? b : a;
        raw[n * 3 + 2] = hi;
        perHi[hi + 1]++;
        n++;
      }
      a = b;
    }
  }
  const start = new Int32Array(layers + 1);
  for (let k = 0; k < layers; k++) start[k + 1] = start[k]! + perHi[k + 1]!;
  const fill = start.slice();
  const edge = new Int32Array(n);
  const lo = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const at = fill[raw[i * 3 + 2]!]!++;
    edge[at] = raw[i * 3]!;
    lo[at] = raw[i * 3 + 1]!;
  }
  return { start, edge, lo };
}

/**
 * Boundary edges each stacked layer walks (edge e bounds layers lo(e)+1..hi(e)), as the measure of its work;
 * the total is at index `layers`.
 */
function edgesPerLayer(edges: { start: Int32Array; lo: Int32Array }, layers: number): Float64Array {
  const diff = new Float64Array(layers + 2);
  for (let hi = 0; hi < layers; hi++) {
    for (let i = edges.start[hi]!; i < edges.start[hi + 1]!; i++) {
      diff[edges.lo[i]! + 1]! += 1;
      diff[hi + 1]! -= 1;
    }
  }
  const cost = new Float64Array(layers + 1);
  let run = 0;
  for (let k = 0; k < layers; k++) {
    run += diff[k]!;
    cost[k] = run;
    cost[layers]! += run;
  }
  return cost;
}

/**
 * Traces every colour region of `map` into shapes in paint order (back to front). Transparent pixels
 * (label TRANSPARENT) are never traced. Coordinates are in source pixels (pixel (x, y) covers
 * [x, x+1] x [y, y+1]). Subpaths are oriented so the nonzero fill rule is right: outer boundaries clockwise
 * on screen, holes counter-clockwise.
 *
 * `onProgress` hears the share of the work done after each layer, by boundary edges walked (stacked only).
 * `runs`: the label runs of `map` as it is now, when the caller has them (mergeSpecksRuns); else scanned here.
 *
 * @example traceLabelMap(map, { alphaMax: 1, optTolerance: 0.2, turdSize: 0, shapeStyle: 'stacked', smooth: true })
 */
export function traceLabelMap(map: LabelMap, params: TraceParams, onProgress?: (done: number) => void, runs?: LabelRuns): TraceResult {
  if (params.shapeStyle === 'cutout') return traceCutout(map, params, runs);
  const { width: w, height: h } = map;
  const order = orderLayers(map, true, runs);
  const layers = order.labels.length;
  if (layers === 0 || w === 0 || h === 0) return { shapes: [] };
  // bounded work: when the layers would trace every edge many times over (noisy photos with many
  // colours), use the seam-free planar pieces instead (each edge fitted once)
  if (order.stackedCost > STACK_WORK_RATIO * order.boundary && order.stackedCost > STACK_WORK_MIN) return traceCutout(map, params, order.runs);
  const { rank } = order;
  const edges = boundaryEdges(order.runs, rank, layers);
  const visited = new Uint16Array((w + 1) * h);
  const buf = new WalkBuffer();
  const seeds = regionSeeds(order.runs, rank, layers);
  const shapes: TracedShape[] = [];
  const raw: LatticePath[] = [];
  const layerCost = onProgress ? edgesPerLayer(edges, layers) : null;
  let done = 0;
  for (let k = 0; k < layers; k++) {
    const set: PixelSet = { rank, width: w, height: h, lo: k, hi: 0x7fffffff };
    const stamp = k + 1;
    raw.length = 0;
    for (let bucket = k; bucket < layers; bucket++) {
      const end = edges.start[bucket + 1]!;
      for (let i = edges.start[bucket]!; i < end; i++) {
        if (edges.lo[i]! >= k) continue;
        const p = walkFrom(set, edges.edge[i]!, visited, stamp, buf);
        if (!p || Math.abs(p.area) <= params.turdSize) continue;
        raw.push(p);
      }
    }
    // the top layer is colour k alone: every piece holds colour k
    const keep = k < layers - 1 ? keepPaths(raw, seeds[k]!, w) : null;
    const subpaths: PathSegments[] = [];
    for (let i = 0; i < raw.length; i++) if (!keep || keep[i]) subpaths.push(fitPath(raw[i]!, params));
    if (subpaths.length) shapes.push({ label: order.labels[k]!, subpaths });
    if (layerCost) {
      done += layerCost[k]!;
      onProgress?.(done / Math.max(1, layerCost[layers]!));
    }
  }
  return { shapes };
}
