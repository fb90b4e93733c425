// Route helpers: every endpoint is declared with getRoute() or postImageRoute() and listed in
// routes/index.ts. postImageRoute runs the straight line of every image POST:
//   body limit (Content-Length, then while streaming) -> auth (key + live account state) -> form ->
//   options (resolved once, by the op's option table: `resolveOptions`) -> image header probe (format, pixel limit) -> metering (atomic
//   reservation) -> vectorize line (optional) -> engine (takes the resolved value as it is; aborted with the
//   client) -> reply; any error goes
//   through the one error map (http/errors.ts). A reservation is kept (confirmed in the store, before the
//   reply is sent) only when the reply is 2xx; otherwise released.
import { InkprepError, resolveOptions, textOptions, type ImageFormat, type OpName, type Resolved, type ResultOf } from '@inkprep/engine';
// Internal: the op registry (each op's option table: its HTTP fields, their docs, its resolver) and the
// engine's parse helpers, so HTTP validation and its OpenAPI description follow the engine's rules exactly.
import { OPS, validate } from '@inkprep/engine/internals';
import { authenticate, authenticateSync, type Caller } from '../auth/authenticate.js';
import { extractKey } from '../auth/keys.js';
import type { Exchange } from '../http/exchange.js';
import { checkImageHeader, type ImageHeader } from '../http/image-header.js';
import { readForm } from '../http/multipart.js';
import type { Reply } from '../http/reply.js';
import { reserveUse, type Meter, type Reservation } from '../limits/meter.js';
import type { QueueTurn } from '../queue/turn.js';
import { releaseAndSettle, sendMetered } from './metered-reply.js';
import type { AppServices } from '../services.js';

/** One entry of the route table. */
export interface RouteDef {
  method: 'get' | 'post';
  /** Full path, e.g. `/api/v1/scan`. */
  path: string;
  /** Runs for each request after the server created its Exchange (synchronously, inside the transport's request callback). */
  handle(ex: Exchange, app: AppServices): void;
  /** What the API document (openapi/) reads: set by getRoute and postImageRoute. */
  meta?: RouteMeta;
}

