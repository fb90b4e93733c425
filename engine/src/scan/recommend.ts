// The transparency-fix recommendation and the edge-quality rating, from the soft-rim width, the matte
// (halo) test and the share of ink carried by semi-transparent pixels. Thresholds are in px of rim width:
//   rim <= 1.6 (anti-aliasing) and no halo          -> none
//   halo colour and rim <= 6                        -> remove
//   rim <= 3 (thin soft rim)                        -> remove
//   rim > 6 and semi pixels carry >= 5 % of the ink
//     or make up >= 25 % of the visible pixels      -> halftone (a glow or fade that is part of the design)
//   otherwise                                       -> either
import type { AlphaStats } from '../alpha/stats.js';
import type { FringeReport } from '../alpha/fringe.js';
import { RIM_AA_PX, RIM_HARD_PX, RIM_THIN_PX, RIM_WIDE_PX } from '../alpha/rim.js';
import type { EdgeQuality, Recommendation } from './types.js';

/** Share of ink in semi-transparent pixels, or of visible pixels, above which a wide rim is part of the design. */
export const SEMI_INK_DESIGN_SHARE = 0.05;
export const SEMI_AREA_DESIGN_SHARE = 0.25;
/** Share of binary edge steps that are staircase corners above which hard edges read as jagged. */
export const STAIR_SHARE = 0.15;

export function recommend(s: AlphaStats, f: FringeReport): { recommended: Recommendation; reason: string } {
  const rim = s.softRimPx.toFixed(1);
  if (s.semi === 0) return { recommended: 'none', reason: 'No semi-transparent pixels: every pixel is fully opaque or fully transparent, so the edges print exactly as they are.' };
  if (s.edgeLength === 0) {
    return { recommended: 'halftone', reason: 'The artwork is semi-transparent throughout with no edge; halftone dots print its transparency faithfully.' };
  }
  const semiInk = s.ink > 0 ? s.semiInk / s.ink : 0;
  if (f.hasHalo && s.softRimPx <= RIM_WIDE_PX) {
    return { recommended: 'remove', reason: `Edge pixels carry a leftover background (matte) colour that would print as a halo; an alpha threshold cuts the ${rim} px rim and decontaminates the edge colours.` };
  }
  if (s.softRimPx <= RIM_AA_PX) {
    return { recommended: 'none', reason: `The semi-transparent pixels are normal anti-aliasing (soft rim ${rim} px) with the art's own colours; the edges print clean.` };
  }
  if (s.softRimPx <= RIM_THIN_PX) {
    return { recommended: 'remove', reason: `The edges have a thin soft rim (${rim} px, wider than anti-aliasing) that would print as a faint halo; an alpha threshold makes them crisp.` };
  }
  const semiArea = s.semi / Math.max(1, s.pixels - s.transparent);
  if (s.softRimPx > RIM_WIDE_PX && (semiInk >= SEMI_INK_DESIGN_SHARE || semiArea >= SEMI_AREA_DESIGN_SHARE)) {
    return { recommended: 'halftone', reason: `Wide soft areas (rim ${rim} px, ${(semiArea * 100).toFixed(0)}% of the visible pixels, ${(semiInk * 100).toFixed(0)}% of the ink) such as glows, shadows or fades carry the design; halftone dots keep them, a threshold would cut them off.` };
  }
  return { recommended: 'either', reason: `The edges are moderately soft (rim ${rim} px): an alpha threshold gives crisp edges, halftone dots keep the soft look.` };
}

/**
 * Edge rating: `fringed` (matte colour in the edge), `soft` (rim wider than anti-aliasing), `jagged`
 * (binary alpha with staircase curves), `clean` (anti-aliased or straight binary edges, or no edges).
 */
export function rateEdges(s: AlphaStats, f: FringeReport): EdgeQuality {
  if (f.hasHalo) return 'fringed';
  if (s.softRimPx > RIM_AA_PX) return 'soft';
  if (s.edgeLength > 0 && s.softRimPx < RIM_HARD_PX && s.hardSteps >= 64 && s.stairCorners / s.hardSteps >= STAIR_SHARE) return 'jagged';
  return 'clean';
}
