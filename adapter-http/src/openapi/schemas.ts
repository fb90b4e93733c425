// JSON Schemas (draft 2020-12, as OpenAPI 3.1 uses) of the response bodies of spec 2.1-2.10 and of the
// error extras of section 7. Objects are closed (`additionalProperties: false`): a field a route adds
// without documenting it here fails the response validation of the HTTP suite (test/http/openapi-*.ts).
import { ERROR_CODES, type HttpErrorCode } from '../errors/registry.js';

/** A JSON Schema object (the subset this module writes). */
export type Schema = { [k: string]: unknown };

/** A closed object: every property required unless listed in `optional`. */
export function obj(properties: Record<string, Schema>, optional: readonly string[] = [], description?: string): Schema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', ...(description ? { description } : {}), properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

const str = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
const int = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
const hex: Schema = { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' };
const size = obj({ width: int(), height: int() });
/** A stable lower-case code (warnings, issues). */
const codeWord: Schema = { type: 'string', pattern: '^[a-z0-9_]+$' };

/** 2.1 / 4.7: the vectorize line. */
export const QUEUE_SNAPSHOT = obj({
  queue: obj({
    converting: bool('a conversion is running'),
    waiting: int('requests waiting in the line'),
    max_waiting: int('length of the line; a request beyond it gets 429 queue_full'),
  }),
});

/** 2.2: scan report. */
export const SCAN_REPORT = obj({
  width: int('px'),
  height: int('px'),
  dpi: num('effective resolution at print_width_inches (width px / inches)'),
  stated_dpi: nullable(num('the density the file states, or null')),
  print_width_inches: num(),
  print_height_inches: num(),
  format: { type: 'string', enum: ['png', 'jpeg', 'webp'] },
  background: { type: 'string', enum: ['transparent', 'solid', 'complex'], description: 'detected background type' },
  background_color: { type: ['string', 'null'], pattern: '^#[0-9a-fA-F]{6}$', description: '#rrggbb when background is solid, else null' },
  alpha: obj({
    has_transparency: bool(),
    soft_rim_px: num('average width in px of the semi-transparent band around the artwork (anti-aliasing is about 1 px)'),
    semi_transparent_percent: num(),
    has_fringe: bool(),
    fringe_color: { type: ['string', 'null'], pattern: '^#[0-9a-fA-F]{6}$' },
    fringe_percent: num(),
    seam_percent: num(),
    transparent_percent: num(),
    semi_ink_percent: num(),
    edge_length_px: num(),
  }),
  transparency_fix: obj({
    recommended: { type: 'string', enum: ['remove', 'halftone', 'either', 'none'], description: 'remove = POST /fix fix_alpha_threshold, halftone = fix_halftone' },
    reason: str('plain-English reason'),
  }),
  ink_coverage_percent: num(),
  speck_count: int(),
  speck_max_px: num(),
  is_jpeg: bool(),
  edge_quality: { type: 'string', enum: ['clean', 'soft', 'jagged', 'fringed'] },
  thin_line_percent: num(),
  content_box: { oneOf: [obj({ x: int(), y: int(), width: int(), height: int() }), { type: 'null' }] },
  issues: arr(obj({ code: codeWord, severity: { type: 'string', enum: ['error', 'warning', 'info'] }, message: str() })),
  suggestions: arr(obj({ field: str('a POST /fix form field'), value: str('the text value to send'), reason: str() })),
});

const fairUse = {
  fairUsePerDay: nullable(int('null = uncapped')),
  fairUseUsed: nullable(int()),
  fairUseRemaining: nullable(int()),
};

/** 2.3: background-removal limits. */
export const REMOVE_BG_LIMITS = obj({ maxPixels: int(), ...fairUse });

/** 2.4: upscale limits. */
export const UPSCALE_LIMITS = obj({
  maxPixels: int('largest 2x input, including the auto-shrink allowance'),
  maxPixels4x: int('largest 4x input'),
  budget: int('pixels the 2x upscaler runs at'),
  budget4x: int('pixels the 4x upscaler runs at'),
  autoShrink: { const: true },
  shrinkAllowance: { const: 4 },
  scales: { type: 'array', prefixItems: [{ const: 2 }, { const: 4 }], items: false, minItems: 2 },
  ...fairUse,
});

/** 2.5: upscale result. */
export const UPSCALE_RESULT = obj({
  output_url: str('address of the upscaled PNG'),
  scale: { type: 'integer', enum: [2, 4] },
  preShrunk: bool('the input was shrunk to the budget first'),
  from: size,
  to: size,
  effectiveScale: { type: 'number', exclusiveMinimum: 0, description: 'output width / input width (below scale when the input was shrunk first)' },
  width: int('output px'),
  height: int('output px'),
  route: { type: 'string', enum: ['vector', 'model', 'resample'], description: 'how the image was enlarged' },
  output_hosted_by: { type: 'string', enum: ['service', 'provider'] },
  output_url_expires: bool('true: short-lived, download immediately'),
  output_url_expires_at: { type: 'string', format: 'date-time', description: 'when output_url_expires' },
}, ['from', 'to', 'output_url_expires_at']);

/** 2.6: mockup templates. */
export const TEMPLATE_LIST = obj({
  templates: arr(obj({
    id: str(), name: str(), category: str(), preview_url: str(), width_px: int(), height_px: int(),
    placements: arr(obj({ id: str(), name: str('Center, Left Chest, Full Front ...') })),
  })),
});

/** 2.7: garment search. */
export const GARMENT_SEARCH = obj({
  styles: arr(obj({
    key: { type: 'string', pattern: '^[^:]+:.+$', description: '<supplier>:<style_id>' },
    supplier: str(), brand: str(), style_number: str(), title: str(), category: str(),
    thumb: nullable(str()),
    color_count: nullable(int()),
  })),
  suppliers: arr(obj({
    id: str(), name: str(), status: { type: 'string', enum: ['ok', 'unavailable'] }, count: int(), message: str('why it was unavailable'),
  }, ['message'])),
  warnings: arr(obj({ code: { const: 'supplier_unavailable' }, message: str() })),
});

/** 2.8: garment style detail (never prices). */
export const GARMENT_STYLE = obj({
  key: str(), supplier: str(), brand: str(), style_number: str(), title: str(), category: str(),
  sizes: arr(str()),
  chest_by_size_in: { type: 'object', additionalProperties: num(), description: 'chest width in inches per size' },
  colors: arr(obj({
    id: str(), name: str(), hex,
    images: obj({ front: nullable(str()), back: nullable(str()) }),
    sizes: arr(obj({ size: str(), sku: str(), in_stock: bool() })),
  })),
  placements: arr(obj({
    id: str(), name: str(), view: { type: 'string', enum: ['front', 'back'] },
    default_width_in: num(), max_width_in: num(), default_top_in: num(),
  })),
});

/** 2.9: mockup JSON result (`response=json`). */
export const MOCKUP_JSON = obj({
  garment: obj({ key: str(), title: str(), color: obj({ id: str(), name: str(), hex }), size: nullable(str()) }),
  view: { type: 'string', enum: ['front', 'back'] },
  placement: str(),
  print: obj({
    width_in: num(), height_in: num(), top_in: num(), offset_x_in: num(), description: str(),
    artwork_px: size, effective_dpi: num(),
    preview_fix: { type: ['string', 'null'], enum: ['alpha_threshold', 'halftone', null] },
  }),
  warnings: arr(obj({ code: codeWord, message: str() })),
  image: obj({ content_type: { type: 'string', enum: ['image/png', 'image/jpeg'] }, width: int(), height: int(), base64: { type: 'string', contentEncoding: 'base64' } }),
});

/** POST /mockup/batch: every mockup in item order, the 2.9 facts with the image by URL (hosted like upscale's output). */
export const MOCKUP_BATCH_JSON = obj({
  count: int('images rendered (= items sent); each counted one use'),
  images: arr(obj({
    index: int('the item\'s position in items'),
    ...(MOCKUP_JSON.properties as Record<string, Schema>),
    image: obj({
      content_type: { type: 'string', enum: ['image/png', 'image/jpeg'] }, width: int(), height: int(),
      url: str('address of the image (GET, no key needed: the address is the secret)'),
      hosted_by: { type: 'string', enum: ['service', 'provider'], description: 'service: the result storage (lasting); provider: held by this process after a storage failure (short-lived)' },
      url_expires: bool('true: short-lived, download immediately'),
      url_expires_at: { type: 'string', format: 'date-time', description: 'when url expires' },
    }, ['url_expires_at']),
  })),
});

const pixelBox = obj({ x: int(), y: int(), width: int(), height: int() });

/** POST /underbase format=json (http/wire.ts UnderbaseWire). */
export const UNDERBASE_JSON = obj({
  width: int(), height: int(), dpi: num(), print_width_inches: num(), print_height_inches: num(),
  garment_color: nullable(hex), garment_source: nullable(str('style:color when the colour came from the catalog')),
  knockout: { type: 'string', enum: ['none', 'black', 'garment'] },
  choke_mm: num(), choke_px: num(),
  transparency_fix: { type: ['string', 'null'], enum: ['alpha_threshold', 'halftone', null] },
  white_ink_sq_in: num('white ink area weighted by density, square inches'),
  color_ink_sq_in: num('process ink area, square inches'),
  white_only_sq_in: num('art printed with white ink alone, square inches'),
  knocked_out_sq_in: num('art knocked out (the garment shows), square inches'),
  white_coverage_percent: num('white ink area over the print area'),
  warnings: arr(obj({
    code: { type: 'string', enum: ['nothing_to_print', 'white_too_thin', 'knockout_gap_too_narrow', 'semi_transparent_pixels'], description: 'nothing_to_print: the art has no ink, or the knock-out leaves under 1 % of its ink (inked pixels weighted by alpha) to print' },
    message: str(), count: int(), pixels: int(), boxes: arr(pixelBox, 'the largest regions, in the art\'s pixels'),
  })),
  white_plate: { type: 'string', contentEncoding: 'base64', description: 'the white plate, 8-bit grey PNG' },
  color_plate: { type: 'string', contentEncoding: 'base64', description: 'the colour plate (knock-out applied), RGBA PNG' },
}, ['white_plate', 'color_plate']);

/** POST /gangsheet format=json (engine manifestJson). */
export const GANGSHEET_JSON = obj({
  sheets: arr(obj({ index: int(), width_in: num(), length_in: num('length to cut, inches'), copies: int(), ink_sq_in: num(), utilisation: num('ink area over sheet area, 0..1') })),
  utilisation: num('ink area over all sheets\' area, 0..1'),
  ink_sq_in: num('ink-bearing area (alpha > 0) of every copy, square inches'),
  fast_placed: int('copies placed in rows after the time budget ran out'),
  search_capped: bool('true when the time budget (a wall-clock cap) cut the search short, so the layout may vary with the machine\'s load; false when the work budget alone bounded it (the same request gives the same layout)'),
  placements: arr(obj({
    item: int(), copy: int(), design: int(), sheet: int(),
    x_in: num('left of the placed art\'s box from the sheet\'s left edge: the design cut to its ink (its transparent edges are not placed), after the turn; every box lies on the sheet inside the margins'), y_in: num('top of the box from the sheet\'s top edge'),
    width_in: num('the box\'s width after the turn: the design\'s ink box at the item\'s print size'), height_in: num(), rotation: { type: 'integer', enum: [0, 90, 180, 270], description: 'clockwise turn, degrees' },
  })),
  items: arr(obj({
    item: int(), design: int(),
    width_in: num('the design file\'s print size as asked (the item\'s width_in, or its height_in and the file\'s aspect), transparent edges included'), height_in: num(),
    art: obj({
      x_in: num('left of the ink box in the file, at the print size, unturned'), y_in: num(), width_in: num(), height_in: num(),
      x_px: int('the same box in the file\'s pixels'), y_px: int(), width_px: int(), height_px: int(),
    }, [], 'the part of the design file each copy places, draws and embeds: the box of its pixels with alpha > 0 (the whole file when it has no transparent edge)'),
  }), 'per item, in items order: the design file\'s print size and the art its copies place'),
  warnings: arr(obj({
    code: { type: 'string', enum: ['low_resolution', 'unused_design', 'nothing_to_print', 'white_too_thin', 'knockout_gap_too_narrow', 'semi_transparent_pixels'], description: 'unused_design: a design file no item names (design, no item); nothing_to_print (underbase=true): the item\'s art has no ink, or the knock-out leaves under 1 % of its ink (inked pixels weighted by alpha) to print' },
    item: int('index in items (every code but unused_design)'), design: int('index of the design file (unused_design)'), dpi: num('the art\'s resolution at its print size (every code but unused_design)'), message: str(),
    regions: int('the white layer\'s warnings: separate regions the underbase check found in the design'),
  }, ['item', 'design', 'dpi', 'regions'])),
  white: { oneOf: [obj({
    spot_name: str('the White separation\'s name in the PDF'),
    garment_color: { type: ['string', 'null'], pattern: '^#[0-9a-f]{6}$', description: 'the garment colour (given as hex, or the catalog colour\'s), or null' },
    garment_source: nullable(str('style:color when the colour came from the catalog')),
    knockout: { type: 'string', enum: ['none', 'black', 'garment'] },
    choke_mm: num(), knockout_tolerance: num(), white_density: int(), highlight_white: int(),
    fixed: { type: ['string', 'null'], enum: ['alpha_threshold', 'halftone', null], description: 'the transparency fix run first, if any' },
    plate_sets: int('plate sets made: one per design and print size'),
    white_ink_sq_in: num('white ink over every copy, density-weighted square inches'),
  }, [], 'the white layer (underbase=true) and the options that made it'), { type: 'null' }] },
});

const readyChecks = {
  store: obj({ ok: bool(), ms: num('time of a trivial query') }),
  engine: obj({ ok: bool(), threads: int(), running: int(), queued: int(), max_queue: int() }),
};

/** GET /readyz. */
export const READY = obj({ status: { const: 'ready' }, ...readyChecks });

/** GET /healthz. */
export const HEALTH = obj({ status: { type: 'string', enum: ['ok', 'draining'] } });

/** An asynchronous job (`Prefer: respond-async`; jobs/body.ts): the 202 of a submission, GET/DELETE /api/v1/jobs/{id}. */
export const JOB = obj({
  id: { type: 'string', pattern: '^job_[0-9a-f]{24}$' },
  status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'], description: 'queued (accepted; waiting, e.g. in the vectorize line), running, then one of the final states: succeeded, failed, canceled (DELETE)' },
  operation: str('the path the job runs, e.g. /api/v1/vectorize'),
  progress: nullable(obj({ fraction: num('share done, 0..1'), stage: nullable(str('the engine stage running (decode, quantize, trace...)')) }, [], 'from the engine\'s progress events; null before the first')),
  created_at: { type: 'string', format: 'date-time' },
  started_at: nullable({ type: 'string', format: 'date-time' }),
  finished_at: nullable({ type: 'string', format: 'date-time' }),
  result: obj({
    status: int('the synchronous answer\'s status'),
    content_type: str('the synchronous answer\'s Content-Type'),
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'the synchronous answer\'s X- headers (its numbers: X-Paths, X-Warnings...)' },
    body: { description: 'the synchronous JSON answer itself (JSON answers only)' },
    output_bytes: int('size of the binary output (binary answers only)'),
    output_url: str('where the binary output is served (GET, the same API key), kept as long as hosted results (INKPREP_RESULT_RETENTION_DAYS)'),
  }, ['body', 'output_bytes', 'output_url'], 'succeeded jobs: what the synchronous call would have answered'),
  error: obj({ status: int('the synchronous answer\'s status'), body: { type: 'object', description: 'the synchronous error body ({ error, code, ...})' } }, [], 'failed jobs: the error the synchronous call would have answered'),
  webhooks: arr(obj({
    id: { type: 'string', pattern: '^whd_[0-9a-f]{24}$', description: 'sent as Inkprep-Webhook-Id, the same on every attempt' },
    url: str('the callback_url'),
    state: { type: 'string', enum: ['pending', 'delivered', 'failed'], description: 'pending (an attempt is due or running), delivered (a 2xx), failed (refused address, or no 2xx within INKPREP_WEBHOOK_RETRY_HOURS)' },
    next_attempt_at: nullable({ type: 'string', format: 'date-time', description: 'while pending' }),
    attempts: arr(obj({
      at: { type: 'string', format: 'date-time' },
      status_code: nullable(int('the receiver\'s status; null when there was no answer')),
      error: nullable(str('why there was no answer: timeout after N ms, a connection error, address_not_allowed: ...')),
      duration_ms: int(),
    })),
  }), 'the deliveries of the job\'s callback_url (empty without one), every attempt recorded; in the 202 of a submission too (empty until the job is final)'),
}, ['result', 'error', 'webhooks']);

