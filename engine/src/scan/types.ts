// The scan report (spec section 2.2) and its parts, as returned by the `scan` op and POST /api/v1/scan.

export type Recommendation = 'remove' | 'halftone' | 'either' | 'none';
export type EdgeQuality = 'clean' | 'soft' | 'jagged' | 'fringed';
export type Severity = 'error' | 'warning' | 'info';
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

export interface ScanAlpha {
  /** The image has any pixel with alpha < 255. */
  has_transparency: boolean;
  /** Average width in px of the semi-transparent band around the art (semi pixels per px of edge). */
  soft_rim_px: number;
  /** Semi-transparent pixels (0 < alpha < 255) as % of the visible pixels (alpha > 0). */
  semi_transparent_percent: number;
  /** The rim is wider than anti-aliasing or edge pixels carry a contaminating matte colour. */
  has_fringe: boolean;
  /** `#rrggbb` of the matte colour found in the edge pixels, or null. */
  fringe_color: string | null;
  /** % of the examined edge pixels whose colour does not match the art next to them. */
  fringe_percent: number;
  /** Semi-transparent 1-px seams between opaque pixels (where shapes abut) as % of the visible pixels. */
  seam_percent: number;
  /** Fully transparent pixels as % of the canvas. */
  transparent_percent: number;
  /** Share of the ink (alpha-weighted) carried by semi-transparent pixels, %. */
  semi_ink_percent: number;
  /** Length of the art's outline in px (total variation of alpha / 255). */
  edge_length_px: number;
}

export interface ScanReport {
  width: number;
  height: number;
  /** Effective resolution at print_width_inches: width px / inches. */
  dpi: number;
  /** The density the file states (pHYs / JFIF / EXIF) in DPI, or null. */
  stated_dpi: number | null;
  print_width_inches: number;
  print_height_inches: number;
  format: 'png' | 'jpeg' | 'webp';
  background: 'transparent' | 'solid' | 'complex';
  /** `#rrggbb` when background is `solid`, else null. */
  background_color: string | null;
  alpha: ScanAlpha;
  transparency_fix: { recommended: Recommendation; reason: string };
  /** Alpha-weighted share of the canvas that receives ink, %. */
  ink_coverage_percent: number;
  speck_count: number;
  /** Largest speck in px across (0.5 mm at the print DPI); a speck also has no other ink within 2 mm. */
  speck_max_px: number;
  is_jpeg: boolean;
  edge_quality: EdgeQuality;
  /** Share of the solid art (alpha >= 128) on strokes thinner than 1 pt at the print size, %. */
  thin_line_percent: number;
  /** Bounding box of the visible pixels, or null for an empty image. */
  content_box: { x: number; y: number; width: number; height: number } | null;
  issues: ScanIssue[];
  suggestions: ScanSuggestion[];
}
