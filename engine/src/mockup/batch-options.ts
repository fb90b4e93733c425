// The options of `mockupBatch` (one design on many garments, POST /api/v1/mockup/batch): the `items` list plus
// the mockup table's own field declarations (not copies) as the shared options every item starts from. Each
// item is resolved by the mockup resolver itself (resolve.ts), so an item means exactly what the same fields
// sent to POST /mockup mean; a mistake is `invalid_option` naming `items[i].<field>`. Batches are true-to-size
// only (a `style` per item or shared): the legacy template fields and `response` are not part of this table.
import { InkprepError, invalidOption } from '../errors.js';
import { custom } from '../options/fields.js';
import { readItemList } from '../options/item-list.js';
import { defineOptions, type LibOptions, type TableReader, type WireOptions } from '../options/table.js';
import { textOptions, type OptionReader } from '../options/validate.js';
import { isMarkedResolved } from '../options/resolved.js';
import { MOCKUP_OPTIONS, withGarmentPhoto, type ResolvedMockup } from './resolve.js';
import type { PlacementId, SupplierGarment, View } from '../garments/specs.js';
import { markResolved } from '../options/resolved.js';

/** Limits of a batch. */
export const MOCKUP_BATCH_LIMITS = Object.freeze({
  /** Items per batch: a style's colours times a view or two (the largest own style lists 12 colours). */
  maxItems: 50,
});

/** The fields an item may set, by wire name and library name. */
const ITEM_FIELDS = {
  style: 'style', color: 'color', placement: 'placement', view: 'view', size: 'size',
  print_width_in: 'printWidthIn', top_in: 'topIn', offset_x_in: 'offsetXIn',
} as const;
type ItemWire = keyof typeof ITEM_FIELDS;

/** Mockup fields that are not shared options of a batch (legacy mode, the answer's form, per-item extras). */
const NOT_SHARED = new Set(['response', 'template_id', 'garment', 'placement_id', 'scale', 'supplier_style', 'garment_photo', 'garment_photo_error']);
type MockupField = (typeof MOCKUP_OPTIONS.fields)[number];
type SharedField = Exclude<MockupField, { wire: 'response' | 'template_id' | 'garment' | 'placement_id' | 'scale' | 'supplier_style' | 'garment_photo' | 'garment_photo_error' }>;
const SHARED_FIELDS = MOCKUP_OPTIONS.fields.filter((f): f is SharedField => !NOT_SHARED.has(f.wire));

/**
 * One mockup of a batch as typed callers give it (camelCase or the JSON's snake_case names): the garment, where
 * the print goes and how large; unset fields take the batch's shared value, then the mockup's default.
 */
export interface MockupBatchItem {
  style?: string;
  color?: string;
  placement?: PlacementId;
  view?: View;
  size?: string;
  printWidthIn?: number;
  topIn?: number;
  offsetXIn?: number;
  print_width_in?: number;
  top_in?: number;
  offset_x_in?: number;
}

/** An item as the table reads it: fields as sent, or a mockup already resolved by the caller (the service's supplier styles). */
type ItemInput = MockupBatchItem | Readonly<ResolvedMockup>;

/** The list's shape, length and item fields (JSON text on HTTP and the CLI, an array in the library). */
function readItems(o: OptionReader, wire: string): ItemInput[] {
  return readItemList(o, wire, {
    expected: 'a list of mockups [{ "style": "own:classic-tee", "color": "black" }, ...]',
    item: 'an object { style, color, placement, view, size, print_width_in, top_in, offset_x_in }',
    fields: ITEM_FIELDS,
    libNames: 'typed',
    maxItems: MOCKUP_BATCH_LIMITS.maxItems,
    // the service's supplier styles: mockups it resolved itself
    prepared: (raw) => isMarkedResolved('mockup', raw),
  }, (raw) => raw as ItemInput);
}

const FIELDS = [
  custom<readonly ItemInput[], ItemInput[]>()('items', 'items', { spec: { kind: 'text' }, text: 'JSON', read: readItems },
    `the mockups as JSON, 1-${MOCKUP_BATCH_LIMITS.maxItems}: \`[{"style": "own:classic-tee", "color": "black"}, {"color": "white", "placement": "left-chest"}, ...]\`; each item takes style, color, placement, view, size, print_width_in, top_in, offset_x_in (as POST /mockup); what an item leaves out comes from the shared field of that name`),
  ...SHARED_FIELDS,
  // Typed extra the service sets (library only, never a form field or flag).
  custom<Readonly<Record<string, SupplierGarment>>, unknown>()('supplier_styles', 'supplierStyles', { spec: { kind: 'text' }, text: 'object', read: (o, w) => o.get(w) },
    'the supplier styles the items name, by style key, as the catalog resolved them', { surfaces: [] }),
] as const;

