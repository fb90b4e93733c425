// The one registry of error codes the service and the CLI can answer: the engine's codes (their messages come
// from the engine) and the adapter's own, each with its HTTP status (null for the codes only the CLI reports)
// and the CLI's exit code. docs/reference/errors.md lists the same table; test/errors.test.ts keeps the two in
// step and fails on a code emitted in src that is missing here. The order is the OpenAPI document's.
import { ENGINE_ERRORS, InkprepError, type ErrorCode as EngineErrorCode, type ErrorDetails } from '@inkprep/engine';

/** CLI exit codes by cause: 0 ok, 1 processing failed, 2 usage or option value, 3 input problem, 4 output path problem. */
export const EXIT = { ok: 0, failed: 1, usage: 2, input: 3, output: 4 } as const;

interface ErrorDef {
  /** HTTP status; null: the code is only reported by the CLI, never in an HTTP reply. */
  status: number | null;
  /** The CLI's process exit code when a verb fails with this code. */
  exit: (typeof EXIT)[Exclude<keyof typeof EXIT, 'ok'>];
  message: string;
}

const E = ENGINE_ERRORS;

/** Every stable error code: HTTP status, CLI exit code and a default message. */
export const ERROR_REGISTRY = {
  invalid_option: { status: 400, exit: EXIT.usage, message: E.invalid_option },
  // A field or query parameter the operation does not read, refused only when the request asked for it with
  // `Prefer: handling=strict` (otherwise it is ignored and listed in X-Ignored-Fields).
  unknown_field: { status: 400, exit: EXIT.usage, message: 'The request sent a field or query parameter this operation does not read (refused under Prefer: handling=strict)' },
  missing_image: { status: 400, exit: EXIT.input, message: E.missing_image },
  image_unreadable: { status: 400, exit: EXIT.input, message: E.image_unreadable },
  unsupported_format: { status: 400, exit: EXIT.input, message: E.unsupported_format },
  image_too_large: { status: 413, exit: EXIT.input, message: E.image_too_large },
  batch_too_large: { status: 413, exit: EXIT.input, message: 'The batch is larger than a synchronous answer may be' },
  body_too_large: { status: 413, exit: EXIT.input, message: 'The request body is too large' },
  malformed_request: { status: 400, exit: EXIT.failed, message: 'The request is not valid HTTP/1.1' },
  unauthorized: { status: 401, exit: EXIT.failed, message: 'API key missing, invalid or revoked' },
  plan_inactive: { status: 402, exit: EXIT.failed, message: 'The account has no active Business plan' },
  account_suspended: { status: 403, exit: EXIT.failed, message: 'The account is suspended' },
  not_found: { status: 404, exit: EXIT.failed, message: 'Not found' },
  method_not_allowed: { status: 405, exit: EXIT.failed, message: 'Method not allowed' },
  daily_limit_exceeded: { status: 429, exit: EXIT.failed, message: 'Daily request limit for this key reached' },
  fair_use_exceeded: { status: 429, exit: EXIT.failed, message: 'Fair-use cap reached' },
  queue_full: { status: 429, exit: EXIT.failed, message: 'The vectorize line is full' },
  invalid_idempotency_key: { status: 400, exit: EXIT.usage, message: 'The Idempotency-Key header is not 1 to 255 of the allowed characters' },
  idempotency_key_in_progress: { status: 409, exit: EXIT.failed, message: 'A request with this Idempotency-Key is still running' },
  idempotency_key_reused: { status: 422, exit: EXIT.failed, message: 'This Idempotency-Key was used with a different request in the last 24 hours' },
  job_not_found: { status: 404, exit: EXIT.failed, message: 'No such job for this account' },
  job_finished: { status: 409, exit: EXIT.failed, message: 'The job has finished; only a queued or running job can be canceled' },
  too_many_jobs: { status: 429, exit: EXIT.failed, message: 'The account has as many queued and running jobs as it may' },
  invalid_callback_url: { status: 400, exit: EXIT.usage, message: 'The callback_url is not https, names a host the operator does not allow, or resolves to a private address' },
  aborted: { status: 499, exit: EXIT.failed, message: E.aborted },
  engine_overloaded: { status: 503, exit: EXIT.failed, message: E.engine_overloaded },
  queue_unavailable: { status: 503, exit: EXIT.failed, message: 'The vectorize line cannot be reached' },
  store_unavailable: { status: 503, exit: EXIT.failed, message: 'The store cannot be reached' },
  supplier_unavailable: { status: 503, exit: EXIT.failed, message: 'A blank supplier cannot be reached' },
  shutting_down: { status: 503, exit: EXIT.failed, message: E.shutting_down },
  not_separable: { status: 422, exit: EXIT.failed, message: E.not_separable },
  processing_failed: { status: 500, exit: EXIT.failed, message: E.processing_failed },
  internal_error: { status: 500, exit: EXIT.failed, message: E.internal_error },
  // CLI only (no HTTP reply carries them).
  usage: { status: null, exit: EXIT.usage, message: 'Bad command line: unknown command or option, missing argument' },
  output_unwritable: { status: null, exit: EXIT.output, message: 'The output path cannot be written' },
  port_in_use: { status: null, exit: EXIT.failed, message: 'The port is already in use' },
} as const satisfies Record<string, ErrorDef> & Record<EngineErrorCode, ErrorDef>;

type Registry = typeof ERROR_REGISTRY;

/** Any code of the registry, HTTP or CLI-only. */
export type AnyErrorCode = keyof Registry;

/** The codes an HTTP reply can carry: those with a status. */
export type HttpErrorCode = { [K in AnyErrorCode]: Registry[K]['status'] extends number ? K : never }[AnyErrorCode];

/** The codes only the CLI reports. */
export type CliErrorCode = Exclude<AnyErrorCode, HttpErrorCode>;

/** The codes the adapter raises itself (never the engine). */
export type ServiceErrorCode = Exclude<AnyErrorCode, EngineErrorCode>;

/** The HTTP part of the registry (the spec's codes): what the OpenAPI document and error replies use. */
export const ERROR_CODES = Object.fromEntries(Object.entries(ERROR_REGISTRY).filter(([, d]) => d.status !== null)) as { readonly [K in HttpErrorCode]: Registry[K] };

/** The CLI's exit code for a registry code. */
export function exitCodeFor(code: AnyErrorCode): number {
  return ERROR_REGISTRY[code].exit;
}

/** An error the service or the CLI raises itself (auth, limits, the line, the store, suppliers, routing). */
export class ServiceError extends Error {
  readonly code: ServiceErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ServiceErrorCode, message?: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message ?? ERROR_REGISTRY[code].message, options);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
  }
}

/** An error with a registry code: the engine's or the adapter's. */
export type CodedError = InkprepError | ServiceError;

export function isCodedError(err: unknown): err is CodedError {
  return err instanceof InkprepError || err instanceof ServiceError;
}

/** HTTP status of a code that has one (500 for a CLI-only code reaching HTTP, which is a bug). */
export function statusOf(code: AnyErrorCode): number {
  return ERROR_REGISTRY[code].status ?? 500;
}
