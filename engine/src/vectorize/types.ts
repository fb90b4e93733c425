// Data passed between the vectorize pipeline stages (prepare -> quantize -> clean -> trace -> svg).
// Plain typed-array structs so any stage can run in a worker.

/** Label of a pixel that is not traced (transparent after edge cleanup). */
export const TRANSPARENT = 0xffff;

/** The quantized image: one palette index per pixel. */
export interface LabelMap {
  width: number;
  height: number;
  /** Palette index per pixel (row-major); TRANSPARENT for pixels that are never traced. */
  labels: Uint16Array;
  /** Palette as packed RGB bytes: entry i is palette[3i..3i+2]. At most 0xfffe entries. */
  palette: Uint8Array;
}

/** How a traced region is painted. Solid is the default; gradients only when the art calls for them. */
export type Fill =
  | { kind: 'solid'; rgb: [number, number, number] }
  | { kind: 'linear'; x1: number; y1: number; x2: number; y2: number; stops: GradientStop[] }
  | { kind: 'radial'; cx: number; cy: number; r: number; stops: GradientStop[] };

export interface GradientStop {
  /** 0..1 along the gradient vector. */
  offset: number;
  rgb: [number, number, number];
}

/** Tracing parameters after option resolution (see ops/vectorize.ts for the user-facing mapping). */
export interface TraceParams {
  /** potrace alphamax: corner threshold; lower keeps more corners. */
  alphaMax: number;
  /** potrace opttolerance in px; 0 disables curve optimisation. */
  optTolerance: number;
  /** Paths whose area is at most this many px are dropped by the tracer (turdsize); merging happens earlier. */
  turdSize: number;
  /** `stacked`: overlapping layers back to front; `cutout`: non-overlapping pieces sharing boundaries. */
  shapeStyle: 'stacked' | 'cutout';
  /** false only for colors=unlimited with smooth_bands=false: keep pixel-exact staircase edges. */
  smooth: boolean;
}

/** One output shape: a compound path (one or more closed subpaths) painted with one fill. */
export interface TracedShape {
  /** Palette index this shape paints. */
  label: number;
  /** Absolute path data in source-pixel coordinates (the SVG writer re-encodes it compactly). */
  subpaths: PathSegments[];
}

/** A closed subpath: start point then segments; numbers in source pixels. */
export interface PathSegments {
  start: [number, number];
  /** Each segment is a line (`L` x y) or a cubic Bézier (`C` x1 y1 x2 y2 x y). */
  segs: Array<{ kind: 'L'; x: number; y: number } | { kind: 'C'; x1: number; y1: number; x2: number; y2: number; x: number; y: number }>;
  /** Set when the outline was recognised as an exact shape (primitives/); `segs` then draw that shape. */
  primitive?: Primitive;
}

/**
 * An exactly parameterised outline, in source pixels. `angle` in radians, from the x axis towards the y axis
 * (clockwise on screen); a rect's `r` is its corner radius (0 = sharp corners).
 */
export type Primitive =
  | { kind: 'circle'; cx: number; cy: number; r: number }
  | { kind: 'ellipse'; cx: number; cy: number; rx: number; ry: number; angle: number }
  | { kind: 'rect'; cx: number; cy: number; w: number; h: number; angle: number; r: number };

/** Result of tracing a label map: shapes in paint order (first painted first, i.e. back to front). */
export interface TraceResult {
  shapes: TracedShape[];
}
