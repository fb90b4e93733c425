// Shapes of the garment catalog (spec 2.7, 2.8) and the interface every blank supplier implements.
import type { PlacementSpec } from '@inkprep/engine';

/** What names a style, in a search result and in the full style alike. */
export interface StyleIdentity {
  /** `<supplier>:<style_id>`, passed to GET /garments/style and to POST /mockup `style`. */
  key: string;
  supplier: string;
  brand: string;
  style_number: string;
  title: string;
  category: string;
}

/** One style in a search result (spec 2.7). */
export interface StyleSummary extends StyleIdentity {
  /** Picture address (absolute for suppliers, a path of this service for own blanks). */
  thumb: string | null;
  /** Number of colours, null when the supplier did not say. */
  color_count: number | null;
}

export interface StyleColor {
  id: string;
  name: string;
  /** #rrggbb */
  hex: string;
  images: { front: string | null; back: string | null };
  sizes: { size: string; sku: string; in_stock: boolean }[];
}

/**
 * A placement as spec 2.8 lists it: the engine's placement without its default sideways offset (the contract
 * does not publish it; placementList picks the fields).
 */
export type StylePlacement = Omit<PlacementSpec, 'default_offset_x_in'>;

/** Full style (spec 2.8). Never carries prices. */
export interface StyleDetail extends StyleIdentity {
  sizes: string[];
  /** Flat chest width per size, inches; only sizes with a published, parseable spec. */
  chest_by_size_in: Record<string, number>;
  colors: StyleColor[];
  placements: StylePlacement[];
}

/** A blank supplier. Implementations throw on failure; the Catalog turns failures into warnings. */
export interface Connector {
  /** Identifier used in keys and in the `supplier` filter, e.g. `own`, `ss`. */
  readonly id: string;
  readonly name: string;
  /** Search styles; `q` undefined means featured blanks. */
  search(q: string | undefined, signal: AbortSignal): Promise<StyleSummary[]>;
  /** One style by its id (the part after `<supplier>:`); null when the supplier has no such style. */
  style(styleId: string, signal: AbortSignal): Promise<StyleDetail | null>;
}

/** Per-supplier outcome of a search (the `suppliers` field of 2.7). */
export interface SupplierStatus {
  id: string;
  name: string;
  status: 'ok' | 'unavailable';
  count: number;
  /** Why it was unavailable (timeout, HTTP status, malformed answer). */
  message?: string;
}

export interface CatalogWarning {
  code: 'supplier_unavailable';
  message: string;
}
