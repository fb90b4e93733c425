// POST /api/v1/mockup/batch: one design on many garments in one call (engine op `mockupBatch`: the design
// decoded once per task). The items are cut into one share per engine worker, run side by side (most of a
// mockup's time is colouring its blank, which no share can skip), so the design is decoded once per worker. The answer is JSON listing every mockup in item order with the 2.9 facts, its image hosted in
// the result storage (routes/hosted-output.ts), never inline. Metering counts one use per image, all reserved
// at admission; the call succeeds or fails whole (any failure releases every use: nothing is counted for a
// batch that answers an error). A synchronous answer holds at most SYNC_MAX_OUTPUT_PIXELS, a job (Prefer:
// respond-async, routes/image-route.ts) JOB_MAX_OUTPUT_PIXELS (413 batch_too_large beyond).
import { MOCKUP_BATCH_LIMITS, resolveOptions, type MockupResult, type Resolved, type SupplierGarment } from '@inkprep/engine';
// Internal: withGarmentPhotos adds the suppliers' photos to the resolved batch, batchShares cuts it for the
// workers; the parse helper reads the style field.
import { batchShares, validate, withGarmentPhotos } from '@inkprep/engine/internals';
import { fetchGarmentPhoto } from '../catalog/photos.js';
import { ServiceError } from '../errors/registry.js';
import { json } from '../http/reply.js';
import { mockupWire } from '../http/wire.js';
import type { AppServices } from '../services.js';
import { formOptions, postImageRoute, type RouteDef } from './define.js';
import { catalogOf } from './garment-style.js';
import { hostOutput, type HostedOutput } from './hosted-output.js';

/**
 * Output pixels (items x output_size², the square bound of each image) a synchronous answer renders at most:
 * ten mockups at the default 2000 px. Rendering holds every encoded image until the last is done, and the
 * client holds its connection for all of them.
 */
export const SYNC_MAX_OUTPUT_PIXELS = 10 * 2000 * 2000;
/** The same bound for a batch run as a job (`Prefer: respond-async`): fifty mockups at 2000 px. */
export const JOB_MAX_OUTPUT_PIXELS = 50 * 2000 * 2000;

/** The form once validated: resolved (own styles only), or the supplier styles to fetch first. */
interface BatchFields {
  fields: Record<string, string>;
  resolved: Resolved<'mockupBatch'> | null;
  /** Supplier style keys the items name (resolved from the catalog in the handler). */
  suppliers: string[];
  /** Items in the list (the uses the call counts). */
  count: number;
}

const isSupplierKey = (s: unknown): s is string => typeof s === 'string' && s.includes(':') && !/^own:/i.test(s);

/** The supplier style keys of the list (empty when it cannot be read: the resolver then names the mistake). */
function supplierKeys(fields: Record<string, string>): { keys: string[]; count: number } {
  let items: unknown;
  try {
    items = JSON.parse(fields.items ?? '');
  } catch {
    return { keys: [], count: 0 };
  }
  if (!Array.isArray(items) || items.length > MOCKUP_BATCH_LIMITS.maxItems) return { keys: [], count: 0 };
  const shared = validate.textValue('style', fields.style);
  const keys = new Set<string>();
  for (const it of items) {
    const style = it && typeof it === 'object' && 'style' in it ? (it as { style: unknown }).style : shared;
    if (isSupplierKey(style)) keys.add(style.trim());
  }
  return { keys: [...keys], count: items.length };
}

function validateBatch(fields: Record<string, string>): BatchFields {
  const { keys, count } = supplierKeys(fields);
  if (keys.length > 0) return { fields, resolved: null, suppliers: keys, count };
  const resolved = resolveOptions('mockupBatch', formOptions('mockupBatch', fields));
  return { fields, resolved, suppliers: [], count: resolved.items.length };
}

