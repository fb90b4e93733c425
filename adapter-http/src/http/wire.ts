// The contract's field names: the engine's results are a JavaScript API (camelCase), while the HTTP bodies
// and the CLI's JSON keep the snake_case names of the contract (spec 2.2, 4.x). This is the one place the
// two are mapped, so a field renamed in the engine fails to compile here instead of changing a reply.
// Keys are written in the order the replies have always had (JSON text is compared byte for byte).
import type { DecodeInfo, FixStats, MockupResult, ScanAlpha, ScanReport, UnderbaseResult } from '@inkprep/engine';

/** The `alpha` object of the scan report as sent. */
export interface ScanAlphaWire {
  has_transparency: boolean;
  seam_percent: number;
  soft_rim_px: number;
  semi_transparent_percent: number;
  has_fringe: boolean;
  fringe_color: string | null;
  fringe_percent: number;
  transparent_percent: number;
  semi_ink_percent: number;
  edge_length_px: number;
}

/** The scan report as POST /api/v1/scan and `inkprep scan` send it. */
export interface ScanReportWire {
  width: number;
  height: number;
  dpi: number;
  stated_dpi: number | null;
  print_width_inches: number;
  print_height_inches: number;
  format: ScanReport['format'];
  background: ScanReport['background'];
  background_color: string | null;
  alpha: ScanAlphaWire;
  transparency_fix: ScanReport['transparencyFix'];
  ink_coverage_percent: number;
  speck_count: number;
  speck_max_px: number;
  is_jpeg: boolean;
  edge_quality: ScanReport['edgeQuality'];
  thin_line_percent: number;
  content_box: ScanReport['contentBox'];
  issues: ScanReport['issues'];
  suggestions: ScanReport['suggestions'];
}

function scanAlphaWire(a: ScanAlpha): ScanAlphaWire {
  return {
    has_transparency: a.hasTransparency,
    seam_percent: a.seamPercent,
    soft_rim_px: a.softRimPx,
    semi_transparent_percent: a.semiTransparentPercent,
    has_fringe: a.hasFringe,
    fringe_color: a.fringeColor,
    fringe_percent: a.fringePercent,
    transparent_percent: a.transparentPercent,
    semi_ink_percent: a.semiInkPercent,
    edge_length_px: a.edgeLengthPx,
  };
}

/** The engine's scan report in the contract's names. */
export function scanReportWire(r: ScanReport): ScanReportWire {
  return {
    width: r.width,
    height: r.height,
    dpi: r.dpi,
    stated_dpi: r.statedDpi,
    print_width_inches: r.printWidthInches,
    print_height_inches: r.printHeightInches,
    format: r.format,
    background: r.background,
    background_color: r.backgroundColor,
    alpha: scanAlphaWire(r.alpha),
    transparency_fix: { recommended: r.transparencyFix.recommended, reason: r.transparencyFix.reason },
    ink_coverage_percent: r.inkCoveragePercent,
    speck_count: r.speckCount,
    speck_max_px: r.speckMaxPx,
    is_jpeg: r.isJpeg,
    edge_quality: r.edgeQuality,
    thin_line_percent: r.thinLinePercent,
    content_box: r.contentBox,
    issues: r.issues,
    suggestions: r.suggestions,
  };
}

/**
 * The decode report as `inkprep info` prints it: the engine's fields, three of them under the contract's names
 * (derived, so a field the engine adds or retypes shows up here; the key order is decodeInfoWire's).
 */
export type DecodeInfoWire = Omit<DecodeInfo, 'isJpeg' | 'hasAlpha' | 'bitsPerSample'> & {
  is_jpeg: boolean;
  has_alpha: boolean;
  bits_per_sample: number;
};

/** The engine's decode report in the contract's names. */
export function decodeInfoWire(i: DecodeInfo): DecodeInfoWire {
  return {
    width: i.width,
    height: i.height,
    format: i.format,
    is_jpeg: i.isJpeg,
    has_alpha: i.hasAlpha,
    density: i.density,
    space: i.space,
    bits_per_sample: i.bitsPerSample,
    channels: i.channels,
    icc: i.icc,
    orientation: i.orientation,
    interlaced: i.interlaced,
    palette: i.palette,
    bytes: i.bytes,
  };
}