/** Extra fields of the error body, by code (spec 7: "some errors add fields"). Every registry code has an entry. */
export const ERROR_EXTRAS: Readonly<Record<HttpErrorCode, { properties: Record<string, Schema>; optional?: readonly string[] }>> = {
  invalid_option: { properties: { field: str('the field, parameter or form part at fault') } },
  unknown_field: {
    properties: {
      field: str('the first unknown field (escaped as in X-Ignored-Fields; a POST\'s query parameter as ?name)'),
      fields: str('every unknown field, as X-Ignored-Fields would list them'),
      suggestion: str('the known field the first one most likely meant'),
    },
    optional: ['suggestion'],
  },
  missing_image: { properties: {} },
  image_unreadable: { properties: {} },
  unsupported_format: { properties: { format: str('the format found') }, optional: ['format'] },
  image_too_large: {
    properties: { maxPixels: int(), pixels: int(), maxBytes: int('upload limit in bytes (while streaming)'), bytes: int() },
    optional: ['maxPixels', 'pixels', 'maxBytes', 'bytes'],
  },
  batch_too_large: { properties: { max_output_pixels: int('output pixels a synchronous answer holds'), output_pixels: int('items x output_size²'), items: int() } },
  body_too_large: { properties: { maxBytes: int(), bytes: int() }, optional: ['maxBytes', 'bytes'] },
  malformed_request: { properties: {} },
  unauthorized: { properties: {} },
  plan_inactive: { properties: { plan: str('current plan name') }, optional: ['plan'] },
  account_suspended: { properties: {} },
  not_found: { properties: {} },
  method_not_allowed: { properties: {} },
  daily_limit_exceeded: {
    properties: { limit: int(), used: int(), retry_after_seconds: int(), needed: int('uses the call counts (POST /mockup/batch: one per item)'), remaining: int('uses left before this call') },
    optional: ['needed', 'remaining'],
  },
  fair_use_exceeded: {
    properties: { limit: int(), used: int(), retry_after_seconds: int(), period: { const: 'month', description: 'the monthly provider allowance (absent: rolling 24 hours)' }, needed: int(), remaining: int() },
    optional: ['period', 'needed', 'remaining'],
  },
  queue_full: { properties: { queue: (QUEUE_SNAPSHOT.properties as Record<string, Schema>).queue! } },
  invalid_idempotency_key: { properties: {} },
  idempotency_key_in_progress: { properties: { retry_after_seconds: int('seconds after which to send the same request again (= Retry-After)') } },
  idempotency_key_reused: { properties: {} },
  job_not_found: { properties: {} },
  job_finished: { properties: { status: { type: 'string', enum: ['succeeded', 'failed'] } } },
  too_many_jobs: { properties: { limit: int('INKPREP_JOBS_MAX_ACTIVE'), retry_after_seconds: int('seconds after which to try again (= Retry-After)') } },
  invalid_callback_url: { properties: { field: { const: 'callback_url' } } },
  aborted: { properties: {} },
  engine_overloaded: { properties: { ...readyChecks }, optional: ['store', 'engine'] },
  // GET /readyz carries the checks; an API route carries retry_after_seconds (= Retry-After).
  store_unavailable: { properties: { ...readyChecks, retry_after_seconds: int('seconds to wait before retrying') }, optional: ['store', 'engine', 'retry_after_seconds'] },
  queue_unavailable: { properties: {} },
  supplier_unavailable: { properties: { supplier: str('supplier identifier') }, optional: ['supplier'] },
  shutting_down: { properties: { ...readyChecks }, optional: ['store', 'engine'] },
  not_separable: { properties: { reason: str(), model: { type: 'string', enum: ['absent', 'loading', 'failed'] } }, optional: ['reason', 'model'] },
  processing_failed: { properties: {} },
  internal_error: { properties: {} },
};

