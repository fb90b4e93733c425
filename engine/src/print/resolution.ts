// The print-size rules DTF printing imposes, shared by the scan (which judges an artwork against them) and the
// fix (which resizes and sets the DPI by them): print widths, the resolutions that print soft, acceptably or
// ideally, and how large a resize may go. Plain constants, below both scan/ and fix/.

/** Default print width in inches when none is given. */
export const DEFAULT_PRINT_WIDTH_IN = 12;
/** Allowed print widths, inches. */
export const PRINT_WIDTH_RANGE = Object.freeze([0.1, 500] as const);
/** DPI below which the print looks soft (error) and below which it is marginal (warning). */
export const DPI_ERROR = 150;
export const DPI_WARN = 200;
/** Resolution from which binary (staircase) edges no longer read as jagged (steps under 0.13 mm): DPI_WARN. */
export const JAGGED_MAX_DPI = 200;
/** Resolution a resize suggestion aims for, and the print's DPI when no print width is given. */
export const IDEAL_DPI = 300;
/** Largest side and largest pixel count of a resize target. */
export const MAX_RESIZE_SIDE = 20_000;
export const MAX_RESIZE_PIXELS = 100_000_000;
