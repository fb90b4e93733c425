// Public entry of @inkprep/engine: the pooled Engine facade, the op option and result types, the errors,
// and the few helpers a consumer needs (format sniffing, the garment and model catalogs). Everything else
// (the stages of each op, raster and colour helpers) is in '@inkprep/engine/internals', which carries no
// stability promise.
export { createEngine, type Engine, type EngineOptions, type CallOptions, type OpOptions } from './engine.js';
export { textOptions, type TextOptions } from './options/validate.js';
export { resolveOptions, isResolved, type OpName, type OptionsOf, type Resolved, type ResultOf } from './ops/registry.js';
export type { OpInput } from './ops/types.js';
export type { ProgressEvent } from './progress.js';
export { ENGINE_ERRORS, InkprepError, invalidOption, isErrorCode, type ErrorCode, type ErrorDetails } from './errors.js';
export type { ModelOptions } from './settings.js';
export type { SegmentationModelOptions, MaskOutput } from './matte/model.js';
export { probeImage } from './raster/decode.js';
export { sniffFormat } from './raster/sniff.js';
export type { Raster, DecodeInfo, ImageFormat } from './raster/types.js';
export type { OpFile } from './raster/file.js';
export type { ScanReport, ScanAlpha, ScanIssue, ScanSuggestion, IssueCode, Severity, Recommendation, EdgeQuality } from './scan/types.js';
export type { ScanOptions } from './ops/scan.js';
export type { FixResult } from './ops/fix.js';
export type { FixOptions } from './fix/options.js';
export type { FixStats, FixStep, FixWarning } from './fix/pipeline.js';
export type { UpscaleRoute } from './upscale/upscale.js';
export type { UpscaleOptions, UpscaleResult } from './ops/upscale.js';
export type { MatteResult, MatteStats, RemoveBgMethod } from './matte/types.js';
export { MODEL_CATALOG, DEFAULT_MODEL, isModelName, type CatalogModel, type ModelName } from './matte/model-catalog.js';
export { REMOVE_BG_MAX_PIXELS, type RemoveBgOptions, type RemoveBgResult } from './ops/remove-bg.js';
export type { MockupOptions } from './mockup/resolve.js';
export type { MockupResult } from './mockup/render.js';
export { MOCKUP_BATCH_LIMITS, type MockupBatchOptions, type MockupBatchItem } from './mockup/batch-options.js';
export type { MockupBatchResult } from './mockup/batch-render.js';
export { OWN_STYLES, OWN_COLORS, PLACEMENTS, PLACEMENT_IDS, baseStyleFor, placementsFor, type OwnStyle, type GarmentColor, type PlacementId, type PlacementSpec, type SupplierGarment, type View } from './garments/specs.js';
export { listTemplates, type TemplateDef } from './mockup/templates.js';
export type { MockupWarning } from './mockup/warnings.js';
export type { VectorizeOptions } from './ops/vectorize.js';
export type { VectorizeResult } from './vectorize/pipeline.js';
export type { Detail } from './vectorize/settings.js';
export type { VectorFormat, DxfUnits } from './vectorize/formats/index.js';
export type { UnderbaseOptions, GarmentColour } from './underbase/options.js';
export type { UnderbaseResult } from './ops/underbase.js';
export type { UnderbaseStats, UnderbaseWarning } from './underbase/report.js';
export type { PixelBox } from './underbase/checks.js';
export type { GangsheetOptions, GangItem, GangItemInput, GangRotation } from './gangsheet/options.js';
export type { GangsheetResult } from './ops/gangsheet.js';
export type { GangLayout, GangItemArt, GangSheet, GangWarning, GangWhiteReport } from './gangsheet/layout.js';
export type { GangPlacement } from './gangsheet/place.js';
export { packDesigns } from './gangsheet/designs.js';
export { GANGSHEET_ZIP_NAMES } from './ops/gangsheet.js';
