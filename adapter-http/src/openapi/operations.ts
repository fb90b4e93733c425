// What the route table cannot say about each endpoint: summary, success replies (JSON schema or media
// types, X- headers), error codes beyond the ones its kind implies, and prose for its fields. Keyed by
// `METHOD path` exactly as in routes/index.ts; the generator (document.ts) fails on a route without an
// entry and on an entry without a route. Fields of the ops are NOT here: they come from the ops' option
// tables (engine, options/table.ts), prose included; query parameters of GET routes are described by
// running their validation (RouteMeta.fields) and get their prose here.
// Internal: the media types the vectorize op writes, so the document lists exactly those.
import { MOCKUP_BATCH_LIMITS } from '@inkprep/engine';
import { CONTENT_TYPES } from '@inkprep/engine/internals';
import { type HttpErrorCode } from '../errors/registry.js';
import { WEB_FILES } from '../routes/web.js';
import { JOB_MAX_OUTPUT_PIXELS, SYNC_MAX_OUTPUT_PIXELS } from '../routes/mockup-batch.js';
import * as S from './schemas.js';
import type { Schema } from './schemas.js';

/** A response header: schema of its value (as text on the wire) and meaning. */
export interface HeaderDoc {
  schema: Schema;
  description: string;
  /** Always present on this reply (default true). */
  required?: boolean;
}

/** One documented non-error reply. */
export interface ReplyDoc {
  status: number;
  description: string;
  /** JSON body schema. */
  json?: Schema;
  /**
   * Binary or text media types (body not validated): each is typed by schemas.ts mediaSchema (text types as
   * a string, the others as binary), so a generated client reads them as text or as a Blob.
   */
  media?: readonly string[];
  headers?: Record<string, HeaderDoc>;
}

/** A request header an operation reads (besides the key, which the security schemes describe). */
export interface RequestHeaderDoc {
  schema: Schema;
  description: string;
  /** Default false. */
  required?: boolean;
}

export interface OperationDoc {
  summary: string;
  description?: string;
  tag: string;
  /** Spec section. */
  spec?: string;
  replies: readonly ReplyDoc[];
  /** Error codes this endpoint adds to those of its kind (auth, image upload, metering, line). */
  errors?: readonly HttpErrorCode[];
  /** Prose for request fields, by name (kinds, defaults and ranges come from the validation). */
  fields?: Readonly<Record<string, string>>;
  /** Request headers this endpoint reads (e.g. an idempotency key), declared once here. */
  requestHeaders?: Readonly<Record<string, RequestHeaderDoc>>;
  /**
   * Left out of the public document (served at /api/v1/openapi.json, docs/openapi.json, the HTTP reference):
   * why. The full document (`buildOpenApi(routes, { scope: 'all' })`), which the test suite checks every
   * reply against, still describes it.
   */
  unpublished?: string;
}