/** A route's facts for the API document, taken from the same spec that runs the route. */
export interface RouteMeta {
  kind: 'get' | 'image';
  /** Requires an API key. */
  auth: boolean;
  meter: Meter;
  /** Image POSTs: accepted formats. */
  formats?: readonly ImageFormat[];
  /** Image POSTs through the vectorize line. */
  queue?: 'vectorize';
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

/** Authenticate the caller of an exchange (401/402/403 on failure) and note who it is for the log. */
export async function authenticateExchange(ex: Exchange, app: AppServices): Promise<Caller> {
  const caller = await authenticate(app.store, extractKey(ex.apiKeyHeader, ex.authorizationHeader));
  ex.accountId = caller.account.id;
  ex.keyId = caller.key.id;
  return caller;
}

/** Synchronous authentication when the store allows it (undefined otherwise); notes the caller for the log. */
function authenticateExchangeSync(ex: Exchange, app: AppServices): Caller | undefined {
  const caller = authenticateSync(app.store, extractKey(ex.apiKeyHeader, ex.authorizationHeader));
  if (caller) {
    ex.accountId = caller.account.id;
    ex.keyId = caller.key.id;
  }
  return caller;
}

function isPromise<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

/** What a GET handler receives. */
export interface GetCall<P = undefined> {
  ex: Exchange;
  app: AppServices;
  /** The authenticated caller (null only for routes declared with `auth: false`). */
  caller: Caller | null;
  /** Parsed query parameters. */
  query: URLSearchParams;
  /** The injected clock's now (ms). */
  now: number;
  /** Query parameters validated by the route's `params` (undefined without one). */
  params: P;
}

class GetCallImpl<P> implements GetCall<P> {
  readonly now: number;
  readonly params: P;
  private parsed: URLSearchParams | null = null;
  constructor(readonly ex: Exchange, readonly app: AppServices, readonly caller: Caller | null, parse: ((q: URLSearchParams) => P) | undefined) {
    this.now = app.clock();
    this.params = parse ? parse(this.query) : (undefined as P);
  }
  get query(): URLSearchParams {
    return (this.parsed ??= new URLSearchParams(this.ex.query));
  }
}

/**
 * A GET route. Authenticated by default (status reads too); unmetered.
 * @example getRoute({ path: '/api/v1/vectorize', handle: ({ app }) => json(app.vectorizeQueue.snapshot()) })
 */
export function getRoute<P = undefined>(spec: {
  path: string;
  /** Require a key (default true; only /healthz-style routes turn it off). */
  auth?: boolean;
  /**
   * What a call counts against. Default `'none'`: right for the status reads (GET vectorize, remove-bg,
   * upscale), which spec 8 leaves unmetered. Other GET endpoints (listings, searches) count against the
   * per-key daily limit: pass `'daily'` (the unit is kept only for a 2xx reply).
   */
  meter?: Meter;
  /** Name recorded in usage events; default the path's last segment. */
  endpoint?: string;
  /**
   * Validate the query parameters with the engine's parse helpers (e.g. `validate.queryOptions(q)` then
   * `parseText`), before metering: 400 `invalid_option` naming the parameter. The API document describes
   * the parameters by running it (once per probe; default one run with no parameters).
   */
  params?: (query: URLSearchParams) => P;
  probes?: Probes;
  handle(call: GetCall<P>): Reply | Promise<Reply>;
}): RouteDef {
  const auth = spec.auth ?? true;
  const meter = spec.meter ?? 'none';
  const endpoint = spec.endpoint ?? spec.path.slice(spec.path.lastIndexOf('/') + 1);
  const params = spec.params;
  return {
    method: 'get',
    path: spec.path,
    meta: {
      kind: 'get', auth, meter,
      fields: () => (params ? validate.describeFields((p: Record<string, string>) => params(new URLSearchParams(p)), spec.probes ?? [{}]) : []),
    },
    handle(ex, app) {
      const makeCall = (caller: Caller | null): GetCall<P> => new GetCallImpl(ex, app, caller, params);
      // Fast path (unmetered routes on a store with a synchronous key lookup, e.g. the status reads on
      // SQLite): authenticate and answer inside the transport's callback, with no promise hop.
      if (meter === 'none') {
        let out: Reply | Promise<Reply>;
        try {
          const caller = auth ? authenticateExchangeSync(ex, app) : null;
          if (caller !== undefined) {
            out = spec.handle(makeCall(caller));
            if (!isPromise(out)) {
              ex.send(out);
              ex.settle();
              return;
            }
            out.then((r) => ex.send(r), (err: unknown) => ex.fail(err)).finally(() => ex.settle());
            return;
          }
        } catch (err) {
          ex.fail(err);
          ex.settle();
          return;
        }
      }
      let reservation: Reservation | null = null;
      const run = async (): Promise<void> => {
        const caller = auth ? await authenticateExchange(ex, app) : null;
        const call = makeCall(caller); // validates the parameters: a 400 is not metered
        if (caller && meter !== 'none') reservation = await reserveUse(app.store, caller, endpoint, meter, app.clock());
        await sendMetered(ex, await spec.handle(call), reservation);
      };
      run()
        .catch((err) => ex.fail(err))
        .finally(() => releaseAndSettle(ex, reservation));
    },
  };
}

/** What a POST image handler (and `respond`) receives. */
export interface ImageCall<Options> {
  ex: Exchange;
  app: AppServices;
  caller: Caller;
  /** Text fields as sent (unknown fields included; they are ignored by validation). */
  fields: Record<string, string>;
  /**
   * The uploaded file. The request owns these bytes and never reads them after the engine call, so engine
   * calls pass `{ transfer: true }` (zero-copy; `image` is detached once the engine runs).
   */
  image: Uint8Array;
  /** The file's format and size from its header (read in JS, nothing decoded). */
  info: ImageHeader;
  /** Validated options. */
  options: Options;
  /** Aborts when the client disconnects: pass it to every engine call. */
  signal: AbortSignal;
  /** Milliseconds spent waiting in the vectorize line (0 for other routes). */
  queueMs: number;
  /** The injected clock's now (ms) when the request was admitted. */
  now: number;
}

/** Fields shared by both kinds of image POST route. */
export interface ImageRouteBase<Options> {
  /** Full path, e.g. `/api/v1/scan`. */
  path: string;
  /** Name recorded in usage events and logs; default the path's last segment. */
  endpoint?: string;
  /** Largest `image` file in bytes (413 `image_too_large` while streaming); default config.maxUploadBytes (50 MB). */
  maxBytes?: number | ((app: AppServices) => number);
  /** Largest image in pixels, checked from the header (413 `image_too_large` with maxPixels, pixels). Default config.maxPixels. */
  maxPixels?: number | ((call: { app: AppServices; options: Options; caller: Caller }) => number | Promise<number>);
  /** Accepted formats (400 `unsupported_format` otherwise); default PNG, JPEG, WebP. */
  formats?: readonly ImageFormat[];
  /** What the call counts against: `'daily'` (default), `{ fairUse: 'remove_bg' | 'upscale' }` (daily + account cap), or `'none'`. */
  meter?: Meter;
  /** Run one at a time through the vectorize line (429 `queue_full` when it is full). */
  queue?: 'vectorize';
  /** Field values the API document describes the validation with (default one run with no fields). */
  probes?: Probes;
  /**
   * Pass the request's AbortSignal to the engine task (op routes), so a client that leaves stops the work.
   * Default false: with Piscina 5, many concurrent tasks carrying a signal on a small pool stalled for
   * seconds (32 concurrent scans: 10 s vs 0.1 s without), and aborting a running task stops its worker
   * (a restart reloads every op module). Set it for long ops that run one at a time (vectorize). Short
   * ops finish and their result is dropped when the client has left; the reservation is released.
   */
  abortEngine?: boolean;
}

/** An image POST backed by one engine op: `respond` turns the op's result into the reply. */
export interface OpImageRoute<K extends OpName> extends ImageRouteBase<Resolved<K>> {
  op: K;
  respond(result: ResultOf<K>, call: ImageCall<Resolved<K>>): Reply | Promise<Reply>;
}

/** An image POST with its own handler (e.g. upscale: engine + storage); `validate` checks the fields first. */
export interface CustomImageRoute<Options> extends ImageRouteBase<Options> {
  op?: undefined;
  /** The op whose option table lists this route's form fields (its HTTP fields) for the API document. */
  options?: OpName;
  /** Validate the text fields (throw `invalidOption(field, ...)`); runs before metering. */
  validate(fields: Record<string, string>): Options;
  handle(call: ImageCall<Options>): Promise<Reply>;
}

const ALL_FORMATS: readonly ImageFormat[] = ['png', 'jpeg', 'webp'];

/**
 * An image POST route (multipart `image` + text fields). See the file header for the pipeline.
 * @example
 * postImageRoute({ path: '/api/v1/scan', op: 'scan', respond: (report) => json(report) })
 */
export function postImageRoute<K extends OpName>(spec: OpImageRoute<K>): RouteDef;
export function postImageRoute<Options>(spec: CustomImageRoute<Options>): RouteDef;
export function postImageRoute(spec: OpImageRoute<OpName> | CustomImageRoute<unknown>): RouteDef {
  const endpoint = spec.endpoint ?? spec.path.slice(spec.path.lastIndexOf('/') + 1);
  const formats = spec.formats ?? ALL_FORMATS;
  const table = spec.op ?? spec.options;
  // The document's request fields: the op's table, else the route's own validation run under the recorder.
  const fields = (): RouteField[] => {
    if (spec.op !== undefined) return tableFields(spec.op);
    if (spec.options !== undefined) return tableFields(spec.options);
    return validate.describeFields((p: Record<string, string>) => spec.validate(p), spec.probes ?? [{}]);
  };
  return {
    method: 'post',
    path: spec.path,
    meta: {
      kind: 'image', auth: true, meter: spec.meter ?? 'daily', formats,
      ...(spec.queue ? { queue: spec.queue } : {}),
      ...(table !== undefined ? { op: table } : {}),
      fields,
    },
    handle(ex, app) {
      const maxBytes = typeof spec.maxBytes === 'function' ? spec.maxBytes(app) : spec.maxBytes ?? app.config.maxUploadBytes;
      const body = readForm(ex, { maxFileBytes: maxBytes });
      let reservation: Reservation | null = null;
      let turn: QueueTurn | null = null;
      const run = async (): Promise<void> => {
        const caller = await authenticateExchange(ex, app);
        const form = await body.done;
        if (!form.image || form.image.bytes.byteLength === 0) throw new InkprepError('missing_image', 'The image file is missing: send it as a file part named image');
        const image = form.image.bytes;
        // Form fields are text: only textOptions lets the engine parse numbers and booleans from text. An op
        // route resolves them here, once; the engine takes the resolved value as it is.
        const options: unknown = spec.op !== undefined ? resolveOptions(spec.op, formOptions(spec.op, form.fields)) : spec.validate(form.fields);
        const maxPixels = typeof spec.maxPixels === 'function'
          ? await spec.maxPixels({ app, options: options as never, caller })
          : spec.maxPixels ?? app.config.maxPixels;
        const info = await checkImageHeader(image, { maxPixels, formats });
        if (ex.aborted) return;
        const now = app.clock();
        reservation = await reserveUse(app.store, caller, endpoint, spec.meter ?? 'daily', now);
        if (ex.aborted) return;
        if (spec.queue === 'vectorize') turn = await app.vectorizeQueue.acquire(ex.signal);
        const call: ImageCall<unknown> = {
          ex, app, caller, fields: form.fields, image, info, options, signal: ex.signal, queueMs: turn?.waitedMs ?? 0, now,
        };
        let reply: Reply;
        if (spec.op !== undefined) {
          const result = await app.engine.run(spec.op, image, options as Resolved<OpName>, { signal: spec.abortEngine ? ex.signal : undefined, maxPixels, transfer: true });
          turn?.release();
          reply = await spec.respond(result as never, call as never);
        } else {
          reply = await spec.handle(call);
        }
        turn?.release();
        await sendMetered(ex, reply, reservation);
      };
      run()
        .catch((err) => ex.fail(err)) // an unread rest of the body is drained by the Exchange
        .finally(() => {
          (turn as QueueTurn | null)?.release();
          body.stop();
          return releaseAndSettle(ex, reservation);
        });
    },
  };
}