/** Options of `mockupBatch`: `items`, and the mockup options shared by every item (camelCase, or the contract's snake_case names). */
export type MockupBatchOptions = LibOptions<typeof FIELDS> | WireOptions<typeof FIELDS>;

/** `mockupBatch` options after validation: every item resolved as a single mockup would be. */
export interface ResolvedMockupBatch {
  items: readonly Readonly<ResolvedMockup>[];
}

/** The bag one item is resolved from: the shared fields as sent, overridden by the item's own. */
function itemBag(t: TableReader<typeof FIELDS>, item: MockupBatchItem): unknown {
  const bag: Record<string, unknown> = {};
  for (const f of SHARED_FIELDS) {
    const v = t.raw.get(f.wire);
    if (v !== undefined && v !== null) bag[f.wire] = v;
  }
  const suppliers = t.raw.get('supplier_styles');
  const it = item as Record<string, unknown>;
  for (const [wire, lib] of Object.entries(ITEM_FIELDS) as [ItemWire, string][]) {
    const v = it[wire] ?? it[lib];
    if (v === undefined || v === null) continue;
    if (it[wire] !== undefined && it[lib] !== undefined && wire !== lib) throw invalidOption(wire, `${lib} or ${wire}, not both`, v);
    // Text forms carry the list as JSON: numbers are numbers there, and the mockup resolver reads text.
    bag[wire] = t.raw.text && typeof v === 'number' ? String(v) : v;
  }
  const style = bag.style;
  if (typeof style === 'string' && suppliers && typeof suppliers === 'object' && Object.prototype.hasOwnProperty.call(suppliers, style)) {
    bag.supplier_style = (suppliers as Record<string, unknown>)[style];
  }
  return t.raw.text ? textOptions(bag) : bag;
}

/** The `mockupBatch` option table; its resolver throws `invalid_option` naming the field (`items[3].color`). */
export const MOCKUP_BATCH_OPTIONS = defineOptions(FIELDS, (t): ResolvedMockupBatch => {
  t.field('supplierStyles');
  // The shared fields first: a mistake there names the shared field, not an item.
  for (const f of SHARED_FIELDS) t.field(f.lib);
  const items = t.field('items').map((item, i) => {
    if (isMarkedResolved('mockup', item)) return item as Readonly<ResolvedMockup>;
    const it = item as MockupBatchItem;
    if ((it.style ?? t.raw.get('style')) == null) throw invalidOption(`items[${i}].style`, 'a style key (per item, or the shared style field): batches are true-to-size', undefined);
    try {
      return MOCKUP_OPTIONS.resolve(itemBag(t, it) as never);
    } catch (err) {
      if (err instanceof InkprepError && err.code === 'invalid_option' && typeof err.details.field === 'string') {
        const field = `items[${i}].${err.details.field}`;
        throw new InkprepError('invalid_option', `Item ${i}: ${err.message.replace(/ for [a-z_]+ but/, ` for ${field} but`)}`, { ...err.details, field });
      }
      throw err;
    }
  });
  return Object.freeze({ items: Object.freeze(items) });
});

/**
 * A resolved batch with the supplier's photos added, one per item (null: an own style, unchanged), as
 * withGarmentPhoto does for one mockup: the service resolves first to learn each item's colour and view.
 */
export function withGarmentPhotos<R extends Readonly<ResolvedMockupBatch>>(batch: R, photos: readonly ({ bytes: Uint8Array } | { error: string } | null)[]): R {
  const items = batch.items.map((it, i) => { const p = photos[i]; return p ? withGarmentPhoto(it, p) : it; });
  return markResolved('mockupBatch', Object.freeze({ ...batch, items: Object.freeze(items) })) as R;
}

/**
 * A resolved batch cut into at most `n` shares of consecutive items (for `n` workers side by side; each share
 * decodes the design once). Concatenating the shares' images gives the batch's, in item order.
 */
export function batchShares<R extends Readonly<ResolvedMockupBatch>>(batch: R, n: number): R[] {
  const k = Math.max(1, Math.min(Math.floor(n), batch.items.length));
  const out: R[] = [];
  for (let s = 0; s < k; s++) {
    const from = Math.floor((s * batch.items.length) / k), to = Math.floor(((s + 1) * batch.items.length) / k);
    out.push(markResolved('mockupBatch', Object.freeze({ ...batch, items: Object.freeze(batch.items.slice(from, to)) })) as R);
  }
  return out;
}
