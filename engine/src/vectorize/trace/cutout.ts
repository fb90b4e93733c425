// Cutout tracing via a planar map of region boundaries (issue 6): every boundary between two colours (or a
// colour and transparency) is split at junction corners (three or more regions meet, or a diagonal
// checkerboard) into chains; each chain is fitted once, with its end points fixed (open-path variant of
// the potrace stages), and each region's outline is the concatenation of its chains, reversed where the
// neighbour walked it first. Neighbours therefore share the identical curve: no overlap, no gap.
// Closed boundaries without junctions are fitted once as closed paths and reversed for the outside region.

import type { LabelMap, PathSegments, TraceParams, TraceResult, TracedShape } from '../types.js';
import { walkFrom, WalkBuffer, type PixelSet } from './decompose.js';
import { orderLayers } from './order.js';
import type { LatticePath } from './path.js';
import type { LabelRuns } from './runs.js';
import { fitPath } from './fit.js';

type Seg = PathSegments['segs'][number];

/** Reverses a path: same geometry, opposite direction. */
export function reverseSegments(p: PathSegments): PathSegments {
  const n = p.segs.length;
  if (n === 0) return { start: [p.start[0], p.start[1]], segs: [] };
  const last = p.segs[n - 1]!;
  const segs: Seg[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const s = p.segs[i]!;
    const prev = i > 0 ? p.segs[i - 1]! : null;
    const px = prev ? prev.x : p.start[0];
    const py = prev ? prev.y : p.start[1];
    if (s.kind === 'L') segs.push({ kind: 'L', x: px, y: py });
    else segs.push({ kind: 'C', x1: s.x2, y1: s.y2, x2: s.x1, y2: s.y1, x: px, y: py });
  }
  return { start: [last.x, last.y], segs };
}

/** Corner flags: 1 where three or more boundary edges meet (3+ regions, or a diagonal checkerboard). */
function junctions(rank: Int16Array, w: number, h: number): Uint8Array {
  const pw = w + 2;
  const out = new Uint8Array((w + 1) * (h + 1));
  for (let y = 0; y <= h; y++) {
    for (let x = 0; x <= w; x++) {
      const a = rank[y * pw + x]!;
      const b = rank[y * pw + x + 1]!;
      const c = rank[(y + 1) * pw + x]!;
      const d = rank[(y + 1) * pw + x + 1]!;
      const deg = (a !== b ? 1 : 0) + (c !== d ? 1 : 0) + (a !== c ? 1 : 0) + (b !== d ? 1 : 0);
      if (deg >= 3) out[y * (w + 1) + x] = 1;
    }
  }
  return out;
}

