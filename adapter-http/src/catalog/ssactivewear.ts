// S&S Activewear REST API v2 connector: HTTP Basic (account number : API key), `/styles?search=`,
// `/products/?styleid=` (one row per colour x size), `/specs/?style=` (size x spec name rows, from which the
// flat chest width is parsed). Answers are cached in memory for `ttlMs`; every call has a timeout. Prices
// in the answers are dropped here and never leave this module.
import { baseStyleFor, placementsFor } from '@inkprep/engine';
import { placementList } from './own.js';
import { matchesQuery, withoutColorWords } from './search.js';
import type { SsConfig } from '../config.js';
import type { Connector, StyleColor, StyleDetail, StyleSummary } from './types.js';

export type { SsConfig } from '../config.js';

/** A malformed or failed supplier answer. */
export class SupplierError extends Error {}

interface SsStyleRow { styleID: number; brandName?: string; styleName?: string; title?: string; baseCategory?: string; styleImage?: string }
interface SsProductRow { sku?: string; styleID?: number; colorName?: string; colorCode?: string; color1?: string; colorFrontImage?: string; colorBackImage?: string; sizeName?: string; sizeOrder?: string; qty?: number }
interface SsSpecRow { sizeName?: string; specName?: string; value?: string }

/**
 * Parse a measurement in inches: `18`, `18.5`, `18 1/2`, `18½`, `18"`, `18 in`; a range `34-36` gives its
 * midpoint. Anything else gives null.
 */
