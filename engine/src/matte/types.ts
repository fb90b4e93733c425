// Plain structs shared by the background-removal (matte) stages: the fitted background model, the
// pixel classification and the band of uncertain pixels. All typed arrays, safe to cross a worker boundary.

/** Background model fitted to the image border (stage `background.ts`). */
export interface BackgroundModel {
  /** `constant`: one colour; `quadratic`: a smooth surface c0 + c1·x + c2·y + c3·x² + c4·xy + c5·y² per channel. */
  kind: 'constant' | 'quadratic';
  /** sRGB (0-255) coefficients, 6 per channel (R then G then B); for `constant` only the first of each is non-zero. */
  rgb: Float64Array;
  /** CIELAB coefficients, same layout; used for the perceptual distance. */
  lab: Float64Array;
  /** Image size the normalised coordinates refer to (x, y in [-1, 1]). */
  width: number;
  height: number;
  /** Share of border samples that fit the model (0-1). */
  inlierFraction: number;
  /** Robust noise of the fitting border samples, as CIE76 ΔE. */
  noiseDeltaE: number;
  /** Robust noise of the fitting border samples in sRGB units (per channel). */
  noiseRgb: number;
  /** Largest ΔE between the model's values at the four corners and its centre (0 for a single colour). */
  spreadDeltaE: number;
}

/** Per-pixel state flags of the classification (stage `classify.ts`). */
export const CAND = 1; // colour matches the background model within tolerance
export const BG = 2; // accepted background: connected to the border, or an enclosed matching region above noise size
export const BAND = 4; // uncertain: not background, near it; alpha comes from the mixing model
export const FG = 8; // certain foreground (alpha 1)
export const NO_SAMPLE = 16; // band pixel never used as a foreground colour sample (model path: mask below 0.75)

/** Tolerances derived from the background noise (stage `classify.ts`). */
export interface Thresholds {
  /** ΔE below which a pixel matches the background. */
  bgDeltaE: number;
  /** Smallest enclosed background-coloured region removed (pixels). */
  minHoleArea: number; // Infinity keeps every enclosed region
  /** Width of the uncertain band around the background, in pixels. */
  bandRadius: number;
  /** Foreground components smaller than this are removed as specks (pixels). */
  speckArea: number;
}

/** Result of the matting pipeline. */
export interface MatteResult {
  /** Straight-alpha RGBA, same size as the input. */
  data: Uint8ClampedArray;
  width: number;
  height: number;
  /** `matte`: artwork matting; `model`: segmentation model refined by matting; `alpha`: input already transparent. */
  method: RemoveBgMethod;
  /** Human-readable warnings (one sentence each, starting with a stable code then a colon). */
  warnings: string[];
  /** Diagnostics for benches and tests. */
  stats: MatteStats;
}

/** How `removeBg` cut the background out (see `RemoveBgResult.method`). */
export type RemoveBgMethod = 'matte' | 'model' | 'alpha';

/** Measurements of a `removeBg` run: what was found and how the cut-out was made. */
export interface MatteStats {
  background: 'constant' | 'quadratic' | 'none';
  /** The fitted background colour at the image centre, `#rrggbb` (null when no model was fitted). */
  backgroundColor: string | null;
  inlierFraction: number;
  noiseDeltaE: number;
  /** Compression noise: `jpeg` (the source is a JPEG), `detected` (ringing found in a PNG/raster), `none`. */
  compression: 'jpeg' | 'detected' | 'none';
  separable: boolean;
  /** Share of the pixels 2-12 px from the background lying on soft ramps (shading, shadows; separability.ts). */
  softFraction: number;
  /** Share of the pixels 2-4 px from the background within twice the match tolerance (a cut along a tolerance line). */
  faintFraction: number;
  /** Share of pixels made fully transparent. */
  transparentFraction: number;
  /** Pixels whose alpha came from the mixing model. */
  bandPixels: number;
  /** Enclosed background-coloured regions removed (letter counters, gaps). */
  holesRemoved: number;
  specksRemoved: number;
}
