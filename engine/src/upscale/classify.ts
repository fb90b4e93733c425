// Art classification for upscale routing, decided from the pixels alone (no file-format hints).
// Over the opaque pixels (alpha >= 128):
//  - top24: share covered by the 24 most frequent exact RGB colours. Flat art (logos, lettering, icons,
//    cel-shaded illustrations) is a handful of solid fills plus a thin ring of anti-aliased edge blends, so
//    top24 is >= 0.85 on every flat file of corpus/open at 256-512 px, and <= 0.64 on every gradient file.
//  - near24: share within one 5-bit bin (±8 levels per channel) of the 24 most frequent 5-bit bins. It
//    tolerates JPEG noise: clean JPEG saves of flat art score >= 0.97. Soft gradients can score as high
//    (0.99 on noto sun-face), so it only counts together with top24 >= 0.70 (gradients stay <= 0.64).
//  - colours: distinct exact RGB values. Smooth shading and photos have thousands.
// Rule: flat when top24 >= 0.82, or near24 >= 0.97 with top24 >= 0.70; otherwise painted when colours >= 512; otherwise other
// (few colours without dominant fills, e.g. dithered or posterised art: plain resampling suits it best).
// Images with fewer than 64 opaque pixels are `other`.
import type { Raster } from '../raster/types.js';

export type ArtClass = 'flat' | 'painted' | 'other';

export interface ArtStats {
  class: ArtClass;
  /** Share of opaque pixels in the 24 most frequent exact colours (0..1). */
  top24: number;
  /** Share of opaque pixels within one 5-bit bin of the 24 most frequent 5-bit bins (0..1). */
  near24: number;
  /** Distinct exact colours among opaque pixels. */
  colours: number;
  /** Opaque pixels (alpha >= 128). */
  opaque: number;
}

export const FLAT_TOP24 = 0.82;
export const FLAT_NEAR24 = 0.97;
/** near24 only decides when top24 is at least this (keeps soft gradients out of the vector path). */
export const FLAT_NEAR24_MIN_TOP24 = 0.7;
export const PAINTED_COLOURS = 512;

function topShare(counts: Map<number, number>, k: number): { share: number; keys: number[] } {
  const entries = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, k);
  let s = 0;
  for (const e of entries) s += e[1];
  return { share: s, keys: entries.map((e) => e[0]) };
}

/** Classify a raster for upscale routing (see the rule above). */
export function classifyArt(r: Raster): ArtStats {
  const { data } = r;
  const exact = new Map<number, number>();
  const bins = new Map<number, number>();
  let opaque = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3]! < 128) continue;
    opaque++;
    const red = data[i]!, g = data[i + 1]!, b = data[i + 2]!;
    const e = (red << 16) | (g << 8) | b;
    exact.set(e, (exact.get(e) ?? 0) + 1);
    const q = ((red >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
    bins.set(q, (bins.get(q) ?? 0) + 1);
  }
  if (opaque < 64) return { class: 'other', top24: 0, near24: 0, colours: exact.size, opaque };
  const top24 = topShare(exact, 24).share / opaque;
  const { keys } = topShare(bins, 24);
  let near = 0;
  for (const [q, c] of bins) {
    const r5 = q >> 10, g5 = (q >> 5) & 31, b5 = q & 31;
    for (const t of keys) {
      if (Math.abs((t >> 10) - r5) <= 1 && Math.abs(((t >> 5) & 31) - g5) <= 1 && Math.abs((t & 31) - b5) <= 1) {
        near += c;
        break;
      }
    }
  }
  const near24 = near / opaque;
  const cls: ArtClass = top24 >= FLAT_TOP24 || (near24 >= FLAT_NEAR24 && top24 >= FLAT_NEAR24_MIN_TOP24) ? 'flat' : exact.size >= PAINTED_COLOURS ? 'painted' : 'other';
  return { class: cls, top24, near24, colours: exact.size, opaque };
}
