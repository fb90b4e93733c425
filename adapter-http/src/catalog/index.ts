// Garment catalog: connector interface, the own and S&S Activewear connectors, and the aggregating Catalog.
export * from './types.js';
export { Catalog, catalogFor, sharedCatalog, type CatalogOptions, type SearchResult } from './catalog.js';
export { ownConnector, ownDetail, ownImageUrl } from './own.js';
export { SsActivewearConnector, chestFromSpecs, parseInches, SupplierError, type SsConfig } from './ssactivewear.js';
