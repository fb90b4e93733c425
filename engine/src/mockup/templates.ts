// Legacy mockup templates (spec 2.6, 4.9, 9): fixed garment pictures with named placement boxes. They are
// views of the own blanks, so each box has a true size in inches; the legacy mode fits the design inside
// the box (times `scale`), centred horizontally and aligned to the top of the box.
import { drawGarment } from '../garments/outline.js';
import { canvasOf } from '../garments/shade.js';
import { findOwnStyle, PLACEMENTS, type PlacementId, type View } from '../garments/specs.js';

export interface TemplatePlacement {
  id: string;
  name: string;
  /** The true-to-size placement whose position and maximum width make the box. */
  placement: PlacementId;
  /** Box size in inches. */
  box_w_in: number;
  box_h_in: number;
}

/** A legacy mockup template (the `template_id` option): a style, colour and view with named print boxes. */
export interface TemplateDef {
  id: string;
  name: string;
  category: string;
  /** Own style id, colour id and view drawn. */
  style: string;
  color: string;
  view: View;
  placements: TemplatePlacement[];
}

const FRONT: TemplatePlacement[] = [
  { id: 'center', name: 'Center', placement: 'center-chest', box_w_in: 10, box_h_in: 12 },
  { id: 'left-chest', name: 'Left Chest', placement: 'left-chest', box_w_in: 4.5, box_h_in: 4.5 },
  { id: 'right-chest', name: 'Right Chest', placement: 'right-chest', box_w_in: 4.5, box_h_in: 4.5 },
  { id: 'full-front', name: 'Full Front', placement: 'full-front', box_w_in: 12, box_h_in: 14 },
];
const HOODIE_FRONT = FRONT.map((p) => (p.id === 'full-front' ? { ...p, box_h_in: 10 } : p.id === 'center' ? { ...p, box_h_in: 9 } : p));
const BACK: TemplatePlacement[] = [
  { id: 'back-neck', name: 'Back Neck', placement: 'back-neck', box_w_in: 3, box_h_in: 3 },
  { id: 'upper-back', name: 'Upper Back', placement: 'upper-back', box_w_in: 12, box_h_in: 5 },
  { id: 'full-back', name: 'Full Back', placement: 'full-back', box_w_in: 14, box_h_in: 16 },
];

export const TEMPLATES: readonly TemplateDef[] = Object.freeze([
  { id: 'tee-white', name: 'White T-Shirt', category: 't-shirt', style: 'classic-tee', color: 'white', view: 'front', placements: FRONT },
  { id: 'tee-black', name: 'Black T-Shirt', category: 't-shirt', style: 'classic-tee', color: 'black', view: 'front', placements: FRONT },
  { id: 'tee-heather-grey', name: 'Heather Grey T-Shirt', category: 't-shirt', style: 'classic-tee', color: 'heather-grey', view: 'front', placements: FRONT },
  { id: 'tee-navy', name: 'Navy T-Shirt', category: 't-shirt', style: 'classic-tee', color: 'navy', view: 'front', placements: FRONT },
  { id: 'tee-black-back', name: 'Black T-Shirt (Back)', category: 't-shirt', style: 'classic-tee', color: 'black', view: 'back', placements: BACK },
  { id: 'womens-tee-white', name: "Women's White T-Shirt", category: 't-shirt', style: 'womens-tee', color: 'white', view: 'front', placements: FRONT },
  { id: 'long-sleeve-black', name: 'Black Long Sleeve T-Shirt', category: 'long-sleeve', style: 'long-sleeve-tee', color: 'black', view: 'front', placements: FRONT },
  { id: 'hoodie-black', name: 'Black Hoodie', category: 'hoodie', style: 'hoodie', color: 'black', view: 'front', placements: HOODIE_FRONT },
  { id: 'hoodie-heather-grey', name: 'Heather Grey Hoodie', category: 'hoodie', style: 'hoodie', color: 'heather-grey', view: 'front', placements: HOODIE_FRONT },
]);

/** Native picture size of a template at a long side of `longSide` px. */
export function templateSize(t: TemplateDef, longSide = 2000): { width: number; height: number } {
  const style = findOwnStyle(t.style)!;
  const cv = canvasOf(drawGarment(style.silhouette, style.shape, t.view));
  const ppi = longSide / Math.max(cv.w_in, cv.h_in);
  return { width: Math.round(cv.w_in * ppi), height: Math.round(cv.h_in * ppi) };
}

/** The template list as GET /api/v1/mockup/templates returns it (spec 2.6). `previewUrl` maps an id to its address. */
export function listTemplates(previewUrl: (id: string) => string): {
  templates: { id: string; name: string; category: string; preview_url: string; width_px: number; height_px: number; placements: { id: string; name: string }[] }[];
} {
  return {
    templates: TEMPLATES.map((t) => {
      const { width, height } = templateSize(t);
      return { id: t.id, name: t.name, category: t.category, preview_url: previewUrl(t.id), width_px: width, height_px: height, placements: t.placements.map((p) => ({ id: p.id, name: p.name })) };
    }),
  };
}

/** Placement names are matched case-insensitively, ignoring spaces, hyphens and underscores. */
export function findTemplatePlacement(t: TemplateDef, idOrName: string): TemplatePlacement | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');
  return t.placements.find((p) => p.id === idOrName) ?? t.placements.find((p) => norm(p.name) === norm(idOrName) || norm(p.id) === norm(idOrName));
}

export { PLACEMENTS };
