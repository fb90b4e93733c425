// The per-path pipeline of potrace (Selinger 2003, sec. 2.2-2.4) in order: straight runs, optimal polygon,
// vertex adjustment, smoothing with corner detection, curve optimisation; or the pixel-exact outline.

import type { PathSegments, TraceParams } from '../types.js';
import { straightRuns } from './straight.js';
import { optimalPolygon, pathSums } from './polygon.js';
import { adjustVertices } from './adjust.js';
import { smoothPolygon } from './smooth.js';
import { optimizeCurve } from './opticurve.js';
import { emitCurve, emitLattice } from './emit.js';
import type { LatticePath } from './path.js';

/**
 * Fits one closed (or open) lattice path: straight runs, optimal polygon, vertex adjustment, smoothing with
 * corner detection, curve optimisation. With `smooth: false` the pixel-exact outline is returned.
 */
export function fitPath(p: LatticePath, params: TraceParams): PathSegments {
  if (!params.smooth) return emitLattice(p);
  const lon = straightRuns(p);
  const sums = pathSums(p);
  const verts = optimalPolygon(p, lon, sums);
  const { vx, vy } = adjustVertices(p, sums, verts);
  const curve = smoothPolygon(vx, vy, p.open, params.alphaMax);
  return emitCurve(optimizeCurve(curve, params.optTolerance));
}

