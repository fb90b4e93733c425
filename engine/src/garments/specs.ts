// The service's own blanks as data: styles, flat chest width and body length per size (inches), the
// measurements the silhouette is built from, the colour list, and the print placements (DTF industry
// defaults: width, maximum width and distance from the collar, in inches).
// Chest widths are flat (pit-to-pit) garment measurements as published on typical size charts of
// ring-spun crew tees, fitted women's tees, long-sleeve tees and 50/50 pullover hoodies.

/** A print placement identifier (spec 4.12). */
export type PlacementId =
  | 'left-chest' | 'right-chest' | 'center-chest' | 'full-front' | 'oversized'
  | 'back-neck' | 'upper-back' | 'full-back';

/** The side of a garment a mockup shows. */
export type View = 'front' | 'back';

/** A placement's defaults and limits, in inches. */
export interface PlacementSpec {
  id: PlacementId;
  name: string;
  view: View;
  default_width_in: number;
  max_width_in: number;
  /** Inches from the collar seam (centre front or centre back) to the top of the design. */
  default_top_in: number;
  /** Default sideways offset of the design centre from the centre line; positive = right of the photo. */
  default_offset_x_in: number;
}

/** Every print placement by id: where on the garment it sits and its largest print size. */
export const PLACEMENTS: Readonly<Record<PlacementId, PlacementSpec>> = Object.freeze({
  // Wearer's left chest appears on the right of a front photo: positive offset.
  'left-chest': { id: 'left-chest', name: 'Left Chest', view: 'front', default_width_in: 3.5, max_width_in: 4.5, default_top_in: 3, default_offset_x_in: 4 },
  'right-chest': { id: 'right-chest', name: 'Right Chest', view: 'front', default_width_in: 3.5, max_width_in: 4.5, default_top_in: 3, default_offset_x_in: -4 },
  'center-chest': { id: 'center-chest', name: 'Center Chest', view: 'front', default_width_in: 8, max_width_in: 10, default_top_in: 3, default_offset_x_in: 0 },
  'full-front': { id: 'full-front', name: 'Full Front', view: 'front', default_width_in: 11, max_width_in: 12, default_top_in: 3, default_offset_x_in: 0 },
  oversized: { id: 'oversized', name: 'Oversized Front', view: 'front', default_width_in: 13, max_width_in: 15, default_top_in: 2.5, default_offset_x_in: 0 },
  'back-neck': { id: 'back-neck', name: 'Back Neck', view: 'back', default_width_in: 2.5, max_width_in: 3, default_top_in: 0.75, default_offset_x_in: 0 },
  'upper-back': { id: 'upper-back', name: 'Upper Back', view: 'back', default_width_in: 10, max_width_in: 14, default_top_in: 3, default_offset_x_in: 0 },
  'full-back': { id: 'full-back', name: 'Full Back', view: 'back', default_width_in: 12, max_width_in: 14, default_top_in: 3.5, default_offset_x_in: 0 },
});

/** The placement ids, in catalogue order (the values of the mockup `placement` option). */
export const PLACEMENT_IDS = Object.keys(PLACEMENTS) as PlacementId[];

/** Silhouette family: which outline builder draws the garment. */
export type Silhouette = 'tee' | 'long-sleeve' | 'hoodie';

/**
 * Measurements at the reference size, inches, garment lying flat. y grows downward from the high point
 * of the shoulder (where the shoulder seam meets the collar).
 */
export interface ShapeSpec {
  /** Flat chest width (half the chest circumference), 1 in below the underarm. */
  chest: number;
  /** Body length from the high point of the shoulder to the hem. */
  length: number;
  /** Shoulder seam to shoulder seam. */
  shoulder: number;
  /** Vertical drop of the shoulder point below the high point. */
  shoulder_drop: number;
  /** Neck opening width, seam to seam. */
  neck: number;
  /** Front neck drop to the collar seam at centre front. */
  front_drop: number;
  /** Back neck drop to the collar seam at centre back. */
  back_drop: number;
  /** Collar rib width. */
  collar_rib: number;
  /** Sleeve length from the shoulder point along its top edge. */
  sleeve: number;
  /** Sleeve angle below the horizontal, degrees. */
  sleeve_angle: number;
  /** Flat width of the sleeve end (opening or cuff). */
  sleeve_end: number;
  /** Height of a ribbed cuff (0 = hemmed sleeve). */
  cuff_rib: number;
  /** Underarm depth below the high point. */
  armhole: number;
  /** Flat width at the hem. */
  hem: number;
  /** Flat width at the waist (fitted cuts), at waist_y; equal to chest for straight cuts. */
  waist: number;
  waist_y: number;
  /** Height of a ribbed waistband (0 = hemmed). */
  hem_rib: number;
}

