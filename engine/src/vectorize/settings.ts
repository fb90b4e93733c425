// The settings the vectorize pipeline runs under, after option resolution (ops/vectorize.ts maps the
// user-facing fields onto them; upscale/vector.ts states its own): the level of detail and its potrace
// parameters, and the resolved struct every stage reads.
import type { ColorsOption } from './quantize/index.js';
import type { DxfUnits, VectorFormat } from './formats/index.js';
import type { TraceParams } from './types.js';

/** How closely `vectorize` follows the outline: `smoother` (fewer nodes), `balanced` (default), `precise`. */
export type Detail = 'smoother' | 'balanced' | 'precise';

/** Resolved options. */
export interface ResolvedVectorize {
  colors: ColorsOption;
  detail: Detail;
  shapeStyle: 'stacked' | 'cutout';
  speckSize: number;
  edgeCleanup: boolean;
  smoothBands: boolean;
  gradients: boolean;
  printWidthInches: number | null;
  outputFormat: VectorFormat;
  dxfUnits: DxfUnits;
  primitives: boolean;
  trace: TraceParams;
}

/**
 * `detail` -> potrace parameters. alphaMax is the corner threshold (lower keeps more corners), optTolerance the
 * curve-joining tolerance in px.
 */
export const DETAIL_PARAMS: Readonly<Record<Detail, { alphaMax: number; optTolerance: number }>> = Object.freeze({
  smoother: { alphaMax: 1.2, optTolerance: 0.4 },
  balanced: { alphaMax: 1.0, optTolerance: 0.2 },
  precise: { alphaMax: 0.6, optTolerance: 0.1 },
});