export function parseInches(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) && raw > 0 ? raw : null;
  if (typeof raw !== 'string') return null;
  const s = raw.trim().toLowerCase().replace(/½/g, ' 1/2').replace(/¼/g, ' 1/4').replace(/¾/g, ' 3/4').replace(/(inches|inch|in\.?|")\s*$/, '').trim();
  const one = (t: string): number | null => {
    const m = /^(\d+(?:\.\d+)?)(?:\s+(\d+)\/(\d+))?$/.exec(t.trim()) ?? /^()(\d+)\/(\d+)$/.exec(t.trim());
    if (!m) return null;
    const whole = m[1] ? Number(m[1]) : 0;
    const frac = m[2] && m[3] ? Number(m[2]) / Number(m[3]) : 0;
    const v = whole + frac;
    return Number.isFinite(v) && v > 0 ? v : null;
  };
  const range = /^(.+?)\s*[-–]\s*(.+)$/.exec(s);
  if (range) {
    const a = one(range[1]!), b = one(range[2]!);
    return a !== null && b !== null ? (a + b) / 2 : null;
  }
  return one(s);
}

/**
 * Flat chest width per size from spec rows: `Body Width` or `Chest Width` is the flat width; `Chest` is a
 * circumference and is halved; a flat width wins over a halved circumference; unparseable values are skipped.
 */
export function chestFromSpecs(rows: readonly SsSpecRow[]): Record<string, number> {
  const flat: Record<string, number> = {};
  const circ: Record<string, number> = {};
  for (const r of rows) {
    if (!r || typeof r.sizeName !== 'string' || typeof r.specName !== 'string') continue;
    const name = r.specName.trim().toLowerCase().replace(/\s+/g, ' ');
    const v = parseInches(r.value);
    if (v === null) continue;
    if (name === 'body width' || name === 'chest width') flat[r.sizeName] = Math.round(v * 100) / 100;
    else if (name === 'chest') circ[r.sizeName] = Math.round((v / 2) * 100) / 100;
  }
  return { ...circ, ...flat };
}

const slug = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'color';

function hexOf(v: unknown): string {
  if (typeof v !== 'string') return '#808080';
  const m = /^#?([0-9a-f]{6})$/i.exec(v.trim());
  return m ? `#${m[1]!.toLowerCase()}` : '#808080';
}

export class SsActivewearConnector implements Connector {
  readonly id = 'ss';
  readonly name = 'S&S Activewear';
  private cache = new Map<string, { at: number; value: unknown }>();
  constructor(private readonly cfg: SsConfig, private readonly now: () => number = Date.now) {}

  private image(p: unknown): string | null {
    if (typeof p !== 'string' || p.trim() === '') return null;
    if (/^https?:\/\//i.test(p)) return p;
    return this.cfg.imageBase.replace(/\/+$/, '') + '/' + p.replace(/^\/+/, '');
  }

  /** GET a JSON array from the API (cached); throws SupplierError on timeout, HTTP error or a non-array answer. */
  private async getArray<T>(pathAndQuery: string, signal: AbortSignal): Promise<T[]> {
    const hit = this.cache.get(pathAndQuery);
    if (hit && this.now() - hit.at < this.cfg.ttlMs) return hit.value as T[];
    const auth = Buffer.from(`${this.cfg.account}:${this.cfg.apiKey}`).toString('base64');
    const timeout = AbortSignal.timeout(this.cfg.timeoutMs);
    const sig = AbortSignal.any([signal, timeout]);
    let res: Response;
    try {
      res = await fetch(this.cfg.baseUrl + pathAndQuery, { headers: { Authorization: `Basic ${auth}`, Accept: 'application/json' }, signal: sig });
    } catch (err) {
      if (timeout.aborted) throw new SupplierError(`no answer within ${this.cfg.timeoutMs} ms`);
      throw new SupplierError(`unreachable (${(err as Error).message})`);
    }
    // S&S answers 404 with an error body when a search finds nothing.
    if (res.status === 404) {
      await res.body?.cancel().catch(() => undefined);
      this.cache.set(pathAndQuery, { at: this.now(), value: [] });
      return [];
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new SupplierError(`answered HTTP ${res.status}`);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch (err) {
      if (timeout.aborted) throw new SupplierError(`no answer within ${this.cfg.timeoutMs} ms`);
      throw new SupplierError('answered with malformed JSON');
    }
    if (!Array.isArray(body)) throw new SupplierError('answered with an unexpected shape (expected a list)');
    this.cache.set(pathAndQuery, { at: this.now(), value: body });
    return body as T[];
  }

  async search(q: string | undefined, signal: AbortSignal): Promise<StyleSummary[]> {
    if (!q) return [];
    // S&S searches styles, not colours: colour words ("gildan 5000 black") are left out of its query.
    const sq = withoutColorWords(q, []) || q;
    const rows = await this.getArray<SsStyleRow>(`/styles?search=${encodeURIComponent(sq)}`, signal);
    const out: StyleSummary[] = [];
    for (const r of rows) {
      if (!r || typeof r.styleID !== 'number') throw new SupplierError('answered a style without styleID');
      const fields = [r.brandName ?? '', r.styleName ?? '', r.title ?? '', r.baseCategory ?? ''];
      if (!matchesQuery(sq, { fields }) && rows.length > 50) continue;
      out.push({
        key: `ss:${r.styleID}`, supplier: 'ss', brand: r.brandName ?? '', style_number: r.styleName ?? '', title: r.title ?? '',
        category: r.baseCategory ?? '', thumb: this.image(r.styleImage), color_count: null,
      });
      if (out.length >= 50) break;
    }
    // Colour counts for the first results, from the (cached) product rows; best effort.
    await Promise.all(out.slice(0, 8).map(async (s) => {
      try {
        const products = await this.getArray<SsProductRow>(`/products/?styleid=${encodeURIComponent(s.key.slice(3))}`, signal);
        s.color_count = new Set(products.map((p) => p?.colorName).filter(Boolean)).size;
      } catch {
        s.color_count = null;
      }
    }));
    return out;
  }

  async style(styleId: string, signal: AbortSignal): Promise<StyleDetail | null> {
    if (!/^\d{1,10}$/.test(styleId)) return null;
    const [styles, products, specs] = await Promise.all([
      // Title and category; product rows alone still give brand, style number, colours and sizes.
      this.getArray<SsStyleRow>(`/styles/${styleId}`, signal).catch(() => [] as SsStyleRow[]),
      this.getArray<SsProductRow>(`/products/?styleid=${styleId}`, signal),
      this.getArray<SsSpecRow>(`/specs/?style=${styleId}`, signal).catch(() => [] as SsSpecRow[]),
    ]);
    const st = styles.find((s) => s && s.styleID === Number(styleId)) ?? styles[0];
    if (!st && products.length === 0) return null;
    const sizeOrder = new Map<string, string>();
    const colors = new Map<string, StyleColor>();
    for (const p of products) {
      if (!p || typeof p.colorName !== 'string' || typeof p.sizeName !== 'string') throw new SupplierError('answered a product row without colorName/sizeName');
      sizeOrder.set(p.sizeName, typeof p.sizeOrder === 'string' ? p.sizeOrder : String(p.sizeOrder ?? ''));
      const id = slug(p.colorName);
      let c = colors.get(id);
      if (!c) {
        c = { id, name: p.colorName, hex: hexOf(p.color1), images: { front: this.image(p.colorFrontImage), back: this.image(p.colorBackImage) }, sizes: [] };
        colors.set(id, c);
      }
      c.sizes.push({ size: p.sizeName, sku: typeof p.sku === 'string' ? p.sku : '', in_stock: typeof p.qty === 'number' && p.qty > 0 });
    }
    const sizes = [...sizeOrder.keys()].sort((a, b) => (sizeOrder.get(a)! < sizeOrder.get(b)! ? -1 : sizeOrder.get(a)! > sizeOrder.get(b)! ? 1 : 0));
    for (const c of colors.values()) c.sizes.sort((a, b) => sizes.indexOf(a.size) - sizes.indexOf(b.size));
    const category = st?.baseCategory ?? '';
    const title = st?.title ?? '';
    return {
      key: `ss:${styleId}`, supplier: 'ss', brand: st?.brandName ?? '', style_number: st?.styleName ?? '', title, category,
      sizes,
      chest_by_size_in: chestFromSpecs(specs),
      colors: [...colors.values()],
      placements: placementList(placementsFor(baseStyleFor(category, title))),
    };
  }
}