/** The `print` object of a mockup as sent. */
export interface MockupPrintWire {
  width_in: number;
  height_in: number;
  top_in: number;
  offset_x_in: number;
  description: string;
  artwork_px: { width: number; height: number };
  effective_dpi: number;
  preview_fix: MockupResult['print']['previewFix'];
}

/** Where and how large a mockup's print came out, in the contract's names. */
export function mockupPrintWire(p: MockupResult['print']): MockupPrintWire {
  return {
    width_in: p.widthIn,
    height_in: p.heightIn,
    top_in: p.topIn,
    offset_x_in: p.offsetXIn,
    description: p.description,
    artwork_px: { width: p.artworkPx.width, height: p.artworkPx.height },
    effective_dpi: p.effectiveDpi,
    preview_fix: p.previewFix,
  };
}

/** The mockup facts both the JSON body of POST /api/v1/mockup (`response=json`) and `inkprep mockup` print. */
export function mockupWire(r: MockupResult): Pick<MockupResult, 'garment' | 'view' | 'placement' | 'warnings'> & { print: MockupPrintWire } {
  return { garment: r.garment, view: r.view, placement: r.placement, print: mockupPrintWire(r.print), warnings: r.warnings };
}

/** The contract's name of each `fix` stat (`inkprep fix` prints them). */
const FIX_STAT_NAMES: Readonly<Record<keyof FixStats, string>> = {
  specksRemoved: 'specks_removed',
  pinholesFilled: 'pinholes_filled',
  colourSpecksFixed: 'colour_specks_fixed',
  alphaRemoved: 'alpha_removed',
  alphaKept: 'alpha_kept',
  alphaRecoloured: 'alpha_recoloured',
  halftoneCellPx: 'halftone_cell_px',
  halftoneLpi: 'halftone_lpi',
  halftoneAngle: 'halftone_angle',
  halftonePixels: 'halftone_pixels',
  halftoneDots: 'halftone_dots',
  halftoneMinDotPx: 'halftone_min_dot_px',
  trimX: 'trim_x',
  trimY: 'trim_y',
};

/** The stats of a `fix` run in the contract's names, in the order the steps wrote them. */
export function fixStatsWire(stats: FixStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(stats) as [keyof FixStats, number | undefined][]) if (v !== undefined) out[FIX_STAT_NAMES[k]] = v;
  return out;
}

/** The underbase answer as POST /api/v1/underbase (format json) and `inkprep underbase` send it. */
export interface UnderbaseWire {
  width: number;
  height: number;
  dpi: number;
  print_width_inches: number;
  print_height_inches: number;
  garment_color: string | null;
  garment_source: string | null;
  knockout: UnderbaseResult['knockout'];
  choke_mm: number;
  choke_px: number;
  transparency_fix: UnderbaseResult['fixed'];
  white_ink_sq_in: number;
  color_ink_sq_in: number;
  white_only_sq_in: number;
  knocked_out_sq_in: number;
  white_coverage_percent: number;
  warnings: UnderbaseResult['warnings'];
  /** base64 PNGs (format json only). */
  white_plate?: string;
  color_plate?: string;
}

/** The numbers of an underbase result in the contract's names; with `plates`, both plates in base64. */
export function underbaseWire(out: UnderbaseResult, plates = out.requested === 'json'): UnderbaseWire {
  const s = out.stats;
  return {
    width: out.width,
    height: out.height,
    dpi: out.dpi,
    print_width_inches: s.printWidthInches,
    print_height_inches: s.printHeightInches,
    garment_color: out.garment?.hex ?? null,
    garment_source: out.garment?.source ?? null,
    knockout: out.knockout,
    choke_mm: out.chokeMm,
    choke_px: out.chokePx,
    transparency_fix: out.fixed,
    white_ink_sq_in: s.whiteInkSqIn,
    color_ink_sq_in: s.colourInkSqIn,
    white_only_sq_in: s.whiteOnlySqIn,
    knocked_out_sq_in: s.knockedOutSqIn,
    white_coverage_percent: s.whiteCoveragePercent,
    warnings: out.warnings,
    ...(plates ? { white_plate: Buffer.from(out.data).toString('base64') } : {}),
    ...(plates && out.colourPlate ? { color_plate: Buffer.from(out.colourPlate).toString('base64') } : {}),
  };
}