export function traceCutout(map: LabelMap, params: TraceParams, runs?: LabelRuns): TraceResult {
  const { width: w, height: h } = map;
  const order = orderLayers(map, false, runs);
  const layers = order.labels.length;
  if (layers === 0 || w === 0 || h === 0) return { shapes: [] };
  const { rank } = order;
  const pw = w + 2;
  const ew = w + 1;
  const junction = junctions(rank, w, h);
  // vertical boundary edges per region (each edge listed for both sides that are traced)
  const perRank = new Int32Array(layers + 1);
  for (let y = 0; y < h; y++) {
    const row = (y + 1) * pw;
    for (let x = 0; x <= w; x++) {
      const a = rank[row + x]!;
      const b = rank[row + x + 1]!;
      if (a !== b) {
        if (a >= 0) perRank[a + 1]++;
        if (b >= 0) perRank[b + 1]++;
      }
    }
  }
  for (let k = 0; k < layers; k++) perRank[k + 1] += perRank[k]!;
  const fill = perRank.slice();
  const edgeList = new Int32Array(perRank[layers]!);
  for (let y = 0; y < h; y++) {
    const row = (y + 1) * pw;
    for (let x = 0; x <= w; x++) {
      const a = rank[row + x]!;
      const b = rank[row + x + 1]!;
      if (a !== b) {
        const e = y * ew + x;
        if (a >= 0) edgeList[fill[a]!++] = e;
        if (b >= 0) edgeList[fill[b]!++] = e;
      }
    }
  }
  // fitted chains keyed by the undirected id of their first and of their last lattice step
  const hOff = ew * h;
  const stepId = (x0: number, y0: number, x1: number, y1: number): number =>
    x0 === x1 ? Math.min(y0, y1) * ew + x0 : hOff + y0 * w + Math.min(x0, x1);
  // per step id: chain index + 1 when the chain starts with that step, -(index + 1) when it ends with it
  const byStep = new Int32Array(hOff + w * (h + 1));
  const fits: PathSegments[] = [];
  const closedFits = new Map<number, PathSegments>();

  const visited = new Uint16Array(ew * h);
  const buf = new WalkBuffer();
  const shapes: TracedShape[] = [];
  for (let r = 0; r < layers; r++) {
    const set: PixelSet = { rank, width: w, height: h, lo: r, hi: r };
    const subpaths: PathSegments[] = [];
    for (let i = perRank[r]!; i < perRank[r + 1]!; i++) {
      const p = walkFrom(set, edgeList[i]!, visited, r + 1, buf);
      if (!p) continue;
      subpaths.push(assemble(p));
    }
    if (subpaths.length) shapes.push({ label: order.labels[r]!, subpaths });
  }
  return { shapes };

  function assemble(p: LatticePath): PathSegments {
    const { xs, ys } = p;
    const n = xs.length;
    let first = -1;
    for (let i = 0; i < n; i++) {
      if (junction[ys[i]! * ew + xs[i]!]) {
        first = i;
        break;
      }
    }
    if (first < 0) return closedLoop(p);
    const segs: Seg[] = [];
    let i = first;
    const startX = xs[first]!;
    const startY = ys[first]!;
    let done = 0;
    while (done < n) {
      // collect the chain from junction i to the next junction
      let j = i;
      let len = 0;
      do {
        j = (j + 1) % n;
        len++;
      } while (!junction[ys[j]! * ew + xs[j]!]);
      const fId = stepId(xs[i]!, ys[i]!, xs[(i + 1) % n]!, ys[(i + 1) % n]!);
      const lj = (j - 1 + n) % n;
      const lId = stepId(xs[lj]!, ys[lj]!, xs[j]!, ys[j]!);
      const known = byStep[fId]!;
      let fit = known !== 0 ? fits[Math.abs(known) - 1] : undefined;
      let reversed = false;
      if (fit === undefined || fit.segs.length === 0 || !endsAt(fit, xs[j]!, ys[j]!, xs[i]!, ys[i]!)) {
        if (fit && lastStepMatches(fit, xs[i]!, ys[i]!)) {
          reversed = true;
        } else {
          const cx = new Int32Array(len + 1);
          const cy = new Int32Array(len + 1);
          for (let k = 0; k <= len; k++) {
            const q = (i + k) % n;
            cx[k] = xs[q]!;
            cy[k] = ys[q]!;
          }
          fit = fitPath({ xs: cx, ys: cy, area: 0, open: true }, params);
          fits.push(fit);
          byStep[fId] = fits.length;
          if (lId !== fId) byStep[lId] = -fits.length;
        }
      }
      const piece = reversed ? reverseSegments(fit) : fit;
      for (const s of piece.segs) segs.push(s);
      done += len;
      i = j;
    }
    return { start: [startX, startY], segs };
  }

  function closedLoop(p: LatticePath): PathSegments {
    // the loop's canonical key: its top-left corner (both sides rotate their walk to start there)
    const key = p.ys[0]! * ew + p.xs[0]!;
    const fit = closedFits.get(key);
    if (fit) return reverseSegments(fit);
    const own = fitPath(p, params);
    closedFits.set(key, own);
    return own;
  }
}

function endsAt(fit: PathSegments, ex: number, ey: number, sx: number, sy: number): boolean {
  const last = fit.segs[fit.segs.length - 1]!;
  return last.x === ex && last.y === ey && fit.start[0] === sx && fit.start[1] === sy;
}

function lastStepMatches(fit: PathSegments, x: number, y: number): boolean {
  const last = fit.segs[fit.segs.length - 1];
  return last !== undefined && last.x === x && last.y === y;
}
