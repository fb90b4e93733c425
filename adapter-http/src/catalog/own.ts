// The `own` supplier: the service's procedurally rendered blanks (engine garments/specs.ts). Always on.
import { OWN_STYLES, PLACEMENTS, type OwnStyle } from '@inkprep/engine';
import { matchesQuery, queryColors } from './search.js';
import type { Connector, StyleDetail, StylePlacement, StyleSummary } from './types.js';

/** Address of a rendered blank picture served by this service (GET /api/v1/mockup/preview). */
export function ownImageUrl(styleKey: string, color: string, view: 'front' | 'back', size: number): string {
  const q = new URLSearchParams({ style: styleKey, color, view, size: String(size) });
  return `/api/v1/mockup/preview?${q.toString()}`;
}

export function placementList(ids: readonly string[]): StylePlacement[] {
  return ids.map((id) => {
    const p = PLACEMENTS[id as keyof typeof PLACEMENTS];
    return { id: p.id, name: p.name, view: p.view, default_width_in: p.default_width_in, max_width_in: p.max_width_in, default_top_in: p.default_top_in };
  });
}

/** Kind words of an own style (what users call it), beside its title and category. */
const KINDS: Record<OwnStyle['silhouette'], string> = {
  tee: 'tee t-shirt short sleeve crew neck',
  'long-sleeve': 'tee t-shirt long sleeve crew neck',
  hoodie: 'hoodie hooded sweatshirt pullover fleece',
};

function searchable(s: OwnStyle) {
  return { fields: [s.brand, s.style_number, s.title, s.category, s.id, KINDS[s.silhouette]], colors: s.colors.map((c) => c.name) };
}

function summary(s: OwnStyle, q?: string): StyleSummary {
  // A query naming a colour shows the style in that colour.
  const named = q ? queryColors(q, searchable(s)) : [];
  const color = (named.length ? s.colors.find((c) => c.name === named[0]) : undefined)?.id ?? 'black';
  return {
    key: s.key, supplier: 'own', brand: s.brand, style_number: s.style_number, title: s.title, category: s.category,
    thumb: ownImageUrl(s.key, color, 'front', 400), color_count: s.colors.length,
  };
}

export function ownDetail(s: OwnStyle): StyleDetail {
  const code = (id: string) => id.replace(/[^a-z]/g, '').slice(0, 3).toUpperCase();
  return {
    key: s.key, supplier: 'own', brand: s.brand, style_number: s.style_number, title: s.title, category: s.category,
    sizes: [...s.sizes],
    chest_by_size_in: { ...s.chest_by_size_in },
    colors: s.colors.map((c) => ({
      id: c.id, name: c.name, hex: c.hex,
      images: { front: ownImageUrl(s.key, c.id, 'front', 1200), back: ownImageUrl(s.key, c.id, 'back', 1200) },
      sizes: s.sizes.map((z) => ({ size: z, sku: `${s.style_number}-${code(c.id)}-${z}`, in_stock: true })),
    })),
    placements: placementList(s.placements),
  };
}

export const ownConnector: Connector = {
  id: 'own',
  name: 'inkprep blanks',
  async search(q) {
    const list = q ? OWN_STYLES.filter((s) => matchesQuery(q, searchable(s))) : OWN_STYLES.filter((s) => s.featured);
    return list.map((s) => summary(s, q));
  },
  async style(id) {
    const s = OWN_STYLES.find((x) => x.id === id);
    return s ? ownDetail(s) : null;
  },
};