/** A garment colour: its id (the mockup `color` option), display name and `#rrggbb`. */
export interface GarmentColor {
  id: string;
  name: string;
  hex: string;
  /** Heather: the second yarn and its share (two-yarn speckle). */
  heather?: { hex2: string; share: number };
}

/** The colours every own blank comes in. */
export const OWN_COLORS: readonly GarmentColor[] = Object.freeze([
  { id: 'black', name: 'Black', hex: '#1b1b1d' },
  { id: 'white', name: 'White', hex: '#f6f6f3' },
  { id: 'navy', name: 'Navy', hex: '#1e2840' },
  { id: 'heather-grey', name: 'Heather Grey', hex: '#aaaaa8', heather: { hex2: '#858584', share: 0.42 } },
  { id: 'red', name: 'Red', hex: '#b01c28' },
  { id: 'royal', name: 'Royal', hex: '#1d4aa3' },
  { id: 'forest', name: 'Forest Green', hex: '#1f3b2a' },
  { id: 'sand', name: 'Sand', hex: '#d9c8a7' },
  { id: 'charcoal', name: 'Charcoal', hex: '#3b3b3e' },
  { id: 'maroon', name: 'Maroon', hex: '#561a24' },
]);

/**
 * A garment of the own catalogue (drawn by the engine, no supplier needed): sizes and measurements, the
 * placements it offers and its colours. Field names are those of GET /api/v1/garments.
 */
export interface OwnStyle {
  /** Style id within the own catalogue, e.g. `classic-tee`; the key is `own:<id>`. */
  id: string;
  key: string;
  brand: string;
  style_number: string;
  title: string;
  category: string;
  silhouette: Silhouette;
  sizes: readonly string[];
  /** Flat chest width per size, inches. */
  chest_by_size_in: Readonly<Record<string, number>>;
  /** Body length per size, inches. */
  length_by_size_in: Readonly<Record<string, number>>;
  /** Size the silhouette is drawn at. */
  ref_size: string;
  shape: ShapeSpec;
  placements: readonly PlacementId[];
  colors: readonly GarmentColor[];
  /** Shown when /garments is called without q. */
  featured: boolean;
}

const ALL_PLACEMENTS = PLACEMENT_IDS;

function style(s: Omit<OwnStyle, 'key' | 'colors'>): OwnStyle {
  return Object.freeze({ ...s, key: `own:${s.id}`, colors: OWN_COLORS });
}

/** The own catalogue: the styles `mockup` draws itself (`style: 'own:<id>'`). */
export const OWN_STYLES: readonly OwnStyle[] = Object.freeze([
  style({
    id: 'classic-tee', brand: 'inkprep', style_number: 'IP100', title: 'Classic Crew Neck T-Shirt', category: 'T-Shirts',
    silhouette: 'tee', featured: true,
    sizes: ['XS', 'S', 'M', 'L', 'XL', '2XL', '3XL'],
    chest_by_size_in: { XS: 16.5, S: 18, M: 20, L: 22, XL: 24, '2XL': 26, '3XL': 28 },
    length_by_size_in: { XS: 27, S: 28, M: 29, L: 30, XL: 31, '2XL': 32, '3XL': 33 },
    ref_size: 'L',
    shape: {
      chest: 22, length: 30, shoulder: 20.5, shoulder_drop: 1.7, neck: 7.4, front_drop: 3.7, back_drop: 1.1, collar_rib: 0.8,
      sleeve: 8.9, sleeve_angle: 31, sleeve_end: 7.6, cuff_rib: 0, armhole: 10.2, hem: 22.2, waist: 22, waist_y: 18, hem_rib: 0,
    },
    placements: ALL_PLACEMENTS,
  }),
  style({
    id: 'womens-tee', brand: 'inkprep', style_number: 'IP200', title: "Women's Fitted Crew T-Shirt", category: 'T-Shirts',
    silhouette: 'tee', featured: true,
    sizes: ['XS', 'S', 'M', 'L', 'XL', '2XL'],
    chest_by_size_in: { XS: 15.5, S: 16.5, M: 17.5, L: 19, XL: 20.5, '2XL': 22 },
    length_by_size_in: { XS: 25, S: 26, M: 26.75, L: 27.5, XL: 28.25, '2XL': 29 },
    ref_size: 'M',
    shape: {
      chest: 17.5, length: 26.75, shoulder: 15.2, shoulder_drop: 1.5, neck: 7.2, front_drop: 3.4, back_drop: 1.0, collar_rib: 0.6,
      sleeve: 6.4, sleeve_angle: 27, sleeve_end: 5.3, cuff_rib: 0, armhole: 8.4, hem: 18.2, waist: 16.2, waist_y: 15, hem_rib: 0,
    },
    placements: ['left-chest', 'right-chest', 'center-chest', 'full-front', 'back-neck', 'upper-back', 'full-back'],
  }),
  style({
    id: 'long-sleeve-tee', brand: 'inkprep', style_number: 'IP300', title: 'Long Sleeve Crew T-Shirt', category: 'Long Sleeve',
    silhouette: 'long-sleeve', featured: true,
    sizes: ['S', 'M', 'L', 'XL', '2XL', '3XL'],
    chest_by_size_in: { S: 18, M: 20, L: 22, XL: 24, '2XL': 26, '3XL': 28 },
    length_by_size_in: { S: 28, M: 29, L: 30, XL: 31, '2XL': 32, '3XL': 33 },
    ref_size: 'L',
    shape: {
      chest: 22, length: 30, shoulder: 20.5, shoulder_drop: 1.7, neck: 7.4, front_drop: 3.7, back_drop: 1.1, collar_rib: 0.8,
      sleeve: 24.5, sleeve_angle: 67, sleeve_end: 4.4, cuff_rib: 2.4, armhole: 10.2, hem: 22.2, waist: 22, waist_y: 18, hem_rib: 0,
    },
    placements: ALL_PLACEMENTS,
  }),
  style({
    id: 'hoodie', brand: 'inkprep', style_number: 'IP500', title: 'Pullover Hooded Sweatshirt', category: 'Sweatshirts',
    silhouette: 'hoodie', featured: true,
    sizes: ['S', 'M', 'L', 'XL', '2XL', '3XL'],
    chest_by_size_in: { S: 20, M: 22, L: 24, XL: 26, '2XL': 28, '3XL': 30 },
    length_by_size_in: { S: 27, M: 28, L: 29, XL: 30, '2XL': 31, '3XL': 32 },
    ref_size: 'L',
    shape: {
      chest: 24, length: 29, shoulder: 23, shoulder_drop: 2.1, neck: 8.2, front_drop: 3.4, back_drop: 1.2, collar_rib: 0,
      sleeve: 23, sleeve_angle: 64, sleeve_end: 4.1, cuff_rib: 2.8, armhole: 11.4, hem: 22.2, waist: 23.6, waist_y: 20, hem_rib: 2.8,
    },
    placements: ['left-chest', 'right-chest', 'center-chest', 'full-front', 'upper-back', 'full-back'],
  }),
]);

