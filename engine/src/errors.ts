// The one registry of error codes the engine and the HTTP service can return, with their HTTP status.
// README.md ("Error codes") lists the same table; test/errors.test.ts keeps the two in step.

/** Every stable error code, its HTTP status and a default message. */
export const ERROR_CODES = {
  invalid_option: { status: 400, message: 'An option has an invalid value' },
  missing_image: { status: 400, message: 'The image file is missing' },
  image_unreadable: { status: 400, message: 'The file cannot be read as an image' },
  unsupported_format: { status: 400, message: 'The image format is not supported' },
  image_too_large: { status: 413, message: 'The image is too large' },
  body_too_large: { status: 413, message: 'The request body is too large' },
  unauthorized: { status: 401, message: 'API key missing, invalid or revoked' },
  plan_inactive: { status: 402, message: 'The account has no active Business plan' },
  account_suspended: { status: 403, message: 'The account is suspended' },
  not_found: { status: 404, message: 'Not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  daily_limit_exceeded: { status: 429, message: 'Daily request limit for this key reached' },
  fair_use_exceeded: { status: 429, message: 'Fair-use cap reached' },
  queue_full: { status: 429, message: 'The vectorize line is full' },
  aborted: { status: 499, message: 'The operation was aborted' },
  engine_overloaded: { status: 503, message: 'The engine queue is full' },
  queue_unavailable: { status: 503, message: 'The vectorize line cannot be reached' },
  store_unavailable: { status: 503, message: 'The store cannot be reached' },
  supplier_unavailable: { status: 503, message: 'A blank supplier cannot be reached' },
  shutting_down: { status: 503, message: 'The service is shutting down' },
  not_separable: { status: 422, message: 'The image is not art on a separable background and no segmentation model is available' },
  processing_failed: { status: 500, message: 'Processing failed' },
  internal_error: { status: 500, message: 'Internal server error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

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
