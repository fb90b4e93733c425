// The scan report (spec section 2.2) and its parts, as returned by the `scan` op and POST /api/v1/scan.

/** The transparency fix the scan recommends: remove the rim (alpha threshold), halftone it, either, or none. */
export type Recommendation = 'remove' | 'halftone' | 'either' | 'none';
/** How the art's edges will print: clean, soft (wide semi-transparent rim), jagged (staircase), fringed (matte colour). */
export type EdgeQuality = 'clean' | 'soft' | 'jagged' | 'fringed';
/** How much an issue matters for the print: `error` prints badly, `warning` may, `info` is worth knowing. */
export type Severity = 'error' | 'warning' | 'info';
/** Stable code of a scan issue, for a client to branch on. */
export type IssueCode =
  | 'empty_image'
  | 'low_resolution'
  | 'soft_edges'
  | 'edge_fringe'
  | 'semi_transparent_areas'
  | 'specks'
  | 'jpeg_artifacts'
  | 'background_not_transparent'
  | 'thin_lines'
  | 'jagged_edges'
  | 'transparent_margin';

/** A print problem the scan found: its code, how much it matters, and one sentence for a person. */
export interface ScanIssue {
  code: IssueCode;
  severity: Severity;
  message: string;
}

/** A POST /fix form field and the text value to send, so a client can apply it automatically. */
export interface ScanSuggestion {
  field: 'fix_alpha_threshold' | 'alpha_threshold' | 'fix_halftone' | 'halftone_lpi' | 'print_width_inches' | 'fix_trim' | 'fix_despeckle' | 'resize_width_px' | 'resize_height_px';
  value: string;
  reason: string;
}

/** The transparency part of the scan report: how much of the art is semi-transparent and whether edges carry a matte. */
export interface ScanAlpha {
  /** The image has any pixel with alpha < 255. */
  hasTransparency: boolean;
  /** Average width in px of the semi-transparent band around the art (semi pixels per px of edge). */
  softRimPx: number;
  /** Semi-transparent pixels (0 < alpha < 255) as % of the visible pixels (alpha > 0). */
  semiTransparentPercent: number;
  /** The rim is wider than anti-aliasing or edge pixels carry a contaminating matte colour. */
  hasFringe: boolean;
  /** `#rrggbb` of the matte colour found in the edge pixels, or null. */
  fringeColor: string | null;
  /** % of the examined edge pixels whose colour does not match the art next to them. */
  fringePercent: number;
  /** Semi-transparent 1-px seams between opaque pixels (where shapes abut) as % of the visible pixels. */
  seamPercent: number;
  /** Fully transparent pixels as % of the canvas. */
  transparentPercent: number;
  /** Share of the ink (alpha-weighted) carried by semi-transparent pixels, %. */
  semiInkPercent: number;
  /** Length of the art's outline in px (total variation of alpha / 255). */
  edgeLengthPx: number;
}

/**
 * What `engine.scan` returns: the print-readiness report of an artwork at a print width (spec 2.2). POST
 * /api/v1/scan sends the same report with the contract's snake_case field names.
 */
export interface ScanReport {
  /** Pixels across. */
  width: number;
  /** Pixels down. */
  height: number;
  /** Effective resolution at print_width_inches: width px / inches. */
  dpi: number;
  /** The density the file states (pHYs / JFIF / EXIF) in DPI, or null. */
  statedDpi: number | null;
  /** The print width the report is for, inches (the `print_width_inches` option). */
  printWidthInches: number;
  /** The print height at that width, inches. */
  printHeightInches: number;
  /** The file's format. */
  format: 'png' | 'jpeg' | 'webp';
  /** What surrounds the art: transparent, one solid colour, or a complex (photo-like) background. */
  background: 'transparent' | 'solid' | 'complex';
  /** `#rrggbb` when background is `solid`, else null. */
  backgroundColor: string | null;
  alpha: ScanAlpha;
  /** The transparency fix recommended and why. */
  transparencyFix: { recommended: Recommendation; reason: string };
  /** Alpha-weighted share of the canvas that receives ink, %. */
  inkCoveragePercent: number;
  /** Specks found (tiny isolated dots that print as dust). */
  speckCount: number;
  /** Largest speck in px across (0.5 mm at the print DPI); a speck also has no other ink within 2 mm. */
  speckMaxPx: number;
  /** The file is a JPEG (compression artefacts and no transparency are likely). */
  isJpeg: boolean;
  /** How the edges will print. */
  edgeQuality: EdgeQuality;
  /** Share of the solid art (alpha >= 128) on strokes thinner than 1 pt at the print size, %. */
  thinLinePercent: number;
  /** Bounding box of the visible pixels, or null for an empty image. */
  contentBox: { x: number; y: number; width: number; height: number } | null;
  /** Print problems found. */
  issues: ScanIssue[];
  /** POST /fix form fields that would address the issues. */
  suggestions: ScanSuggestion[];
}
