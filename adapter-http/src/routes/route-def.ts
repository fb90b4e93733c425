// What a route is: one entry of the route table (RouteDef), the facts the API document reads from it
// (RouteMeta), and the request fields an op's option table offers over HTTP. getRoute() and
// postImageRoute() build RouteDefs; routes/define.ts is the one place routes import them from.
import { textOptions, type ImageFormat, type OpName } from '@inkprep/engine';
// Internal: the op registry (each op's option table: its HTTP fields, their docs, its resolver) and the
// engine's parse helpers, so HTTP validation and its OpenAPI description follow the engine's rules exactly.
import { OPS, validate } from '@inkprep/engine/internals';
import type { Exchange } from '../http/exchange.js';
import type { JobExecutor } from '../jobs/index.js';
import type { Meter } from '../limits/meter.js';
import type { AppServices } from '../services.js';

/** One entry of the route table. */
export interface RouteDef {
  method: 'get' | 'post' | 'delete';
  /** Full path, e.g. `/api/v1/scan`. */
  path: string;
  /** Runs for each request after the server created its Exchange (synchronously, inside the transport's request callback). */
  handle(ex: Exchange, app: AppServices): void;
  /** What the API document (openapi/) reads: set by getRoute and postImageRoute. */
  meta?: RouteMeta;
  /** Runs one job of this route (`Prefer: respond-async`; jobs/runner.ts), in whichever process holds it. */
  runJob?: JobExecutor;
}

/** A route's facts for the API document, taken from the same spec that runs the route. */
export interface RouteMeta {
  kind: 'get' | 'image';
  /** The HTTP method when not the kind's own (GET routes declared with `method: 'delete'`). */
  method?: 'delete';
  /** Requires an API key. */
  auth: boolean;
  meter: Meter;
  /** Image POSTs: accepted formats. */
  formats?: readonly ImageFormat[];
  /** Metered image POSTs: an `Idempotency-Key` header makes a retry replay the first answer (routes/idempotency.ts). */
  idempotent?: boolean;
  /** Metered image POSTs: `Prefer: respond-async` makes the request a job (202 + the job body). */
  async?: boolean;
  /** Image POSTs through the vectorize line. */
  queue?: 'vectorize';
  /** The one route whose file field repeats (POST /gangsheet: `design`, up to `max` parts) instead of one `image`. */
  repeatedFile?: { name: string; max: number };
  /** Image POSTs backed by an engine op, or whose form fields are an op's (its option table's HTTP fields). */
  op?: OpName;
  /**
   * The request fields (form fields or query parameters): an op's option table (its fields offered over
   * HTTP, with their one-line docs), or, for routes without one, described by running the route's own
   * validation (`validate` or `params`) under the recorder (engine validate.describeFields).
   */
  fields(): RouteField[];
}

/** One request field of a route: what its parser says about it, and its one-line doc when a table has one. */
export type RouteField = validate.FieldSpec & { doc?: string };

/** The fields of op `op` offered over HTTP, from its option table. */
export function tableFields(op: OpName): RouteField[] {
  return OPS[op].fields.filter((f) => f.surfaces.includes('http')).map((f) => ({ ...f.spec, doc: f.doc }));
}

/**
 * The form fields an op's table offers over HTTP, as text options (others are ignored, as they always were),
 * with typed extras the route adds (mockup: the catalog's `supplier_style`).
 */
export function formOptions(op: OpName, fields: Record<string, string>, extras: Readonly<Record<string, unknown>> = {}): ReturnType<typeof textOptions> {
  return textOptions({ ...httpFields(op, fields), ...extras });
}

function httpFields(op: OpName, fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of OPS[op].fields) if (f.surfaces.includes('http') && Object.prototype.hasOwnProperty.call(fields, f.wire)) out[f.wire] = fields[f.wire]!;
  return out;
}

/** Field values a route's validation is described with; one run per probe (see validate.describeFields). */
export type Probes = readonly Record<string, string>[];
