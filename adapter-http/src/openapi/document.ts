// The OpenAPI 3.1 document of the service, generated from the route table (routes/index.ts: paths, methods,
// auth, metering, upload formats, the vectorize line), the routes' own validation (request fields, described
// by running it: RouteMeta.fields) and the error registry (engine/src/errors.ts: codes and statuses).
// operations.ts adds what code cannot say (summaries, reply schemas, prose). Served at GET
// /api/v1/openapi.json and committed as docs/openapi.json (`npm run openapi`; a test keeps them equal).
// Internal: the field descriptions (option tables, parse helpers), from which the request schemas come.
import type { validate } from '@inkprep/engine/internals';
import { ERROR_CODES, type HttpErrorCode } from '../errors/registry.js';
import type { RouteDef, RouteField, RouteMeta } from '../routes/define.js';
import { IDEMPOTENCY_KEY_PATTERN, REPLAYED_HEADER } from '../routes/idempotency.js';
import { OPERATION_DOCS, SERVER_OPERATIONS, type HeaderDoc, type OperationDoc } from './operations.js';
import { JOB, errorSchema, filePartSchema, mediaSchema, type Schema } from './schemas.js';
import { MAX_PREFER_WAIT_S } from '../routes/image-route.js';

/** `/a/:key` -> `/a/{key}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

/** The key of a route in OPERATION_DOCS and in the document: `GET /api/v1/upscale/results/{key}`. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${openApiPath(path)}`;
}

/** `GET /api/v1/garments/style` -> `get_garments_style`; `GET /` -> `get_root`. */
function operationId(key: string): string {
  const [method, path] = key.split(' ') as [string, string];
  const rest = path.replace(/^\/(api\/v1\/)?/, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return `${method.toLowerCase()}_${rest || 'root'}`;
}

/** JSON Schema of one request field, from its option table entry or what its parser noted. */
export function fieldSchema(f: validate.FieldSpec, description?: string): Schema {
  let s: Schema;
  switch (f.kind) {
    case 'bool': s = { type: 'boolean' }; break;
    case 'enum': s = { type: 'string', enum: [...(f.values ?? [])] }; break;
    case 'text': s = { type: 'string', minLength: 1 }; break;
    case 'number':
    case 'integer': {
      const n: Schema = f.values ? { type: f.kind, enum: [...f.values] } : { type: f.kind, ...(f.min !== undefined ? { minimum: f.min } : {}), ...(f.max !== undefined ? { maximum: f.max } : {}) };
      s = f.words?.length ? { anyOf: [n, { type: 'string', enum: [...f.words] }] } : n;
      break;
    }
  }
  const notes = [description, f.defaultVaries ? 'the default depends on other fields' : undefined].filter(Boolean).join('; ');
  return { ...s, ...(f.default !== undefined ? { default: f.default } : {}), ...(notes ? { description: notes } : {}) };
}

/** Error codes a route can answer with, by status: its kind's codes plus the ones its doc adds. */
export function errorCodesFor(meta: RouteMeta, doc: OperationDoc, hasFields: boolean): Map<number, HttpErrorCode[]> {
  // malformed_request: node:http answers a request whose framing it cannot read before routing, on any path.
  const codes = new Set<HttpErrorCode>(['internal_error', 'shutting_down', 'malformed_request']);
  // Authentication reads the store: while it is away, 503 store_unavailable (with Retry-After).
  if (meta.auth) for (const c of ['unauthorized', 'plan_inactive', 'account_suspended', 'store_unavailable'] as const) codes.add(c);
  if (hasFields || meta.kind === 'image') codes.add('invalid_option');
  if (meta.kind === 'image') {
    for (const c of ['missing_image', 'image_unreadable', 'unsupported_format', 'image_too_large', 'body_too_large', 'processing_failed', 'engine_overloaded', 'aborted'] as const) codes.add(c);
  }
  if (meta.meter !== 'none') codes.add('daily_limit_exceeded');
  if (typeof meta.meter === 'object') codes.add('fair_use_exceeded');
  if (meta.idempotent) for (const c of ['invalid_idempotency_key', 'idempotency_key_in_progress', 'idempotency_key_reused'] as const) codes.add(c);
  if (meta.async) {
    codes.add('too_many_jobs');
    codes.add('invalid_callback_url');
  }
  if (meta.queue) {
    codes.add('queue_full');
    codes.add('queue_unavailable');
  }
  for (const c of doc.errors ?? []) codes.add(c);
  const byStatus = new Map<number, HttpErrorCode[]>();
  for (const c of Object.keys(ERROR_CODES) as HttpErrorCode[]) {
    if (!codes.has(c)) continue;
    const st = ERROR_CODES[c].status;
    byStatus.set(st, [...(byStatus.get(st) ?? []), c]);
  }
  return new Map([...byStatus].sort((a, b) => a[0] - b[0]));
}

/** Error codes in the registry's order (the document's). */
const CODE_ORDER = Object.keys(ERROR_CODES) as HttpErrorCode[];

const REQUEST_ID: HeaderDoc = { schema: { type: 'string' }, description: 'id of this request in the server log' };
/** Sent by both transports on every reply, errors included (transport/uws.ts, transport/node.ts). */
const NOSNIFF: HeaderDoc = { schema: { const: 'nosniff' }, description: 'no content sniffing: every reply, errors included' };

const SECONDS: HeaderDoc['schema'] = { type: 'string', pattern: '^[0-9]+$' };
/** The rate-limit headers of metered replies (docs/artwork-api-v1.md 8.1; limits/meter.ts rateLimitHeaders). */
function rateLimitHeaders(required: boolean): Record<string, HeaderDoc> {
  return {
    'X-RateLimit-Limit': { schema: SECONDS, description: 'the binding limit: uses allowed in its window (the policy below)', required },
    'X-RateLimit-Remaining': { schema: SECONDS, description: 'uses left in that window after this call (0 on its 429)', required },
    'X-RateLimit-Reset': { schema: SECONDS, description: 'seconds until Remaining next grows: the oldest counted use leaves the rolling 24 h window, or the UTC month ends (on a 429: = Retry-After)', required },
    'X-RateLimit-Policy': {
      schema: { type: 'string', enum: ['daily', 'fair_use', 'monthly'] },
      description: 'which limit binds: daily (this key, rolling 24 h), fair_use (the account cap of remove-bg/upscale, rolling 24 h), monthly (the remove-bg allowance, UTC calendar month)',
      required,
    },
  };
}

/**
 * Headers an error answer carries, by code: the one place to declare them (http/errors.ts sets them). An
 * answer whose status several codes share lists each header as optional (present on those codes only).
 */
export const ERROR_HEADERS: Readonly<Partial<Record<HttpErrorCode, Readonly<Record<string, HeaderDoc>>>>> = {
  daily_limit_exceeded: {
    'Retry-After': { schema: SECONDS, description: 'seconds until a call may succeed (daily_limit_exceeded, fair_use_exceeded)' },
    ...rateLimitHeaders(true),
  },
  fair_use_exceeded: {
    'Retry-After': { schema: SECONDS, description: 'seconds until a call may succeed (daily_limit_exceeded, fair_use_exceeded)' },
    ...rateLimitHeaders(true),
  },
  store_unavailable: {
    'Retry-After': { schema: SECONDS, description: 'seconds to wait before retrying (store_unavailable on an API route; equal to the body\'s retry_after_seconds)', required: false },
  },
  idempotency_key_in_progress: {
    'Retry-After': { schema: SECONDS, description: 'seconds after which to send the same request again (idempotency_key_in_progress; equal to the body\'s retry_after_seconds)' },
  },
  too_many_jobs: {
    'Retry-After': { schema: SECONDS, description: 'seconds after which to submit again (too_many_jobs; equal to the body\'s retry_after_seconds)' },
  },
};

/** What `Prefer: handling=strict` does, on every route (routes/unknown-fields.ts). */
const STRICT_TEXT = 'handling=strict: a field or query parameter the operation does not read is 400 unknown_field (naming it, with the nearest known name) '
  + 'instead of being ignored and listed in X-Ignored-Fields; the answers after the fields were read then carry Preference-Applied: handling=strict (one sent before, e.g. a 401, does not).';

/** The Prefer request header (RFC 7240; jobs/prefer.ts): respond-async and wait on metered POSTs, handling=strict everywhere. */
function preferParam(async: boolean): Record<string, unknown> {
  const jobs = 'respond-async: the request is admitted exactly as without it (the same 4xx answers), then answered 202 Accepted with the job '
    + '(Location: /api/v1/jobs/{id}, Preference-Applied: respond-async) instead of the result; GET the job until it is final. wait=N (seconds, with respond-async, '
    + `at most ${MAX_PREFER_WAIT_S}): the 202 waits up to N s for the job to finish, so a short job's body is already final. `;
  return {
    name: 'Prefer', in: 'header', required: false,
    description: `RFC 7240. ${async ? jobs : ''}${STRICT_TEXT} Other preferences are ignored.`,
    schema: { type: 'string', examples: async ? ['respond-async', 'respond-async, wait=10', 'handling=strict'] : ['handling=strict'] },
  };
}

/** Headers every answer of a route may carry once its fields were read (routes/unknown-fields.ts). */
const FIELD_CHECK_HEADERS = {
  'X-Ignored-Fields': { $ref: '#/components/headers/X-Ignored-Fields' },
  'Preference-Applied': { $ref: '#/components/headers/Preference-Applied' },
};
/** One name of X-Ignored-Fields as routes/unknown-fields.ts escapes it (`""` is the empty name). */
const IGNORED_NAME = '(\\?)?([A-Za-z0-9_.%\\[\\]-]+|"")';
const IGNORED_FIELDS: HeaderDoc = {
  schema: { type: 'string', pattern: `^${IGNORED_NAME}(, ${IGNORED_NAME})*(, \\(\\+[0-9]+ more\\))?$` },
  description: 'the fields (and query parameters) the request sent that this operation does not read, which were ignored: sorted, comma-separated; '
    + 'bytes outside A-Z a-z 0-9 _ . - [ ] percent-encoded, a name cut at 64 characters ends in "...", a POST\'s query parameter (never read) listed as ?name, '
    + 'at most 20 names then "(+N more)". Absent when every field was read. Sent on every answer after the fields were read (errors included), on the 202 of '
    + 'a job and in its result.headers. With Prefer: handling=strict they are 400 unknown_field instead.',
  required: false,
};
const PREFERENCE_APPLIED: HeaderDoc = {
  schema: { type: 'string', pattern: '^(respond-async(, wait=[0-9]+)?|handling=strict)(, handling=strict)?$' },
  description: 'the preferences of the Prefer header honoured: handling=strict on every answer after the fields were checked (the 202 of a job also respond-async[, wait=N])',
  required: false,
};

/** The form field of a job's callback (the webhooks module posts the final job there). */
const CALLBACK_FIELD: Schema = {
  type: 'string', minLength: 1, maxLength: 2048, format: 'uri',
  description: 'with Prefer: respond-async only (400 invalid_option otherwise): the URL the finished job is posted to, signed (see the callback jobFinished). '
    + 'https to a public address; plain http and private addresses only to hosts in INKPREP_WEBHOOK_ALLOW_HOSTS (else 400 invalid_callback_url)',
};

/** The webhook a job's callback_url receives (webhooks/dispatcher.ts): OpenAPI `callbacks` of every POST that can be a job. */
const JOB_CALLBACK = {
  jobFinished: {
    '{$request.body#/callback_url}': {
      post: {
        summary: 'The job ended (succeeded, failed or canceled)',
        description: 'The job body as GET /api/v1/jobs/{id} gives it when the job ended. Answer 2xx within INKPREP_WEBHOOK_TIMEOUT_MS (10 s); anything else '
          + '(another status, a timeout, a redirect: not followed) is retried with exponential backoff (30 s doubling to 1 h, jittered) for '
          + 'INKPREP_WEBHOOK_RETRY_HOURS (24). Verify Inkprep-Signature on the raw body (docs/guides/webhooks.md); skip an Inkprep-Webhook-Id already handled.',
        parameters: [
          { name: 'Inkprep-Signature', in: 'header', required: true, description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the account\'s webhook secret>; a second v1 during a secret rotation\'s grace', schema: { type: 'string', pattern: '^t=[0-9]+(,v1=[0-9a-f]{64})+$' } },
          { name: 'Inkprep-Webhook-Id', in: 'header', required: true, description: 'the delivery: the same on every retry (deduplicate on it)', schema: { type: 'string', pattern: '^whd_[0-9a-f]{24}$' } },
          { name: 'Inkprep-Webhook-Attempt', in: 'header', required: true, description: '1 for the first attempt, 2 for the first retry, ...', schema: { type: 'integer', minimum: 1 } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: JOB } } },
        responses: { '2XX': { description: 'delivered: no further attempt' }, default: { description: 'a failed attempt: retried later' } },
      },
    },
  },
};

