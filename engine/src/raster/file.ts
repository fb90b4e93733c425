// The one shape of an op's output file: every op that writes a file returns its bytes and their type under
// the same names (`data`, `format`, `contentType`), so callers handle fix, upscale, removeBg, mockup and
// vectorize results alike. It lives in raster/, below every feature, so any stage may name it.

/** The file an op wrote. `F` is the format name, `T` its MIME type. */
export interface OpFile<F extends string = string, T extends string = string> {
  /** The file's bytes (moved back from the worker, not copied). */
  data: Uint8Array;
  /** The file's format, e.g. `png`. */
  format: F;
  /** The MIME type of `data`, e.g. `image/png`: what an HTTP reply's Content-Type would say. */
  contentType: T;
}

/** A PNG written by an op. */
export type PngFile = OpFile<'png', 'image/png'>;

/** The fields of a PNG result, for ops that encode a PNG. */
export function pngFile(data: Uint8Array): PngFile {
  return { data, format: 'png', contentType: 'image/png' };
}
