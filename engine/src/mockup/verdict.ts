// The scan's transparency verdict on a mockup's artwork, judged once per artwork (by the hash of its bytes)
// and only when the print-size design shows semi-transparency at all (see transparency.ts).
import type { Raster } from '../raster/types.js';
import type { DesignSource } from './design-source.js';
import { ANALYSIS_PX, judgeTransparency, looksSemiTransparent, type TransparencyVerdict } from './transparency.js';

/** Transparency verdicts by artwork key (small: one entry per recent design). */
const verdicts = new Map<string, TransparencyVerdict>();

/** The scan's transparency verdict on the artwork, or null when the print-size design shows none. */
export async function transparencyOf(design: DesignSource, sized: Raster): Promise<TransparencyVerdict | null> {
  const hit = design.key ? verdicts.get(design.key) : undefined;
  if (hit) return hit;
  if (!looksSemiTransparent(sized)) return null;
  const aw = Math.min(design.width, ANALYSIS_PX);
  const ah = Math.max(1, Math.round((design.height * aw) / design.width));
  const v = judgeTransparency(await design.resized(aw, ah), design.width);
  if (design.key) {
    if (verdicts.size >= 64) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(design.key, v);
  }
  return v;
}
