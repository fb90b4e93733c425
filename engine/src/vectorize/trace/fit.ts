// The per-path pipeline of potrace (Selinger 2003, sec. 2.2-2.4) in order: straight runs, optimal polygon,
// vertex adjustment, smoothing with corner detection, curve optimisation, then our area correction
// (area.ts); or the pixel-exact outline.
// Thin features: the straightness test lets one polygon edge hug both sides of a 1 px line, which collapses
// it into a sliver. When the adjusted polygon of a closed path loses too much of the path's area, the path
// is fitted again on the lattice refined by 2 (every unit step split in two), which halves the tolerance.

import type { PathSegments, TraceParams } from '../types.js';
import { straightRuns } from './straight.js';
import { optimalPolygon, pathSums } from './polygon.js';
import { adjustVertices } from './adjust.js';
import { smoothPolygon, splitLongEdges } from './smooth.js';
import { optimizeCurve } from './opticurve.js';
import { emitCurve, emitLattice } from './emit.js';
import { correctArea } from './area.js';
import type { LatticePath } from './path.js';

/** Relative area loss of the polygon (vs the lattice path) that triggers the refined fit. */
const AREA_LOSS = 0.12;

function polygonVertices(p: LatticePath): { vx: Float64Array; vy: Float64Array } {
  const lon = straightRuns(p);
  const sums = pathSums(p);
  const verts = optimalPolygon(p, lon, sums);
  return adjustVertices(p, sums, verts);
}

function shoelace(vx: Float64Array, vy: Float64Array): number {
  let a = 0;
  const m = vx.length;
  for (let i = 0, j = m - 1; i < m; j = i++) a += vx[j]! * vy[i]! - vx[i]! * vy[j]!;
  return a / 2;
}

/** The same path on the lattice refined by `f`: coordinates scaled, every unit step split into f steps. */
function refine(p: LatticePath, f: number): LatticePath {
  const n = p.xs.length;
  const steps = p.open ? n - 1 : n;
  const len = steps * f + (p.open ? 1 : 0);
  const xs = new Int32Array(len);
  const ys = new Int32Array(len);
  let o = 0;
  for (let i = 0; i < steps; i++) {
    const j = (i + 1) % n;
    const dx = p.xs[j]! - p.xs[i]!;
    const dy = p.ys[j]! - p.ys[i]!;
    for (let k = 0; k < f; k++) {
      xs[o] = p.xs[i]! * f + dx * k;
      ys[o] = p.ys[i]! * f + dy * k;
      o++;
    }
  }
  if (p.open) {
    xs[o] = p.xs[n - 1]! * f;
    ys[o] = p.ys[n - 1]! * f;
  }
  return { xs, ys, area: p.area * f * f, open: p.open };
}

/**
 * Fits one closed (or open) lattice path: straight runs, optimal polygon, vertex adjustment, smoothing with
 * corner detection, curve optimisation. With `smooth: false` the pixel-exact outline is returned.
 */
export function fitPath(p: LatticePath, params: TraceParams): PathSegments {
  // a single pixel (four corners): nothing to fit
  if (!params.smooth || (!p.open && p.xs.length <= 4)) return emitLattice(p);
  let { vx, vy } = polygonVertices(p);
  if (!p.open && Math.abs(shoelace(vx, vy) - p.area) > AREA_LOSS * Math.abs(p.area) + 0.5) {
    const fine = polygonVertices(refine(p, 2));
    for (let i = 0; i < fine.vx.length; i++) {
      fine.vx[i]! /= 2;
      fine.vy[i]! /= 2;
    }
    vx = fine.vx;
    vy = fine.vy;
  }
  ({ vx, vy } = splitLongEdges(vx, vy, p.open));
  const curve = optimizeCurve(smoothPolygon(vx, vy, p.open, params.alphaMax), params.optTolerance);
  if (!p.open) correctArea(curve, p.area);
  return emitCurve(curve);
}