/** Find an own style by id (`classic-tee`) or key (`own:classic-tee`). */
export function findOwnStyle(idOrKey: string): OwnStyle | undefined {
  const id = idOrKey.startsWith('own:') ? idOrKey.slice(4) : idOrKey;
  return OWN_STYLES.find((s) => s.id === id);
}

/** Match a colour by id or name (case-insensitive, spaces/hyphens/underscores ignored). */
export function findColor<C extends { id: string; name: string }>(colors: readonly C[], idOrName: string): C | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '').replace('gray', 'grey');
  const want = norm(idOrName);
  return colors.find((c) => c.id === idOrName) ?? colors.find((c) => norm(c.id) === want || norm(c.name) === want);
}

/** Default colour: black when the style has it, else the first colour. */
export function defaultColor<C extends { id: string; name: string }>(colors: readonly C[]): C | undefined {
  return findColor(colors, 'black') ?? colors[0];
}

/**
 * A supplier's style as the catalog resolved it, passed to the mockup op (option `supplier_style`).
 * The mockup is drawn on the supplier's photo of the colour (fetched by the HTTP adapter, option
 * `garment_photo`); without one, with the silhouette of the own style `base` in the supplier's colour, at
 * the supplier's chest spec. Never carries prices.
 */
export interface SupplierGarment {
  key: string;
  brand: string;
  style_number: string;
  title: string;
  category: string;
  /** Own style id whose silhouette is used (see baseStyleFor). */
  base: string;
  /** The supplier's colours; `images` are the addresses of its garment photos (the mockup draws on them). */
  colors: { id: string; name: string; hex: string; images?: { front: string | null; back: string | null } }[];
  sizes: string[];
  /** Flat chest width per size, inches, for the sizes the supplier publishes specs for. */
  chest_by_size_in: Record<string, number>;
}

/** Which own silhouette best matches a supplier category/title. */
export function baseStyleFor(category: string, title: string): string {
  const t = `${category} ${title}`.toLowerCase();
  if (/hood|sweatshirt|fleece|pullover/.test(t)) return 'hoodie';
  if (/long[\s-]?sleeve|\bl\/s\b/.test(t)) return 'long-sleeve-tee';
  if (/women|ladies|woman|junior|fitted/.test(t)) return 'womens-tee';
  return 'classic-tee';
}

/** Placements valid for a silhouette. */
export function placementsFor(baseId: string): readonly PlacementId[] {
  return findOwnStyle(baseId)?.placements ?? PLACEMENT_IDS;
}
