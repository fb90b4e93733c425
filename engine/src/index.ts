// Public entry of @inkprep/engine: the pooled Engine facade, the pure functions for in-thread use,
// the raster and colour helpers, and the error registry.
export { createEngine, workerFilename, type Engine, type EngineOptions, type CallOptions } from './engine.js';
export { OPS, isOpName, type OpName, type OptionsOf, type ResolvedOf, type ResultOf } from './ops/registry.js';
export type { OpDef, OpInput, OpContext } from './ops/types.js';
export { ERROR_CODES, InkprepError, fromWire, invalidOption, isErrorCode, type ErrorCode, type ErrorDetails, type WireError } from './errors.js';
export { decodeImage, probeImage, DEFAULT_MAX_PIXELS, type DecodeOptions } from './raster/decode.js';
export { encodeImage, encodePng, type EncodeOptions, type OutputFormat } from './raster/encode.js';
export { sniffFormat } from './raster/sniff.js';
export { createRaster, type Raster, type DecodeInfo, type DecodedImage, type ImageFormat } from './raster/types.js';
export * from './colour/convert.js';
export * as validate from './options/validate.js';
export { upscaleRaster, routeFor, type UpscaleParams, type UpscaleOutcome, type UpscaleRoute } from './upscale/upscale.js';
export { planSize, maxPixelsFor, SHRINK_ALLOWANCE, DEFAULT_BUDGET, DEFAULT_BUDGET_4X, type Budgets, type SizePlan } from './upscale/budget.js';
export { classifyArt, type ArtClass, type ArtStats } from './upscale/classify.js';
export { upscaleResample } from './upscale/resample.js';
export { upscaleModel } from './upscale/sr.js';
export { upscaleVector, renderSvg } from './upscale/vector.js';
export { modelUnavailableReason } from './upscale/model.js';
export type { UpscaleOptions, UpscaleResult } from './ops/upscale.js';
export { removeBackground, type RemoveBgBackend, type RemoveBgSettings } from './matte/pipeline.js';
export { matteArtwork, type ArtworkMatte, type ArtworkMatteOptions } from './matte/matte.js';
export { segmentationModelFromEnv, resolveModelConfig, runtimeAvailable, type SegmentationModelConfig, type SegmentationModelOptions, type MaskOutput } from './matte/model.js';
export type { MatteResult, MatteStats, RemoveBgMethod } from './matte/types.js';
export { REMOVE_BG_MAX_PIXELS, type RemoveBgOptions, type RemoveBgResult } from './ops/remove-bg.js';
