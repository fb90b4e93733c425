// Classes of an artwork's soft rim (alpha/stats.ts measures its width): anti-aliasing, a thin soft rim, a wide
// glow that is part of the design. The scan's recommendation and the alpha threshold's decontamination both
// judge edges by them, so they live here, below both.

/** Rim widths (px) that separate anti-aliasing, thin soft rims and wide glows. */
export const RIM_AA_PX = 1.6;
export const RIM_THIN_PX = 3;
export const RIM_WIDE_PX = 6;
/** Below this rim width the alpha is essentially binary (no anti-aliasing). */
export const RIM_HARD_PX = 0.35;