/** Resolve the batch, fetching the supplier styles it names, and attach each supplier item's photo. */
async function resolveBatch(app: AppServices, v: BatchFields, signal: AbortSignal): Promise<Resolved<'mockupBatch'>> {
  if (v.resolved) return v.resolved;
  const styles: Record<string, SupplierGarment> = {};
  for (const key of v.suppliers) {
    const g = await catalogOf(app).garmentFor(key, signal);
    if (g) styles[key] = g;
  }
  const batch = resolveOptions('mockupBatch', formOptions('mockupBatch', v.fields, { supplier_styles: styles }));
  // Each supplier item is drawn on the supplier's photo of its colour and view, fetched once per URL.
  const fetched = new Map<string, Promise<{ bytes: Uint8Array } | { error: string }>>();
  const photos = await Promise.all(batch.items.map(async (r) => {
    const sup = styles[r.garmentKey];
    if (!sup) return null;
    const url = sup.colors.find((c) => c.id === r.color.id)?.images?.[r.view] ?? null;
    if (!url) return { error: `the supplier lists no ${r.view} photo for ${r.color.name}` };
    let p = fetched.get(url);
    if (!p) {
      p = fetchGarmentPhoto(url, app.config.catalog.supplierTimeoutMs, signal).then((got) => (got.ok ? { bytes: got.bytes } : { error: got.reason }));
      fetched.set(url, p);
    }
    return p;
  }));
  return withGarmentPhotos(batch, photos);
}

/** 413 when the batch is larger than a synchronous answer (or a job) may be. */
function checkSize(batch: Resolved<'mockupBatch'>, job: boolean): void {
  const pixels = batch.items.reduce((s, it) => s + it.outputSize * it.outputSize, 0);
  const max = job ? JOB_MAX_OUTPUT_PIXELS : SYNC_MAX_OUTPUT_PIXELS;
  if (pixels > max) {
    const advice = job ? 'send fewer items or a smaller output_size, or split the list' : `send it with the header Prefer: respond-async (a job renders up to ${JOB_MAX_OUTPUT_PIXELS / 1e6}), or fewer items or a smaller output_size`;
    throw new ServiceError('batch_too_large',
      `This batch would render up to ${Math.round(pixels / 1e6)} megapixels of mockups (${batch.items.length} items at their output_size); ${job ? 'a job' : 'a synchronous answer'} renders at most ${max / 1e6}: ${advice}`,
      { max_output_pixels: max, output_pixels: pixels, items: batch.items.length });
  }
}

/** One image of the answer: the 2.9 facts, and the image by URL. */
function itemWire(index: number, r: MockupResult, hosted: HostedOutput) {
  return {
    index,
    ...mockupWire(r),
    image: {
      content_type: r.contentType,
      width: r.width,
      height: r.height,
      url: hosted.url,
      hosted_by: hosted.hostedBy,
      url_expires: hosted.expires,
      ...(hosted.expires ? { url_expires_at: new Date(hosted.expiresAt).toISOString() } : {}),
    },
  };
}

/** POST /api/v1/mockup/batch. */
export const mockupBatchRoute: RouteDef = postImageRoute<BatchFields>({
  path: '/api/v1/mockup/batch',
  endpoint: 'mockup-batch',
  options: 'mockupBatch',
  validate: validateBatch,
  uses: (v) => Math.max(1, v.count),
  async handle({ app, image, options, signal, ex, job }) {
    const batch = await resolveBatch(app, options, signal);
    checkSize(batch, job === true);
    // One share per engine worker, side by side (each decodes the design once); the images keep item order.
    const shares = batchShares(batch, app.engine.stats().threads);
    const parts = await Promise.all(shares.map((share) => app.engine.mockupBatch(image, share, { signal })));
    const out = { images: parts.flatMap((p) => p.images) };
    const hosted = await Promise.all(out.images.map((r) => hostOutput(app, ex.log, { bytes: r.data, contentType: r.contentType })));
    const reply = json({ count: out.images.length, images: out.images.map((r, i) => itemWire(i, r, hosted[i]!)) });
    // A retried request (Idempotency-Key) gets these links only while every one of them is kept.
    const held = hosted.filter((h) => h.expires).map((h) => h.expiresAt - Date.now());
    const retention = app.config.store.resultRetentionMs;
    if (held.length > 0) return { ...reply, keepFor: Math.max(0, Math.min(...held)) };
    return retention === null ? reply : { ...reply, keepFor: retention };
  },
});
