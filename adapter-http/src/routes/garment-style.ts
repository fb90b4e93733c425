// The `style` field of the ops that take a garment (mockup, underbase, gangsheet's white layer): an own style
// (or none) resolves with the other fields at validation, before metering; a supplier style (`<supplier>:<id>`)
// resolves once the catalog has fetched it, inside the handler.
import { resolveOptions, type Resolved, type SupplierGarment } from '@inkprep/engine';
// Internal: the engine's parse helper reads the style field by the ops' own rules.
import { validate } from '@inkprep/engine/internals';
import { sharedCatalog, type Catalog } from '../catalog/index.js';
import type { AppServices } from '../services.js';
import { formOptions } from './define.js';

/** A catalog that replaces the configured one (tests); null: the server's own (sharedCatalog of its config). */
let catalogOverride: Catalog | null = null;
export function useCatalog(c: Catalog | null): void {
  catalogOverride = c;
}

/** The catalog the garment routes read. */
export function catalogOf(app: AppServices): Catalog {
  return catalogOverride ?? sharedCatalog(app.config.catalog);
}

/** The ops whose options take a catalog style. */
export type StyledOp = 'mockup' | 'underbase' | 'gangsheet';

/** A POST's fields once validated: resolved (own style, or none) or waiting for the catalog (a supplier style). */
export interface StyledFields<K extends StyledOp> {
  fields: Record<string, string>;
  resolved: Resolved<K> | null;
}

/** Validate `fields` for `op`: resolved now unless `style` names a supplier style. */
export function validateStyled<K extends StyledOp>(op: K, fields: Record<string, string>): StyledFields<K> {
  const style = validate.textValue('style', fields.style);
  const own = !style || /^own:/i.test(style) || !style.includes(':');
  return { fields, resolved: own ? resolveOptions(op, formOptions(op, fields)) : null };
}

/** The resolved options, fetching a supplier style from the catalog when validation could not resolve them. */
export async function resolveStyled<K extends StyledOp>(
  app: AppServices, op: K, v: StyledFields<K>, signal: AbortSignal,
): Promise<{ resolved: Resolved<K>; supplier: SupplierGarment | undefined }> {
  if (v.resolved) return { resolved: v.resolved, supplier: undefined };
  const supplier = await catalogOf(app).garmentFor(v.fields.style ?? '', signal);
  return { resolved: resolveOptions(op, formOptions(op, v.fields, supplier ? { supplier_style: supplier } : {})), supplier };
}