const intText = (description: string, required = true): HeaderDoc => ({ schema: { type: 'string', pattern: '^-?[0-9]+$' }, description, required });
const numText = (description: string): HeaderDoc => ({ schema: { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?$' }, description });
const text = (description: string): HeaderDoc => ({ schema: { type: 'string' }, description });
const codeList = (description: string): HeaderDoc => ({ schema: { type: 'string', pattern: '^([a-z0-9_]+(,[a-z0-9_]+)*)?$' }, description });

/** The try-it page and its assets (routes/web.ts): one entry per file of its fixed list. */
function webDocs(): Record<string, OperationDoc> {
  const out: Record<string, OperationDoc> = {};
  for (const [path, f] of Object.entries(WEB_FILES)) {
    const html = f.type.startsWith('text/html');
    out[`GET ${path}`] = {
      summary: path === '/' ? 'The try-it page' : `Try-it page asset ${f.file}`, tag: 'web',
      unpublished: 'the try-it page and its files are for a browser, not API calls',
      replies: [{
        status: 200, description: f.file, media: [f.type.split(';')[0]!],
        headers: {
          'Referrer-Policy': text('no-referrer'),
          'Cache-Control': text('no-cache'),
          ...(html ? {
            'X-Frame-Options': { schema: { const: 'DENY' }, description: 'never framed' },
            'Content-Security-Policy': text('this origin only, no inline script or style'),
          } : {}),
        },
      }],
    };
  }
  return out;
}

export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = {
  ...webDocs(),
  'GET /healthz': {
    summary: 'Liveness', tag: 'service',
    replies: [
      { status: 200, description: 'serving', json: S.HEALTH },
      { status: 503, description: 'draining before shutdown', json: S.HEALTH },
    ],
  },
  'GET /readyz': {
    summary: 'Readiness', tag: 'service',
    description: 'Whether this process should get traffic: the store answers and the engine pool accepts work. No key.',
    replies: [{ status: 200, description: 'ready', json: S.READY }],
    errors: ['store_unavailable', 'engine_overloaded'],
  },
  'GET /api/v1/openapi.json': {
    summary: 'This document (OpenAPI 3.1)', tag: 'service',
    replies: [{ status: 200, description: 'the OpenAPI document', json: { type: 'object', properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } }, required: ['openapi', 'info', 'paths'] } }],
  },
  'GET /api/v1/vectorize': {
    summary: 'Vectorize line status', tag: 'status', spec: '4.7',
    description: 'Unmetered. Use it before converting to choose between a loader and a busy message.',
    replies: [{ status: 200, description: 'the live line', json: S.QUEUE_SNAPSHOT }],
  },
  'GET /api/v1/remove-bg': {
    summary: 'Background-removal limits', tag: 'status', spec: '4.4 / 2.3',
    description: 'Unmetered; does not count against the cap it reports. The fairUse fields are null when uncapped.',
    replies: [{ status: 200, description: 'limits', json: S.REMOVE_BG_LIMITS }],
  },
  'GET /api/v1/upscale': {
    summary: 'Upscale limits', tag: 'status', spec: '4.6 / 2.4',
    description: 'Unmetered. Caps and budgets are operator settings read at run time.',
    replies: [{ status: 200, description: 'limits', json: S.UPSCALE_LIMITS }],
  },
  'POST /api/v1/scan': {
    summary: 'Print-readiness report', tag: 'artwork', spec: '4.1 / 2.2',
    replies: [{ status: 200, description: 'the scan report', json: S.SCAN_REPORT }],
  },
  'POST /api/v1/fix': {
    summary: 'Repair artwork (edges, trim, specks, resize, halftone)', tag: 'artwork', spec: '4.2',
    replies: [{
      status: 200, description: 'the repaired PNG', media: ['image/png'],
      headers: {
        'X-Width': intText('output width, px'),
        'X-Height': intText('output height, px'),
        'X-DPI': numText('DPI written into the PNG'),
        'X-Warnings': codeList('comma list of warning codes (e.g. halftone_cell_too_small), empty when none'),
      },
    }],
  },
  'POST /api/v1/underbase': {
    summary: 'White underbase, knock-out and separation file for DTF', tag: 'artwork',
    description: 'The white plate under the colour (choked, never under white-only art), the knock-out of the garment colour or black, and the printability warnings (white under 1 pt, knock-out gaps under 2 pt, semi-transparent pixels). format=pdf: one page at the print size with the white as a Separation spot colour (overprint); png: the white plate; json: both plates and the numbers. Metered like fix.',
    replies: [{
      status: 200, description: 'the separation PDF (format=pdf), the white plate PNG (format=png), or JSON (format=json)', media: ['application/pdf', 'image/png'], json: S.UNDERBASE_JSON,
      headers: {
        'X-Width': { ...intText('art width, px'), required: false },
        'X-Height': { ...intText('art height, px'), required: false },
        'X-DPI': { ...numText('resolution the plates are at'), required: false },
        'X-White-Coverage': { ...numText('white ink area over the print area, percent'), required: false },
        'X-White-Ink-Sq-In': { ...numText('white ink area weighted by density, square inches'), required: false },
        'X-Color-Ink-Sq-In': { ...numText('process ink area, square inches'), required: false },
        'X-Knocked-Out-Sq-In': { ...numText('knocked-out art, square inches'), required: false },
        'X-Warnings': { ...codeList('comma list of warning codes (nothing_to_print, white_too_thin, knockout_gap_too_narrow, semi_transparent_pixels), empty when none'), required: false },
      },
    }],
  },
  'POST /api/v1/gangsheet': {
    summary: 'Nest many designs on a DTF gang sheet', tag: 'artwork',
    description: 'The design files as the repeated file part `design` (up to 50; this endpoint alone takes a repeated file field; all of them together within the upload limit), the order as the JSON field `items`. Designs are nested on their true outlines (alpha grown by half of spacing_in), turned as `rotation` allows, on sheets sheet_width_in wide and at most max_length_in long. format=pdf: one page per sheet at its exact size, each design embedded once; png: the first sheet; json: the manifest. underbase=true adds the white layer, each design\'s plates made as POST /underbase makes them (its options, print size from the item): the PDF gets the White Separation (spot_name) under the colour, as POST /underbase writes it; png answers application/zip holding sheet.png (colour, knock-out applied) and sheet-white.png (the white plate, 8-bit grey, same pixel grid); the manifest\'s `white` names the options, its warnings the underbase checks per item. 400 invalid_option names the item (`items[3].width_in`). Metered once per request, like fix.',
    replies: [{
      status: 200, description: 'the gang sheet PDF (format=pdf), the first sheet as PNG (format=png; with underbase=true a zip of the colour and white plate PNGs), or the manifest (format=json)', media: ['application/pdf', 'image/png', 'application/zip'], json: S.GANGSHEET_JSON,
      headers: {
        'X-Sheets': { ...intText('sheets made'), required: false },
        'X-Sheet-Lengths-In': { ...text('comma list of each sheet\'s length, inches'), required: false },
        'X-Utilisation': { ...numText('ink-bearing area over the film used (0..1)'), required: false },
        'X-Copies': { ...intText('copies placed'), required: false },
        'X-Fast-Placed': { ...intText('copies placed in rows after the time budget ran out'), required: false },
        'X-DPI': { ...numText('resolution of the PNG (format=png)'), required: false },
        'X-Warnings': { ...codeList('comma list of warning codes (low_resolution, unused_design, nothing_to_print, white_too_thin, knockout_gap_too_narrow, semi_transparent_pixels), empty when none'), required: false },
        'X-White-Spot': { ...text('the White separation\'s name (underbase=true)'), required: false },
        'X-White-Ink-Sq-In': { ...numText('white ink over every copy, square inches (underbase=true)'), required: false },
      },
    }],
  },
  'POST /api/v1/remove-bg': {
    summary: 'Remove the background', tag: 'artwork', spec: '4.3',
    description: 'PNG or JPEG, at most 25 megapixels. Subject to the fair-use cap (spec 8) and the monthly provider allowance.',
    replies: [{
      status: 200, description: 'PNG with a transparent background', media: ['image/png'],
      headers: {
        'X-Method': { schema: { type: 'string', enum: ['matte', 'model', 'alpha'] }, description: 'matte (artwork matting), model (segmentation), alpha (input already transparent)' },
        'X-Warnings': text('warnings joined by " | ", empty when none'),
        'X-Width': intText('px'),
        'X-Height': intText('px'),
      },
    }],
    errors: ['not_separable'],
  },
  'POST /api/v1/vectorize': {
    summary: 'Raster to SVG', tag: 'artwork', spec: '4.8',
    description: 'One conversion at a time with a bounded line (429 queue_full with the live snapshot). At most 25 MB. Clients allow at least 120 s.',
    replies: [{
      status: 200, description: 'the SVG (or PDF, EPS, DXF: output_format)', media: [...new Set(Object.values(CONTENT_TYPES).map((t) => t.split(';')[0]!))],
      headers: {
        'X-Paths': intText('closed outlines in the SVG'),
        'X-Colors-Used': intText('distinct fills painted'),
        'X-Trace-Ms': intText('conversion time, ms'),
        'X-Queue-Ms': intText('time waited in the line, ms'),
      },
    }],
  },
  'POST /api/v1/upscale': {
    summary: 'Upscale 2x or 4x', tag: 'artwork', spec: '4.5 / 2.5',
    description: 'Input over the budget is shrunk first, up to 4x the budget in pixels; larger input gets 413 image_too_large with maxPixels and pixels. Subject to the fair-use cap.',
    replies: [{ status: 200, description: 'where the result is', json: S.UPSCALE_RESULT }],
  },
  'GET /api/v1/upscale/results/{key}': {
    summary: 'A hosted result (upscale, mockup batch)', tag: 'artwork',
    description: 'No key needed: the address is the secret. The upscaled PNG of POST /upscale, or an image of POST /mockup/batch (PNG or JPEG).',
    replies: [{ status: 200, description: 'the image', media: ['image/png', 'image/jpeg'], headers: { 'Cache-Control': text('public, immutable') } }],
    errors: ['not_found', 'store_unavailable'],
  },
  'GET /api/v1/jobs/{id}': {
    summary: 'An asynchronous job', tag: 'artwork',
    description: 'A job made by a metered POST sent with Prefer: respond-async: its status, progress and, once final, its result (what the synchronous '
      + 'answer would have carried: X- headers, the JSON body, or output_url for a binary output) or error (its status and body). This account\'s jobs only; '
      + 'another account\'s is 404 job_not_found. Unmetered. Final jobs are kept as long as hosted results (INKPREP_RESULT_RETENTION_DAYS).',
    replies: [{ status: 200, description: 'the job', json: S.JOB }],
    errors: ['job_not_found'],
  },
  'DELETE /api/v1/jobs/{id}': {
    summary: 'Cancel an asynchronous job', tag: 'artwork',
    description: 'A queued or running job stops (its engine work is aborted) and becomes canceled; it is not counted. Canceling a canceled job answers it '
      + 'again; a succeeded or failed job is 409 job_finished (it stays readable until swept). Unmetered.',
    replies: [{ status: 200, description: 'the canceled job', json: S.JOB }],
    errors: ['job_not_found', 'job_finished'],
  },
  'GET /api/v1/jobs/{id}/output': {
    summary: 'The output of a succeeded job', tag: 'artwork',
    description: 'The binary body the synchronous call would have answered (image, SVG, PDF, EPS, DXF), with its Content-Type; its numbers are in the job\'s '
      + 'result.headers. The same API key\'s account only. 404 job_not_found when the job has no binary output (a JSON answer is in result.body) or was swept.',
    replies: [{
      status: 200, description: 'the output',
      media: ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml', 'application/pdf', 'application/postscript', 'image/vnd.dxf'],
      headers: { 'Cache-Control': text('private') },
    }],
    errors: ['job_not_found'],
  },
  'GET /api/v1/upscale/held/{key}': {
    summary: 'A short-lived result (upscale, mockup batch)', tag: 'artwork',
    description: 'Served while the result storage is failing (output_hosted_by / hosted_by provider); expires.',
    replies: [{ status: 200, description: 'the image', media: ['image/png', 'image/jpeg'], headers: { 'Cache-Control': text('private, max-age = seconds left') } }],
    errors: ['not_found'],
  },
  'GET /api/v1/mockup/templates': {
    summary: 'Mockup templates', tag: 'mockup', spec: '4.9 / 2.6',
    replies: [{ status: 200, description: 'templates', json: S.TEMPLATE_LIST }],
  },
  'GET /api/v1/garments': {
    summary: 'Search blank garments', tag: 'mockup', spec: '4.10 / 2.7',
    description: 'Searches every connected blank supplier plus the service\'s own blanks; a supplier that fails is reported in suppliers and warnings.',
    replies: [{ status: 200, description: 'styles', json: S.GARMENT_SEARCH }],
    errors: ['supplier_unavailable'],
    fields: { q: 'brand, style number or type; without it, featured blanks', supplier: 'comma list of supplier identifiers' },
  },
  'GET /api/v1/garments/style': {
    summary: 'Garment style detail', tag: 'mockup', spec: '4.11 / 2.8',
    replies: [{ status: 200, description: 'the style', json: S.GARMENT_STYLE }],
    errors: ['supplier_unavailable', 'not_found'],
    fields: { key: 'style key from the garment search, form <supplier>:<style_id>' },
  },
  'POST /api/v1/mockup': {
    summary: 'Render a design on a garment', tag: 'mockup', spec: '4.12 / 2.9',
    description: 'True-to-size when `style` is present, legacy box placement otherwise. Defaults marked as depending on other fields follow the placement.',
    replies: [
      {
        status: 200, description: 'the image (response=image) or JSON 2.9 (response=json)', media: ['image/png', 'image/jpeg'], json: S.MOCKUP_JSON,
        headers: {
          'X-Garment': { ...text('garment key'), required: false },
          'X-Placement': { ...text('placement name'), required: false },
          'X-Print-Width-In': { ...numText('print width, inches'), required: false },
          'X-Print-Height-In': { ...numText('print height, inches'), required: false },
          'X-Effective-DPI': { ...numText('artwork pixels per inch at the print size'), required: false },
          'X-Warnings': { ...codeList('comma list of warning codes, empty when none'), required: false },
          'X-Preview-Fix': { schema: { type: 'string', enum: ['none', 'alpha_threshold', 'halftone'] }, description: 'the transparency fix previewed', required: false },
        },
      },
    ],
    errors: ['supplier_unavailable'],
  },
  'POST /api/v1/mockup/batch': {
    summary: 'Render a design on many garments', tag: 'mockup',
    description: `One design and the JSON list \`items\` (1-${MOCKUP_BATCH_LIMITS.maxItems}; each item takes style, color, placement, view, size, print_width_in, top_in, offset_x_in as POST /mockup does, and what it leaves out comes from the shared field of that name). The items are shared out over the engine's workers, each decoding the design once for its share. The answer lists every mockup in item order with the 2.9 facts and its image as a URL in the result storage (not base64). Counts one use per item: all are reserved at admission (429 naming \`needed\` and \`remaining\` when the limit cannot take them all) and kept only when the whole batch succeeds. A synchronous answer renders at most ${SYNC_MAX_OUTPUT_PIXELS / 1e6} megapixels (items x output_size²), a job (Prefer: respond-async) ${JOB_MAX_OUTPUT_PIXELS / 1e6}: larger is 413 batch_too_large. 400 invalid_option names the item (\`items[3].color\`).`,
    replies: [{ status: 200, description: 'every mockup, in item order', json: S.MOCKUP_BATCH_JSON }],
    errors: ['supplier_unavailable', 'batch_too_large'],
  },
  'GET /api/v1/mockup/preview': {
    summary: 'A blank garment picture', tag: 'mockup',
    description: 'The picture that preview_url, thumb and images point to for own blanks. No key needed.',
    replies: [{ status: 200, description: 'JPEG', media: ['image/jpeg'], headers: { 'Cache-Control': text('public') } }],
    errors: ['processing_failed', 'engine_overloaded'],
    fields: { size: 'long side in pixels', template: 'a template id', style: 'an own style key (instead of template)', view: 'with style', color: 'with style' },
  },
};

/**
 * Endpoints the server answers outside the route table (server.ts): documented with the same shapes, as
 * unauthenticated, unmetered GETs without parameters.
 */
export const SERVER_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /metrics': {
    summary: 'Prometheus metrics', tag: 'service',
    description: 'On the API port only when INKPREP_METRICS_TOKEN is set, for `Authorization: Bearer <INKPREP_METRICS_TOKEN>` (401 unauthorized otherwise); without it 404 not_found. The separate listener of INKPREP_METRICS_PORT serves the same text and is not part of this API.',
    replies: [{ status: 200, description: 'Prometheus text exposition format', media: ['text/plain', 'application/openmetrics-text'] }],
    errors: ['unauthorized', 'not_found'],
    unpublished: 'scraped by Prometheus with the operator\'s token, not called by API clients',
  },
};