/** The 202 of a metered POST sent with Prefer: respond-async. */
function acceptedReply(idempotent: boolean): Record<string, unknown> {
  return {
    description: 'Prefer: respond-async: the job (queued, or final when Prefer wait= let it finish)',
    headers: headersObject({
      Location: { schema: { type: 'string', pattern: '^/api/v1/jobs/job_[0-9a-f]{24}$' }, description: 'the job: GET it for its status and result, DELETE it to cancel' },
      'Preference-Applied': { schema: { type: 'string', pattern: '^respond-async(, wait=[0-9]+)?(, handling=strict)?$' }, description: 'the preferences honoured' },
      ...(idempotent ? { [REPLAYED_HEADER]: REPLAYED_DOC } : {}),
    }),
    content: { 'application/json': { schema: JOB } },
  };
}

/** The request header of metered POSTs (routes/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAM = {
  name: 'Idempotency-Key', in: 'header', required: false,
  description: 'makes a retry safe: within 24 hours, the same request (method, path, account, fields and file) with the same key gets the first answer again '
    + '(with Idempotent-Replayed: true), without running or counting again; the key with a different request is 422 idempotency_key_reused; while the first '
    + 'still runs, 409 idempotency_key_in_progress with Retry-After. 2xx and deterministic 4xx answers are kept; 429 and 5xx are not (a retry runs again). Keys are per account.',
  schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN, minLength: 1, maxLength: 255 },
};

const REPLAYED_DOC: HeaderDoc = { schema: { const: 'true' }, description: 'present on an answer replayed for an Idempotency-Key (the first answer, stored)', required: false };

function headersObject(headers: Record<string, HeaderDoc>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
    'X-Content-Type-Options': { $ref: '#/components/headers/X-Content-Type-Options' },
  };
  for (const [name, h] of Object.entries(headers)) out[name] = { description: h.description, required: h.required ?? true, schema: h.schema };
  return out;
}

/** The headers of an answer shared by `codes`: required only when every code of the status sends it. */
function errorHeaders(codes: readonly HttpErrorCode[]): Record<string, HeaderDoc> {
  const out: Record<string, HeaderDoc> = {};
  for (const c of codes) {
    for (const [name, h] of Object.entries(ERROR_HEADERS[c] ?? {})) {
      const everywhere = codes.every((o) => ERROR_HEADERS[o]?.[name] !== undefined);
      out[name] = { ...h, required: (h.required ?? true) && everywhere };
    }
  }
  return out;
}

