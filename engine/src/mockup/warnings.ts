// Mockup warnings: stable codes with one clear sentence each, plus the design check they rely on
// (an opaque rectangular background: the border of the artwork is opaque and of one colour).
import type { Raster } from '../raster/types.js';
import { DPI_ERROR, IDEAL_DPI } from '../print/resolution.js';
import type { TransparencyVerdict } from './transparency.js';

/** Something about a mockup the caller should know (POST /mockup: X-Warnings), as a code and a sentence. */
export interface MockupWarning {
  /** Stable code a client may branch on. */
  code:
    | 'low_dpi' | 'dpi_below_300' | 'width_clamped' | 'opaque_background' | 'size_chest_unknown' | 'size_unspecified'
    | 'print_off_garment' | 'supplier_unavailable' | 'semi_transparent_art' | 'photo_unavailable';
  /** One sentence for a person. */
  message: string;
}

const fmt = (n: number) => String(Math.round(n * 100) / 100);

export function dpiWarning(dpi: number, widthIn: number, artPx: number): MockupWarning | null {
  if (dpi < DPI_ERROR) {
    return { code: 'low_dpi', message: `The artwork is ${artPx} px wide, only ${Math.round(dpi)} DPI at ${fmt(widthIn)} in; DTF needs at least ${DPI_ERROR} DPI (${IDEAL_DPI} is ideal), so expect a soft or pixelated print: send a larger file or print smaller.` };
  }
  // the code names 300: it is part of the contract, whatever IDEAL_DPI becomes
  if (dpi < IDEAL_DPI) {
    return { code: 'dpi_below_300', message: `The artwork is ${Math.round(dpi)} DPI at ${fmt(widthIn)} in; that prints acceptably, but ${IDEAL_DPI} DPI is ideal for sharp DTF edges.` };
  }
  return null;
}

export function clampWarning(asked: number, max: number, placementName: string): MockupWarning {
  return { code: 'width_clamped', message: `A print width of ${fmt(asked)} in is wider than the ${placementName} maximum of ${fmt(max)} in; the print was clamped to ${fmt(max)} in.` };
}

export function chestWarning(size: string): MockupWarning {
  return { code: 'size_chest_unknown', message: `No chest measurement is published for size ${size}; the garment is shown at its reference size, so the true scale is approximate.` };
}

export function sizeUnspecifiedWarning(refChestIn: number): MockupWarning {
  return { code: 'size_unspecified', message: `No size was given, so the print is shown against a ${fmt(refChestIn)} in chest (a men's L); send size for the true scale on the size you will order.` };
}

const FIX_ADVICE: Record<Exclude<TransparencyVerdict['recommended'], 'none'>, string> = {
  halftone: 'the scan recommends fix_halftone=true (halftone dots keep the glow or fade)',
  remove: 'the scan recommends fix_alpha_threshold=true (cuts the soft edge so it prints crisp)',
  either: 'the scan recommends either fix_alpha_threshold=true (crisp edges) or fix_halftone=true (keeps the soft look)',
};

/** Semi-transparent art: DTF prints it as solid film or drops it, unless fixed; says which fix the scan recommends. */
export function semiTransparentWarning(v: TransparencyVerdict, previewed: string | null): MockupWarning | null {
  if (v.recommended === 'none') return null;
  const shown = previewed ? ` This mockup previews ${previewed}.` : ' Preview it with preview_fix=auto.';
  return {
    code: 'semi_transparent_art',
    message: `${fmt(v.semi_transparent_percent)}% of the artwork's visible pixels are semi-transparent (soft rim ${fmt(v.soft_rim_px)} px); DTF film cannot print partial transparency, so as sent they print as solid film or drop out, and this mockup shows them softer than they will print: ${FIX_ADVICE[v.recommended]}. ${v.reason}${shown}`,
  };
}

export function photoWarning(reason: string): MockupWarning {
  return { code: 'photo_unavailable', message: `The supplier's garment photo could not be used (${reason}); the garment is drawn with the service's own blank of that kind in the supplier's colour instead.` };
}

export function backgroundWarning(hex: string): MockupWarning {
  return { code: 'opaque_background', message: `The design has an opaque ${hex} background box; it will print as a solid rectangle: remove the background first (transparent PNG).` };
}

export function offGarmentWarning(pct: number): MockupWarning {
  return { code: 'print_off_garment', message: `About ${Math.round(pct)}% of the design falls outside the garment at this size and position; move it up or print smaller.` };
}

/**
 * Detect an opaque background box: at least 90% of the border pixels are opaque and within a small
 * colour distance of their median colour. Returns the box colour as #rrggbb, or null.
 */
export function detectBackgroundBox(r: Raster): string | null {
  const { width: w, height: h, data } = r;
  if (w < 4 || h < 4) return null;
  const idx: number[] = [];
  const step = Math.max(1, Math.floor((w + h) / 400));
  for (let x = 0; x < w; x += step) idx.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y += step) idx.push(y * w, y * w + w - 1);
  const rs: number[] = [], gs: number[] = [], bs: number[] = [];
  let opaque = 0;
  for (const i of idx) {
    if (data[i * 4 + 3]! >= 250) {
      opaque++;
      rs.push(data[i * 4]!); gs.push(data[i * 4 + 1]!); bs.push(data[i * 4 + 2]!);
    }
  }
  if (opaque < idx.length * 0.9) return null;
  const med = (a: number[]) => a.sort((p, q) => p - q)[a.length >> 1]!;
  const mr = med(rs.slice()), mg = med(gs.slice()), mb = med(bs.slice());
  let near = 0;
  for (let k = 0; k < rs.length; k++) {
    if (Math.abs(rs[k]! - mr) + Math.abs(gs[k]! - mg) + Math.abs(bs[k]! - mb) <= 36) near++;
  }
  if (near < idx.length * 0.9) return null;
  return '#' + [mr, mg, mb].map((v) => v.toString(16).padStart(2, '0')).join('');
}
