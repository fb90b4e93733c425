// Garment catalog and mockup endpoints (spec 4.9-4.12): GET /mockup/templates, GET /garments,
// GET /garments/style, POST /mockup, and GET /mockup/preview (the blank pictures that preview_url, thumb and
// images point to; no key needed, like any product picture).
import { invalidOption, type MockupResult } from '@inkprep/engine';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { listTemplates, OWN_STYLES, textOptions } from '@inkprep/engine';
// Internal: the engine's parse helpers check query parameters by the ops' rules, withGarmentPhoto adds the
// supplier's photo to a resolved mockup, and garment previews are cached beside the engine's blanks under
// its render version.
import { GARMENT_RENDER_VERSION, validate, withGarmentPhoto } from '@inkprep/engine/internals';
import { fetchGarmentPhoto } from '../catalog/photos.js';
import { binary, json, type Reply } from '../http/reply.js';
import { mockupWire } from '../http/wire.js';
import type { AppServices } from '../services.js';
import { getRoute, postImageRoute, type RouteDef } from './define.js';
import { catalogOf, resolveStyled, validateStyled, type StyledFields } from './garment-style.js';

export const PREVIEW_PATH = '/api/v1/mockup/preview';

// Tests swap the catalog through this module (the garment routes share it).
export { useCatalog } from './garment-style.js';

/** Absolute address when the config has a public URL (INKPREP_PUBLIC_URL), else the path. */
function publicUrl(app: AppServices, p: string): string {
  const base = app.config.publicUrl;
  return base && p.startsWith('/') ? `${base}${p}` : p;
}

/** GET /api/v1/mockup/templates (2.6). */
export const mockupTemplatesRoute: RouteDef = getRoute({
  path: '/api/v1/mockup/templates',
  meter: 'daily', // spec 8: only the three status reads are unmetered
  handle: ({ app }) => json(listTemplates((id) => publicUrl(app, `${PREVIEW_PATH}?template=${encodeURIComponent(id)}`))),
});

function absolutize<T extends { thumb?: string | null }>(app: AppServices, s: T): T {
  return s.thumb ? { ...s, thumb: publicUrl(app, s.thumb) } : s;
}

/** GET /api/v1/garments?q=&supplier= (2.7, plus `warnings` when a supplier was unavailable). */
export const garmentsRoute: RouteDef = getRoute({
  path: '/api/v1/garments',
  meter: 'daily', // spec 8: only the three status reads are unmetered
  // A parameter that is present must hold a value (same rule as every form field: engine validate.isUnset).
  params: (query) => {
    const o = validate.queryOptions(query);
    return { q: validate.parseText(o, 'q'), supplier: validate.parseText(o, 'supplier') };
  },
  async handle({ app, params: { q, supplier }, ex }) {
    const r = await catalogOf(app).search(q, supplier, ex.signal);
    for (const w of r.warnings) ex.log.warn('garment supplier unavailable', { message: w.message });
    return json({ styles: r.styles.map((s) => absolutize(app, s)), suppliers: r.suppliers, warnings: r.warnings });
  },
});

/** GET /api/v1/garments/style?key= (2.8). */
export const garmentStyleRoute: RouteDef = getRoute({
  path: '/api/v1/garments/style',
  meter: 'daily', // spec 8: only the three status reads are unmetered
  params: (query) => validate.requireText(validate.queryOptions(query), 'key', 'a style key <supplier>:<style_id>'),
  async handle({ app, params: key, ex }) {
    const d = await catalogOf(app).style(key, ex.signal);
    return json({
      ...d,
      colors: d.colors.map((c) => ({ ...c, images: { front: c.images.front && publicUrl(app, c.images.front), back: c.images.back && publicUrl(app, c.images.back) } })),
    });
  },
});

/** The 2.9 JSON body, or the image with the X- headers. */
export function mockupReply(r: MockupResult): Reply {
  if (r.response === 'json') {
    return json({
      ...mockupWire(r),
      image: { content_type: r.contentType, width: r.width, height: r.height, base64: Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength).toString('base64') },
    });
  }
  return binary(r.data, r.contentType, {
    'X-Garment': r.garment.key,
    'X-Placement': r.placement,
    'X-Print-Width-In': String(r.print.widthIn),
    'X-Print-Height-In': String(r.print.heightIn),
    'X-Effective-DPI': String(r.print.effectiveDpi),
    'X-Warnings': r.warnings.map((w) => w.code).join(','),
    'X-Preview-Fix': r.print.previewFix ?? 'none',
  });
}

/** POST /api/v1/mockup (4.12). Supplier styles are resolved through the catalog before the engine runs. */
export const mockupRoute: RouteDef = postImageRoute<StyledFields<'mockup'>>({
  path: '/api/v1/mockup',
  options: 'mockup',
  validate: (fields) => validateStyled('mockup', fields),
  async handle({ app, image, options, signal }) {
    const styled = await resolveStyled(app, 'mockup', options, signal);
    let resolved = styled.resolved;
    const supplier_style = styled.supplier;
    if (supplier_style) {
      // A supplier style is drawn on the supplier's photo of the chosen colour and view (spec 4.12, 2.8),
      // attached to the resolved value (no second lookup).
      const r = resolved;
      const url = supplier_style.colors.find((c) => c.id === r.color.id)?.images?.[r.view] ?? null;
      let photo: { bytes: Uint8Array } | { error: string };
      if (!url) photo = { error: `the supplier lists no ${r.view} photo for ${r.color.name}` };
      else {
        const got = await fetchGarmentPhoto(url, app.config.catalog.supplierTimeoutMs, signal);
        photo = got.ok ? { bytes: got.bytes } : { error: got.reason };
      }
      resolved = withGarmentPhoto(r, photo);
    }
    const result = await app.engine.mockup(image, resolved, { signal, transfer: true });
    return mockupReply(result);
  },
});

