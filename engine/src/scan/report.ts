// Scan: the print-readiness report of a decoded image (spec 2.2). Runs the analyses (alpha statistics,
// fringe test, background, specks, thin lines, margins), then derives the recommendation, the edge
// rating, the issues and the POST /fix suggestions that repair them.
import { alphaStats } from '../alpha/stats.js';
import { detectFringe } from '../alpha/fringe.js';
import type { DecodeInfo, Raster } from '../raster/types.js';
import { detectBackground } from './background.js';
import { findSpecks, foregroundPlane } from './specks.js';
import type { RunComponents } from '../raster/components.js';
import { thinLines } from './thin.js';
import { findScreen, stairsOutside } from './screen.js';
import { rateEdges, recommend } from './recommend.js';
import { RIM_WIDE_PX } from '../alpha/rim.js';
import type { ScanIssue, ScanReport, ScanSuggestion } from './types.js';
import { DPI_ERROR, DPI_WARN, IDEAL_DPI, JAGGED_MAX_DPI, MAX_RESIZE_PIXELS, MAX_RESIZE_SIDE } from '../print/resolution.js';

/** Share of solid art on sub-1 pt strokes that raises thin_lines. */
export const THIN_SHARE = 0.02;
/** Transparent margin (share of the width or height on one side) that raises transparent_margin. */
export const MARGIN_SHARE = 0.05;

const r1 = (v: number): number => Math.round(v * 10) / 10;
const r2 = (v: number): number => Math.round(v * 100) / 100;

export interface ScanInput {
  raster: Raster;
  info: Pick<DecodeInfo, 'format' | 'isJpeg' | 'density'>;
  printWidthInches: number;
  /** Hears each analysis step as it starts (the op's progress events). */
  progress?: (step: 'alpha' | 'background' | 'specks' | 'lines') => void;
}

/**
 * Build the scan report.
 * @example const report = scanRaster({ raster, info, printWidthInches: 12 });
 */
