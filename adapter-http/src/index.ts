// Public entry of @inkprep/http: the CLI runner, the server, the route helpers other endpoints plug
// into, metering and settings accessors, and the account store.
export { main as runCli } from './cli/main.js';
export { startServer, type InkprepServer, type ServerOptions } from './server.js';
export { configFromEnv, defaultConfig, CONFIG_DEFAULTS, type ServerConfig, type LogLevel } from './config.js';
export { createLogger, type Logger } from './log.js';
export type { AppServices } from './services.js';
export { getRoute, postImageRoute, authenticateExchange, type RouteDef, type RouteMeta, type GetCall, type ImageCall, type ImageRouteBase, type OpImageRoute, type CustomImageRoute } from './routes/define.js';
export { ROUTES } from './routes/index.js';
export { buildOpenApi, openApiText, openApiPath, operationKey, fieldSchema, errorCodesFor } from './openapi/document.js';
export { OPERATION_DOCS, type OperationDoc, type ReplyDoc, type HeaderDoc } from './openapi/operations.js';
export { json, binary, type Reply } from './http/reply.js';
export { checkImageHeader, readDimensions, type ImageHeader } from './http/image-header.js';
export { errorReply } from './http/errors.js';
export type { Exchange } from './http/exchange.js';
export { parseTransportChoice } from './transport/select.js';
export { PortInUseError, type TransportKind, type TransportChoice } from './transport/types.js';
export { reserveUse, fairUseCap, fairUseStatus, monthBounds, type Meter, type Reservation } from './limits/meter.js';
export { SETTINGS, getSetting, getUpscaleLimits, parseSetting, isSettingName, UPSCALE_SHRINK_ALLOWANCE, type SettingName, type UpscaleLimits } from './settings.js';
export { ConversionQueue, DEFAULT_MAX_WAITING, DEFAULT_SLOTS, type ConversionQueueOptions, type LineCounts, type QueueSnapshot, type VectorizeLine } from './queue/vectorize-queue.js';
export type { QueueTurn } from './queue/turn.js';
export { openPgLine, PgLine, DEFAULT_LEASE_MS, LINE_LOCK_NS, type PgLineOptions } from './queue/pg-line.js';
export { openConfiguredLine, type OpenedLine } from './queue/open-line.js';
export { authenticate, assertAccountActive, hasApiAccess, type Caller } from './auth/authenticate.js';
export { createApiKey, revokeApiKey } from './auth/manage.js';
export { generateKeySecret, hashKey, extractKey, KEY_PREFIX } from './auth/keys.js';
export { bootstrapStore, type BootstrapResult } from './bootstrap.js';
export * from './store/index.js';
export * from './storage/index.js';