// A fully transparent 1x1 design: rendering it gives the bare blank through the pooled mockup op.
function blankDesign() {
  return { width: 1, height: 1, data: new Uint8ClampedArray(4) };
}

const previewCache = new Map<string, Uint8Array>();

/**
 * GET /api/v1/mockup/preview?template=<id>[&size=] or ?style=<key>&color=&view=front|back[&size=]: a JPEG
 * of the blank (size = long side 400-2000, default 1200). Own blanks only; no key needed.
 */
export const mockupPreviewRoute: RouteDef = getRoute({
  path: PREVIEW_PATH,
  auth: false,
  probes: [{ template: 'tee-black' }, { style: 'own:classic-tee' }],
  params: (query) => {
    const o = validate.queryOptions(query);
    const n = validate.parseNumber(o, 'size', 1200, 400, 2000);
    const template = validate.parseText(o, 'template');
    let opts: Record<string, string>;
    if (template) opts = { template_id: template };
    else {
      const style = validate.parseText(o, 'style');
      if (!style) throw invalidOption('template', 'a template id, or style (+ color, view)', '');
      if (!/^own:/i.test(style)) throw invalidOption('style', 'an own style key (supplier pictures are served by the supplier)', style);
      const view = validate.parseEnum(o, 'view', 'front', ['front', 'back'] as const);
      const color = validate.parseText(o, 'color');
      opts = { style, ...(color !== undefined ? { color } : {}), placement: view === 'front' ? 'full-front' : 'full-back' };
    }
    return { ...opts, fabric: 'false', output_size: String(Math.round(n)), format: 'jpeg' };
  },
  async handle({ app, params, ex }) {
    const key = JSON.stringify({ v: GARMENT_RENDER_VERSION, ...params });
    let bytes = previewCache.get(key);
    if (!bytes) {
      // Rendered once per blank/colour/view/size: kept on disk beside the neutral renders, and in memory.
      const file = path.join(app.config.engine.garmentCacheDir, 'previews', `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.jpg`);
      try {
        bytes = new Uint8Array(await readFile(file));
      } catch {
        const r = await app.engine.mockup(blankDesign(), textOptions(params), { signal: ex.signal });
        bytes = r.data;
        try {
          await mkdir(path.dirname(file), { recursive: true });
          const tmp = `${file}.${process.pid}.tmp`;
          await writeFile(tmp, bytes);
          await rename(tmp, file);
        } catch (err) {
          ex.log.warn('preview cache write failed', { err: err instanceof Error ? err.message : String(err) });
        }
      }
      if (previewCache.size >= 200) previewCache.delete(previewCache.keys().next().value as string);
      previewCache.set(key, bytes);
    }
    return binary(bytes, 'image/jpeg', { 'Cache-Control': 'public, max-age=86400' });
  },
});

/** Options of warmMockupBlanks. */
export interface WarmOptions {
  /** Long side of the renders (picks the blank render size), default 2000. */
  outputSize?: number;
  /** Stops before the next blank and aborts the running render. */
  signal?: AbortSignal;
  /** Resolves when the pool has room for background work (checked before each blank); default at once. */
  whenIdle?: (signal?: AbortSignal) => Promise<void>;
}

/**
 * Render the own blanks once (front and back at 2000 px, one at a time), so the first mockup of a blank
 * does not pay the one-off render (seconds): it fills the disk cache every worker reads. Stops quietly
 * when `signal` aborts.
 */
export async function warmMockupBlanks(engine: Pick<import('@inkprep/engine').Engine, 'mockup'>, opts: number | WarmOptions = {}): Promise<void> {
  const o: WarmOptions = typeof opts === 'number' ? { outputSize: opts } : opts;
  for (const style of OWN_STYLES) {
    for (const placement of ['full-front', 'full-back'] as const) {
      if (!style.placements.includes(placement)) continue;
      if (o.whenIdle) await o.whenIdle(o.signal);
      if (o.signal?.aborted) return;
      try {
        await engine.mockup(blankDesign(), { style: style.key, placement, fabric: false, output_size: o.outputSize ?? 2000, format: 'jpeg' }, o.signal ? { signal: o.signal } : {});
      } catch (err) {
        if (o.signal?.aborted) return;
        throw err;
      }
    }
  }
}

/**
 * Start warmMockupBlanks in the background after the server listens (when enabled: config.warmBlanks): one blank
 * at a time, each only once the engine has no running or queued work (so requests never wait behind a
 * warm-up render except one already started), cancelled when the server closes. Never throws.
 */
export function startBlankWarmup(app: Pick<AppServices, 'engine' | 'log' | 'onClose'>, enabled: boolean): void {
  if (!enabled) return;
  const ac = new AbortController();
  app.onClose(() => ac.abort());
  const whenIdle = async (signal?: AbortSignal): Promise<void> => {
    while (!signal?.aborted) {
      const s = app.engine.stats();
      if (s.running === 0 && s.queued === 0) return;
      await new Promise<void>((r) => setTimeout(r, 250).unref());
    }
  };
  const t0 = Date.now();
  // After the first turn of the event loop: listening and the first requests go first.
  setImmediate(() => {
    warmMockupBlanks(app.engine, { signal: ac.signal, whenIdle }).then(
      () => { if (!ac.signal.aborted) app.log.info('mockup blanks warm', { ms: Date.now() - t0 }); },
      (err) => app.log.warn('mockup blank warm-up failed', { err: err instanceof Error ? err.message : String(err) }),
    );
  });
}

export const MOCKUP_ROUTES: readonly RouteDef[] = [mockupTemplatesRoute, garmentsRoute, garmentStyleRoute, mockupRoute, mockupPreviewRoute];