/** The error body (2.10) for one code: `{ error, code, ...extras }`. */
export function errorSchema(code: HttpErrorCode): Schema {
  const x = ERROR_EXTRAS[code];
  return obj({ error: str('readable message (for logs; clients show their own)'), code: { const: code }, ...x.properties }, x.optional ?? [], `${code}: ${ERROR_CODES[code].message}`);
}

/**
 * Media types whose body is text (SVG, EPS and DXF are text formats; so is anything text/*): typed as a string,
 * so a generated client reads them as text. Every other non-JSON body is binary.
 */
const TEXT_MEDIA: ReadonlySet<string> = new Set(['image/svg+xml', 'application/postscript', 'image/vnd.dxf']);

/** Whether a (parameter-free) media type is text. */
export function isTextMedia(type: string): boolean {
  return type.startsWith('text/') || TEXT_MEDIA.has(type);
}

/**
 * The schema of a non-JSON reply body: a string of that media type, binary (OAS `format: binary`, what client
 * generators map to a Blob) unless the type is text.
 */
export function mediaSchema(type: string): Schema {
  return isTextMedia(type) ? { type: 'string', contentMediaType: type } : { type: 'string', format: 'binary', contentMediaType: type };
}

/** A file part of a multipart form (`image`): binary, its accepted media types in the form's `encoding`. */
export function filePartSchema(description: string): Schema {
  return { type: 'string', format: 'binary', description };
}