/** The body schema of an error answer: the one code's error schema, or any of the codes of that status. */
function errorBodySchema(codes: readonly HttpErrorCode[]): Schema {
  return codes.length === 1
    ? { $ref: `#/components/schemas/Error_${codes[0]}` }
    : { oneOf: codes.map((c) => ({ $ref: `#/components/schemas/Error_${c}` })) };
}

function errorResponse(status: number, codes: readonly HttpErrorCode[]): Record<string, unknown> {
  const desc = status === 499 ? 'the client closed the connection (logged; never delivered)' : codes.join(', ');
  return { description: desc, headers: headersObject(errorHeaders(codes)), content: { 'application/json': { schema: errorBodySchema(codes) } } };
}

/** `routed`: a route of the table (checks its fields: routes/unknown-fields.ts), not an answer of the server itself. */
function operation(route: RouteDef, meta: RouteMeta, doc: OperationDoc, key: string, routed = true): Record<string, unknown> {
  const fields = meta.fields();
  const names = new Set(fields.map((f) => f.field));
  for (const n of Object.keys(doc.fields ?? {})) {
    if (!names.has(n)) throw new Error(`openapi: ${key} documents field ${n}, which its validation never reads`);
    // A field with an option table entry is documented there, once.
    if (fields.some((f) => f.field === n && f.doc !== undefined)) throw new Error(`openapi: ${key} documents field ${n}, which its option table documents`);
  }
  const describe = (f: RouteField) => fieldSchema(f, f.doc ?? doc.fields?.[f.field]);
  const op: Record<string, unknown> = {
    operationId: operationId(key),
    summary: doc.summary,
    ...(doc.description || doc.spec ? { description: [doc.description, doc.spec ? `Spec section ${doc.spec}.` : undefined].filter(Boolean).join(' ') } : {}),
    tags: [doc.tag],
    security: meta.auth ? [{ ApiKey: [] }, { Bearer: [] }] : [],
  };
  const params: unknown[] = [...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string', minLength: 1 } }));
  for (const [name, h] of Object.entries(doc.requestHeaders ?? {})) params.push({ name, in: 'header', required: h.required ?? false, description: h.description, schema: h.schema });
  if (meta.kind === 'get') {
    for (const f of fields) params.push({ name: f.field, in: 'query', required: !!f.required, schema: describe(f) });
  } else {
    // the file part: `image`, or the one route's repeated file field (POST /gangsheet: `design`)
    const fileField = meta.repeatedFile?.name ?? 'image';
    const formats = (meta.formats ?? []).map((f) => f.toUpperCase()).join(', ');
    const properties: Record<string, unknown> = {
      [fileField]: meta.repeatedFile
        ? { type: 'array', minItems: 1, maxItems: meta.repeatedFile.max, items: filePartSchema(`one design file: ${formats}`), description: `the design files, one part each (${fileField} repeated up to ${meta.repeatedFile.max} times, in item index order)` }
        : filePartSchema(`the image file: ${formats}`),
    };
    for (const f of fields) properties[f.field] = describe(f);
    if (meta.async) properties.callback_url = CALLBACK_FIELD;
    op.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', required: [fileField, ...fields.filter((f) => f.required).map((f) => f.field)], properties },
          encoding: { [fileField]: { contentType: (meta.formats ?? []).map((f) => `image/${f}`).join(', ') } },
        },
      },
    };
  }
  if (meta.idempotent) params.push(IDEMPOTENCY_KEY_PARAM);
  if (routed || meta.async) params.push(preferParam(meta.async === true));
  if (params.length) op.parameters = params;
  const responses: Record<string, unknown> = {};
  for (const r of doc.replies) {
    const content: Record<string, unknown> = {};
    if (r.json) content['application/json'] = { schema: r.json };
    for (const m of r.media ?? []) content[m] = { schema: mediaSchema(m) };
    const metered = meta.meter !== 'none' && r.status >= 200 && r.status < 300;
    const replayed: Record<string, HeaderDoc> = meta.idempotent && r.status >= 200 && r.status < 300 ? { [REPLAYED_HEADER]: REPLAYED_DOC } : {};
    responses[String(r.status)] = { description: r.description, headers: headersObject({ ...r.headers, ...(metered ? rateLimitHeaders(true) : {}), ...replayed }), content };
  }
  if (meta.async) responses['202'] = acceptedReply(meta.idempotent === true);
  const errorCodes = errorCodesFor(meta, doc, fields.length > 0);
  if (routed) errorCodes.set(400, [...new Set<HttpErrorCode>([...(errorCodes.get(400) ?? []), 'unknown_field'])].sort((a, b) => CODE_ORDER.indexOf(a) - CODE_ORDER.indexOf(b)));
  for (const [status, codes] of [...errorCodes].sort((a, b) => a[0] - b[0])) {
    const k = String(status);
    const own = responses[k] as { content: Record<string, { schema?: Schema }> } | undefined;
    if (own) {
      // A documented non-error reply on an error status (GET /healthz 503 draining): either body.
      const j = own.content['application/json'];
      own.content['application/json'] = { schema: { oneOf: [j?.schema ?? {}, ...codes.map((c) => ({ $ref: `#/components/schemas/Error_${c}` }))] } };
      (own as { headers?: Record<string, unknown> }).headers = { ...headersObject(errorHeaders(codes)), ...(own as { headers?: Record<string, unknown> }).headers };
    } else responses[k] = errorResponse(status, codes);
  }
  if (routed) {
    for (const r of Object.values(responses) as { headers: Record<string, unknown> }[]) {
      // the 202 declares its own Preference-Applied (required there)
      for (const [name, h] of Object.entries(FIELD_CHECK_HEADERS)) if (!(name in r.headers)) r.headers[name] = h;
    }
  }
  op.responses = responses;
  if (meta.async) op.callbacks = JOB_CALLBACK;
  return op;
}

