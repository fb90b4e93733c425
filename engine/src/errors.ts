// The one registry of error codes: every code the engine, the HTTP service or the CLI can report, with its
// HTTP status (null for the codes only the CLI reports) and the CLI's exit code. README.md ("Error codes")
// lists the same table; test/errors.test.ts keeps the two in step and fails on a code emitted in src that
// is missing here.

/** CLI exit codes by cause: 0 ok, 1 processing failed, 2 usage or option value, 3 input problem, 4 output path problem. */
export const EXIT = { ok: 0, failed: 1, usage: 2, input: 3, output: 4 } as const;

interface ErrorDef {
  /** HTTP status; null: the code is only reported by the CLI, never in an HTTP reply. */
  status: number | null;
  /** The CLI's process exit code when a verb fails with this code. */
  exit: (typeof EXIT)[Exclude<keyof typeof EXIT, 'ok'>];
  message: string;
}

/** Every stable error code: HTTP status, CLI exit code and a default message. */
export const ERROR_REGISTRY = {
  invalid_option: { status: 400, exit: EXIT.usage, message: 'An option has an invalid value' },
  missing_image: { status: 400, exit: EXIT.input, message: 'The image file is missing' },
  image_unreadable: { status: 400, exit: EXIT.input, message: 'The file cannot be read as an image' },
  unsupported_format: { status: 400, exit: EXIT.input, message: 'The image format is not supported' },
  image_too_large: { status: 413, exit: EXIT.input, message: 'The image is too large' },
  body_too_large: { status: 413, exit: EXIT.input, message: 'The request body is too large' },
  unauthorized: { status: 401, exit: EXIT.failed, message: 'API key missing, invalid or revoked' },
  plan_inactive: { status: 402, exit: EXIT.failed, message: 'The account has no active Business plan' },
  account_suspended: { status: 403, exit: EXIT.failed, message: 'The account is suspended' },
  not_found: { status: 404, exit: EXIT.failed, message: 'Not found' },
  method_not_allowed: { status: 405, exit: EXIT.failed, message: 'Method not allowed' },
  daily_limit_exceeded: { status: 429, exit: EXIT.failed, message: 'Daily request limit for this key reached' },
  fair_use_exceeded: { status: 429, exit: EXIT.failed, message: 'Fair-use cap reached' },
  queue_full: { status: 429, exit: EXIT.failed, message: 'The vectorize line is full' },
  aborted: { status: 499, exit: EXIT.failed, message: 'The operation was aborted' },
  engine_overloaded: { status: 503, exit: EXIT.failed, message: 'The engine queue is full' },
  queue_unavailable: { status: 503, exit: EXIT.failed, message: 'The vectorize line cannot be reached' },
  store_unavailable: { status: 503, exit: EXIT.failed, message: 'The store cannot be reached' },
  supplier_unavailable: { status: 503, exit: EXIT.failed, message: 'A blank supplier cannot be reached' },
  shutting_down: { status: 503, exit: EXIT.failed, message: 'The service is shutting down' },
  not_separable: { status: 422, exit: EXIT.failed, message: 'The image is not art on a separable background and no segmentation model is available' },
  processing_failed: { status: 500, exit: EXIT.failed, message: 'Processing failed' },
  internal_error: { status: 500, exit: EXIT.failed, message: 'Internal server error' },
  // CLI only (no HTTP reply carries them).
  usage: { status: null, exit: EXIT.usage, message: 'Bad command line: unknown command or option, missing argument' },
  output_unwritable: { status: null, exit: EXIT.output, message: 'The output path cannot be written' },
  port_in_use: { status: null, exit: EXIT.failed, message: 'The port is already in use' },
} as const satisfies Record<string, ErrorDef>;

type Registry = typeof ERROR_REGISTRY;

/** Any code of the registry, HTTP or CLI-only. */
export type AnyErrorCode = keyof Registry;

/** The codes an HTTP reply (and the engine) can carry: those with a status. */
export type ErrorCode = { [K in AnyErrorCode]: Registry[K]['status'] extends number ? K : never }[AnyErrorCode];

/** The codes only the CLI reports. */
export type CliErrorCode = Exclude<AnyErrorCode, ErrorCode>;

/** The HTTP part of the registry (the spec's codes): what the OpenAPI document and error replies use. */
export const ERROR_CODES = Object.fromEntries(Object.entries(ERROR_REGISTRY).filter(([, d]) => d.status !== null)) as { readonly [K in ErrorCode]: Registry[K] };

/** The CLI's exit code for a registry code. */
export function exitCodeFor(code: AnyErrorCode): number {
  return ERROR_REGISTRY[code].exit;
}

/** JSON-safe extra fields carried by an error (e.g. `field`, `maxPixels`, `pixels`). */
export type ErrorDetails = Record<string, string | number | boolean | null | Record<string, unknown>>;

/**
 * The engine's one error type: a stable `code`, its HTTP `status`, and JSON-safe `details`
 * that the HTTP adapter spreads into the error body.
 */
export class InkprepError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message ?? ERROR_CODES[code].message, options);
    this.name = 'InkprepError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.details = details;
  }

  /** Plain form that survives postMessage (an Error subclass would arrive as a plain Error). */
  toWire(): WireError {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** The serialised error sent across the worker boundary. */
export interface WireError {
  code: ErrorCode;
  message: string;
  details: ErrorDetails;
}

/** Whether a value is one of the engine's error codes (e.g. a `code` read from JSON). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** Rebuild a typed error from its wire form; unknown codes become `processing_failed`. */
export function fromWire(w: WireError): InkprepError {
  return new InkprepError(isErrorCode(w.code) ? w.code : 'processing_failed', w.message, w.details ?? {});
}

/** Thrown for a bad option value: 400 `invalid_option` naming the field. */
export function invalidOption(field: string, expected: string, received: unknown): InkprepError {
  let shown: string;
  try {
    shown = typeof received === 'string' ? JSON.stringify(received) : String(received);
  } catch {
    shown = typeof received;
  }
  if (shown.length > 60) shown = shown.slice(0, 57) + '...';
  return new InkprepError('invalid_option', `Expected ${expected} for ${field} but received ${shown}`, { field });
}