export function scanRaster({ raster, info, printWidthInches, progress = () => {} }: ScanInput): ScanReport {
  const { width, height } = raster;
  const dpi = width / printWidthInches;
  progress('alpha');
  const s = alphaStats(raster);
  const plane = s.plane;
  const measured = s.semi > 0 ? detectFringe(raster, plane, s.edgeSemi) : { edgePixels: 0, offPixels: 0, offShare: 0, matteSpread: 0, hasHalo: false, matte: null };
  // an off-colour edge under a wide soft rim is a glow or shadow of another colour (design), not a matte
  const fringe = s.softRimPx > RIM_WIDE_PX ? { ...measured, hasHalo: false, matte: null } : measured;
  progress('background');
  const bg = detectBackground(raster, s.transparent / s.pixels);
  // An opaque image on a solid background: specks, strokes and the content box are judged against the
  // background colour instead of the (uniformly opaque) alpha channel.
  const onSolid = bg.kind === 'solid' && bg.rgb !== null && s.transparent / s.pixels < 0.01;
  const shapePlane = onSolid ? foregroundPlane(raster, bg.rgb!) : plane;
  progress('specks');
  const specks = findSpecks(raster, dpi, shapePlane);
  progress('lines');
  // a halftone screen (dots on a lattice; holes too when the alpha is binary) is dots, not strokes or curves
  const binary = s.semi <= 0.01 * (s.pixels - s.transparent);
  const screen = findScreen(shapePlane, width, height, dpi, specks.components, binary);
  let linePlane = shapePlane;
  if (screen.mask) {
    linePlane = shapePlane.slice();
    for (let p = 0; p < linePlane.length; p++) if (screen.mask[p]) linePlane[p] = 0;
  }
  const thin = thinLines(raster, dpi, linePlane);
  // on a solid background with nothing else on it the whole canvas is the (opaque) content
  const box = contentBox(specks.components, specks.isSpeck) ?? (onSolid ? { x: 0, y: 0, width, height } : null);
  const fix = recommend(s, fringe);
  const rated = rateEdges(screen.mask ? { ...s, ...stairsOutside(plane, width, height, screen.mask) } : s, fringe);
  // pixel staircases of 0.13 mm and less (at JAGGED_MAX_DPI and above) do not show in print
  const edge = rated === 'jagged' && dpi >= JAGGED_MAX_DPI ? 'clean' : rated;
  const visible = s.pixels - s.transparent;
  // a fringe is an edge to cut: a matte colour in it, or a soft rim that fix_alpha_threshold should remove
  // (not the wide glow, shadow or fade that halftone keeps)
  const hasFringe = fringe.hasHalo || fix.recommended === 'remove' || fix.recommended === 'either';

  const issues: ScanIssue[] = [];
  const suggestions: ScanSuggestion[] = [];
  const suggest = (field: ScanSuggestion['field'], value: string, reason: string): void => {
    if (!suggestions.some((x) => x.field === field)) suggestions.push({ field, value, reason });
  };
  const pw = String(r2(printWidthInches));

  if (s.transparent === s.pixels) issues.push({ code: 'empty_image', severity: 'error', message: 'The image is fully transparent: nothing would print.' });
  if (dpi < DPI_ERROR) {
    issues.push({ code: 'low_resolution', severity: 'error', message: `${r1(dpi)} DPI at ${pw} in wide prints visibly soft and pixelated; 300 DPI is ideal (needs ${Math.round(printWidthInches * 300)} px wide). Print smaller or upscale (POST /api/v1/upscale).` });
  } else if (dpi < DPI_WARN) {
    issues.push({ code: 'low_resolution', severity: 'warning', message: `${r1(dpi)} DPI at ${pw} in wide is below the 300 DPI ideal (needs ${Math.round(printWidthInches * 300)} px wide); fine detail may look soft.` });
  }
  if (fringe.hasHalo) {
    issues.push({ code: 'edge_fringe', severity: 'warning', message: `${r1(fringe.offShare * 100)}% of the edge pixels carry a leftover matte colour (${fringeHex(fringe.matte)}) that prints as a halo around the art.` });
  }
  if (fix.recommended === 'halftone' || (s.semi > 0 && s.softRimPx > RIM_WIDE_PX)) {
    issues.push({ code: 'semi_transparent_areas', severity: 'warning', message: `Wide semi-transparent areas (soft rim ${r1(s.softRimPx)} px, ${r1((s.semi / Math.max(1, visible)) * 100)}% of the visible pixels): DTF cannot print partial transparency; convert them to halftone dots or cut them off.` });
  } else if (fix.recommended === 'remove' || fix.recommended === 'either') {
    if (!fringe.hasHalo) issues.push({ code: 'soft_edges', severity: 'warning', message: `The edges have a soft semi-transparent rim ${r1(s.softRimPx)} px wide (anti-aliasing is about 1 px); it prints as a faint halo.` });
  }
  if (fix.recommended === 'remove' || fix.recommended === 'either') {
    suggest('fix_alpha_threshold', 'true', 'Cuts the semi-transparent edge rim and removes the matte colour from the kept edge pixels.');
    suggest('alpha_threshold', '144', 'Default cut-off: pixels below alpha 144 become transparent, the rest opaque; lower keeps more of the edge.');
  } else if (fix.recommended === 'halftone') {
    suggest('fix_halftone', 'true', 'Converts glows and fades into fully opaque halftone dots that print reliably.');
    suggest('halftone_lpi', '35', 'Default dot frequency (lines per inch); lower gives bigger, more robust dots.');
    suggest('print_width_inches', pw, 'Sizes the halftone dots for the physical print width.');
  }
  if (specks.count > 0) {
    issues.push({ code: 'specks', severity: 'warning', message: `${specks.count} stray speck${specks.count === 1 ? '' : 's'} (at most 0.5 mm across, ${specks.maxPx} px, with no other ink within 2 mm) would print as dots of ink.` });
    suggest('fix_despeckle', 'true', 'Removes isolated specks by size without touching larger details.');
  }
  if (info.isJpeg) {
    issues.push({ code: 'jpeg_artifacts', severity: 'warning', message: 'JPEG compression adds noise around edges and has no transparency; a PNG export of the original artwork prints cleaner.' });
  }
  if (bg.kind === 'solid') {
    issues.push({ code: 'background_not_transparent', severity: 'warning', message: `The artwork sits on a solid ${bg.color} background that would print as a filled rectangle; remove it (POST /api/v1/remove-bg) unless it is part of the design.` });
  } else if (bg.kind === 'complex') {
    issues.push({ code: 'background_not_transparent', severity: 'warning', message: 'The image has no transparency and a busy (photo-like) background that would print as a rectangle; remove it (POST /api/v1/remove-bg) unless the rectangle is intended.' });
  }
  if (thin.thinShare >= THIN_SHARE) {
    issues.push({ code: 'thin_lines', severity: 'warning', message: `${r1(thin.thinShare * 100)}% of the art is on strokes thinner than 1 pt (${r1(thin.minWidthPx)} px at ${r1(dpi)} DPI); they may break up or wash out in print.` });
  }
  if (edge === 'jagged') {
    issues.push({ code: 'jagged_edges', severity: 'info', message: 'Edges have no anti-aliasing and show pixel staircases on curves; a higher-resolution or vector source prints smoother.' });
  }
  if (box && bg.kind === 'transparent') {
    const margin = Math.max(box.x / width, box.y / height, (width - box.x - box.width) / width, (height - box.y - box.height) / height);
    if (margin >= MARGIN_SHARE) {
      issues.push({ code: 'transparent_margin', severity: 'info', message: `Transparent borders (up to ${r1(margin * 100)}% of a side) make placement on the garment imprecise; trim them.` });
      suggest('fix_trim', 'true', 'Crops the fully transparent border so the file is exactly the artwork.');
    }
  }
  if (dpi < DPI_WARN && box) {
    // resample to 300 DPI at the print size (of the trimmed art when trimming), within the resize limits
    const trimmed = suggestions.some((x) => x.field === 'fix_trim');
    const sw = trimmed ? box.width : width;
    const sh = trimmed ? box.height : height;
    const scale = Math.min(IDEAL_DPI / dpi, MAX_RESIZE_SIDE / sw, MAX_RESIZE_SIDE / sh, Math.sqrt(MAX_RESIZE_PIXELS / (sw * sh)));
    const target = Math.floor(sw * scale);
    if (target > sw) suggest('resize_width_px', String(target), `Resamples the art to ${r1((dpi * target) / sw)} DPI at the print size (smooth, not sharper: POST /api/v1/upscale restores detail better), so the halftone and edges are made at print resolution.`);
  }
  // fix reads the print width as that of this file: specks, dots and the output DPI are then judged at the real size
  if (suggestions.length) suggest('print_width_inches', pw, 'The print width of this file, so fix judges specks, halftone dots and the output DPI at the real size.');

  return {
    width,
    height,
    dpi: r1(dpi),
    statedDpi: info.density,
    printWidthInches: r2(printWidthInches),
    printHeightInches: r2((height / width) * printWidthInches),
    format: info.format,
    background: bg.kind,
    backgroundColor: bg.color,
    alpha: {
      hasTransparency: s.opaque < s.pixels,
      seamPercent: r1(visible > 0 ? (s.seam / visible) * 100 : 0),
      softRimPx: r2(s.softRimPx),
      semiTransparentPercent: r1(visible > 0 ? (s.semi / visible) * 100 : 0),
      hasFringe: hasFringe,
      fringeColor: fringe.matte ? fringeHex(fringe.matte) : null,
      fringePercent: hasFringe ? r1(fringe.offShare * 100) : 0,
      transparentPercent: r1((s.transparent / s.pixels) * 100),
      semiInkPercent: r1(s.ink > 0 ? (s.semiInk / s.ink) * 100 : 0),
      edgeLengthPx: Math.round(s.edgeLength),
    },
    transparencyFix: fix,
    inkCoveragePercent: r1((s.ink / s.pixels) * 100),
    speckCount: specks.count,
    speckMaxPx: specks.maxPx,
    isJpeg: info.isJpeg,
    edgeQuality: edge,
    thinLinePercent: r1(thin.thinShare * 100),
    contentBox: box,
    issues,
    suggestions,
  };
}

/** Union of the bounding boxes of the visible components that are not specks; null when there are none. */
function contentBox(cc: RunComponents, isSpeck: Uint8Array): ScanReport['contentBox'] {
  if (cc.count === 0) return null;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = 0;
  let y1 = 0;
  // the art without its specks (what fix_despeckle + fix_trim keep); all of it when it is all specks
  const skip = isSpeck.some((v) => v === 0);
  for (let c = 0; c < cc.count; c++) {
    if (skip && isSpeck[c]) continue;
    x0 = Math.min(x0, cc.minX[c]!);
    y0 = Math.min(y0, cc.minY[c]!);
    x1 = Math.max(x1, cc.maxX[c]!);
    y1 = Math.max(y1, cc.maxY[c]!);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

function fringeHex(m: [number, number, number] | null): string {
  if (!m) return 'unknown';
  return '#' + m.map((v) => v.toString(16).padStart(2, '0')).join('');
}