/**
 * Which operations a document holds: `api` (default: what is served at /api/v1/openapi.json and committed as
 * docs/openapi.json) leaves out the operations marked `unpublished` (the try-it page's files, /metrics);
 * `all` describes every reply the server can give (the test suite checks every reply against it).
 */
export type OpenApiScope = 'api' | 'all';

/** Build the document for a route table (default: the service's). */
export function buildOpenApi(routes: readonly RouteDef[], opts: { version?: string; scope?: OpenApiScope } = {}): Record<string, unknown> {
  const scope = opts.scope ?? 'api';
  const published = (doc: OperationDoc): boolean => scope === 'all' || doc.unpublished === undefined;
  const paths: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  for (const route of routes) {
    const key = operationKey(route.method, route.path);
    const doc = OPERATION_DOCS[key];
    if (!route.meta) throw new Error(`openapi: ${key} has no route metadata (declare it with getRoute or postImageRoute)`);
    if (!doc) throw new Error(`openapi: ${key} has no entry in adapter-http/src/openapi/operations.ts`);
    seen.add(key);
    // Built even when left out, so a route the public document omits is still checked against its entry.
    const op = operation(route, route.meta, doc, key);
    if (published(doc)) (paths[openApiPath(route.path)] ??= {})[route.method] = op;
  }
  for (const key of Object.keys(OPERATION_DOCS)) {
    if (!seen.has(key)) throw new Error(`openapi: operations.ts documents ${key}, which is not in the route table`);
  }
  for (const [key, doc] of Object.entries(SERVER_OPERATIONS)) {
    if (!published(doc)) continue;
    const [method, path] = key.split(' ') as [string, string];
    const meta: RouteMeta = { kind: 'get', auth: false, meter: 'none', fields: () => [] };
    (paths[path] ??= {})[method.toLowerCase()] = operation({ method: 'get', path, handle: () => {} }, meta, doc, key, false);
  }
  const schemas: Record<string, Schema> = {};
  for (const c of Object.keys(ERROR_CODES) as HttpErrorCode[]) schemas[`Error_${c}`] = errorSchema(c);
  return {
    openapi: '3.1.0',
    info: {
      title: 'inkprep Artwork Processing API',
      version: opts.version ?? '1.0.0',
      description: 'Analyses, repairs, vectorizes, upscales, background-cleans and mocks up print artwork (DTF). Contract: docs/artwork-api-v1.md. Generated from the route table and the request validation (npm run openapi). Lists the API calls (/api/v1/*) and the health checks operators call (/healthz, /readyz); the try-it page\'s files and /metrics are not part of it.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'artwork', description: 'image operations' },
      { name: 'mockup', description: 'garments and mockups' },
      { name: 'status', description: 'unmetered status reads' },
      { name: 'service', description: 'service endpoints' },
      ...(scope === 'all' ? [{ name: 'web', description: 'the try-it page (GET /) and its files' }] : []),
    ],
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API key of an account with an active Business plan' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'the same API key as a bearer token' },
      },
      headers: {
        'X-Request-Id': { description: REQUEST_ID.description, required: true, schema: REQUEST_ID.schema },
        'X-Content-Type-Options': { description: NOSNIFF.description, required: true, schema: NOSNIFF.schema },
        'X-Ignored-Fields': { description: IGNORED_FIELDS.description, required: false, schema: IGNORED_FIELDS.schema },
        'Preference-Applied': { description: PREFERENCE_APPLIED.description, required: false, schema: PREFERENCE_APPLIED.schema },
      },
      schemas,
      responses: {
        NotFound: { description: 'no such path (any method)', headers: headersObject({}), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error_not_found' } } } },
        MethodNotAllowed: {
          description: 'the path exists with other methods',
          headers: headersObject({ Allow: { schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' }, description: 'the methods the path allows' } }),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error_method_not_allowed' } } },
        },
      },
    },
  };
}

/** The document as served and committed (docs/openapi.json): 2-space JSON with a final newline. */
export function openApiText(routes: readonly RouteDef[]): string {
  return JSON.stringify(buildOpenApi(routes), null, 2) + '\n';
}
