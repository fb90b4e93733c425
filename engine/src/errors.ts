// The engine's errors: every code the engine itself raises, its default message, and InkprepError (a code and
// JSON-safe details). What a code means to a host (an HTTP status, a CLI exit code) is the host's business:
// the HTTP service and the CLI map every engine code in their registry (adapter-http/src/errors/registry.ts).

/** Every code the engine raises, with its default message. */
export const ENGINE_ERRORS = {
  invalid_option: 'An option has an invalid value',
  missing_image: 'The image file is missing',
  image_unreadable: 'The file cannot be read as an image',
  unsupported_format: 'The image format is not supported',
  image_too_large: 'The image is too large',
  aborted: 'The operation was aborted',
  engine_overloaded: 'The engine queue is full',
  shutting_down: 'The service is shutting down',
  not_separable: 'The image is not art on a separable background and no segmentation model is available',
  processing_failed: 'Processing failed',
  internal_error: 'Internal server error',
} as const satisfies Record<string, string>;

/** A code the engine raises. */
export type ErrorCode = keyof typeof ENGINE_ERRORS;

/** JSON-safe extra fields carried by an error (e.g. `field`, `maxPixels`, `pixels`). */
export type ErrorDetails = Record<string, string | number | boolean | null | Record<string, unknown>>;

/** The engine's one error type: a stable `code` and JSON-safe `details` (a host may spread them into its reply). */
export class InkprepError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message ?? ENGINE_ERRORS[code], options);
    this.name = 'InkprepError';
    this.code = code;
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
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ENGINE_ERRORS, code);
}

/** Rebuild a typed error from its wire form; unknown codes become `processing_failed`. */
export function fromWire(w: WireError): InkprepError {
  return new InkprepError(isErrorCode(w.code) ? w.code : 'processing_failed', w.message, w.details ?? {});
}

/** Thrown for a bad option value: `invalid_option` naming the field. */
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
