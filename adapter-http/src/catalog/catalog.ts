// The garment catalog: searches every enabled supplier in parallel (own always on), each under a deadline;
// a supplier that fails or is slow is reported in `suppliers` and `warnings` and the others' results are
// returned (never a 500). Style detail and the mockup's supplier garment come from the style's supplier.
import { baseStyleFor, invalidOption, type SupplierGarment } from '@inkprep/engine';
import { ownConnector } from './own.js';
import type { CatalogConfig } from '../config.js';
import { SsActivewearConnector } from './ssactivewear.js';
import type { CatalogWarning, Connector, StyleDetail, StyleSummary, SupplierStatus } from './types.js';
import { ServiceError } from '../errors/registry.js';

export interface SearchResult {
  styles: StyleSummary[];
  suppliers: SupplierStatus[];
  warnings: CatalogWarning[];
}

export interface CatalogOptions {
  /** Connectors besides `own` (which is always first). */
  connectors?: Connector[];
  /** Deadline of one supplier call, ms (default 5000; connectors may time out sooner). */
  deadlineMs?: number;
}

function deadline<T>(p: Promise<T>, ms: number, ctl: AbortController): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => {
        ctl.abort();
        reject(new Error(`no answer within ${ms} ms`));
      }, ms);
      timer.unref?.();
    }),
  ]).finally(() => clearTimeout(timer));
}

export class Catalog {
  readonly connectors: Connector[];
  private readonly deadlineMs: number;
  constructor(opts: CatalogOptions = {}) {
    this.connectors = [ownConnector, ...(opts.connectors ?? []).filter((c) => c.id !== 'own')];
    this.deadlineMs = opts.deadlineMs ?? 5000;
  }

  /** Supplier ids accepted by the `supplier` filter. */
  ids(): string[] {
    return this.connectors.map((c) => c.id);
  }

  /**
   * Search (spec 4.10). `supplierFilter`: comma list of ids; unknown ids, and empty items (`supplier=,,`,
   * `own,`: a list naming nothing must not widen to every supplier), give 400 naming `supplier`.
   */
  async search(q: string | undefined, supplierFilter: string | undefined, signal?: AbortSignal): Promise<SearchResult> {
    let chosen = this.connectors;
    if (supplierFilter !== undefined) {
      const want = supplierFilter.split(',').map((s) => s.trim().toLowerCase());
      const bad = want.filter((w) => w === '' || !this.ids().includes(w));
      if (bad.length) throw invalidOption('supplier', `a comma list of ${this.ids().join(', ')} without empty items`, supplierFilter);
      chosen = this.connectors.filter((c) => want.includes(c.id));
    }
    const query = q?.trim() ? q.trim() : undefined;
    const outcomes = await Promise.all(chosen.map(async (c) => {
      const ctl = new AbortController();
      const onAbort = () => ctl.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const styles = await deadline(c.search(query, ctl.signal), this.deadlineMs, ctl);
        return { c, styles, error: null as string | null };
      } catch (err) {
        return { c, styles: [] as StyleSummary[], error: err instanceof Error ? err.message : String(err) };
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    }));
    const styles: StyleSummary[] = [];
    const suppliers: SupplierStatus[] = [];
    const warnings: CatalogWarning[] = [];
    for (const o of outcomes) {
      styles.push(...o.styles);
      if (o.error === null) suppliers.push({ id: o.c.id, name: o.c.name, status: 'ok', count: o.styles.length });
      else {
        suppliers.push({ id: o.c.id, name: o.c.name, status: 'unavailable', count: 0, message: o.error });
        warnings.push({ code: 'supplier_unavailable', message: `${o.c.name} is unavailable (${o.error}); results from the other suppliers are shown.` });
      }
    }
    return { styles, suppliers, warnings };
  }

  /** Split and check a style key; 400 `invalid_option` naming `field` when it is malformed or its supplier unknown. */
  private connectorFor(key: string, field: string): { c: Connector; id: string } {
    const m = /^([a-z0-9_-]+):(.+)$/i.exec(key.trim());
    const c = m ? this.connectors.find((x) => x.id === m[1]!.toLowerCase()) : undefined;
    if (!m || !c) throw invalidOption(field, `a style key <supplier>:<style_id> with supplier ${this.ids().join(' or ')}`, key);
    return { c, id: m[2]! };
  }

  /**
   * Style detail (spec 4.11). 400 `invalid_option` (field `key` by default) for an unknown style; 503
   * `supplier_unavailable` when its supplier cannot be reached.
   */
  async style(key: string, signal?: AbortSignal, field = 'key'): Promise<StyleDetail> {
    const { c, id } = this.connectorFor(key, field);
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let detail: StyleDetail | null;
    try {
      detail = await deadline(c.style(id, ctl.signal), this.deadlineMs, ctl);
    } catch (err) {
      throw new ServiceError('supplier_unavailable', `${c.name} is unavailable (${err instanceof Error ? err.message : String(err)}); try again later or use an own blank (supplier own)`, { supplier: c.id });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (!detail) throw invalidOption(field, `a style key from GET /api/v1/garments`, key);
    return detail;
  }

  /** What the mockup op needs for a supplier style (own styles need nothing: returns undefined). */
  async garmentFor(key: string, signal?: AbortSignal): Promise<SupplierGarment | undefined> {
    if (/^own:/i.test(key.trim()) || !key.includes(':')) return undefined;
    const d = await this.style(key, signal, 'style');
    return {
      key: d.key, brand: d.brand, style_number: d.style_number, title: d.title, category: d.category,
      base: baseStyleFor(d.category, d.title),
      colors: d.colors.map((c) => ({ id: c.id, name: c.name, hex: c.hex, images: { front: c.images.front, back: c.images.back } })),
      sizes: d.sizes,
      chest_by_size_in: d.chest_by_size_in,
    };
  }
}

/** The catalog of a configuration: own always; S&S when its account and key are set (INKPREP_SS_ACCOUNT, INKPREP_SS_API_KEY). */
export function catalogFor(config: CatalogConfig): Catalog {
  const ss = config.ss;
  return new Catalog({ connectors: ss ? [new SsActivewearConnector(ss)] : [], deadlineMs: ss ? ss.timeoutMs + 1000 : 5000 });
}

const shared = new WeakMap<CatalogConfig, Catalog>();
/** One catalog per configuration (a server reads its configuration once): its caches are shared by every request. */
export function sharedCatalog(config: CatalogConfig): Catalog {
  let c = shared.get(config);
  if (!c) shared.set(config, (c = catalogFor(config)));
  return c;
}
