import { AppError, Invalid, type ValidationIssue } from '../lib/errors';
import { isDatabaseUnreachable } from '../lib/database-errors';
import { isTemporalUnreachable } from '../lib/temporal-errors';

export type { ValidationIssue } from '../lib/errors';

/** Every error code the API answers with, and the status each one maps to. */
export const ERROR_STATUS = {
  /** Only for what Node's HTTP parser refuses (`src/api/http-server.ts`). */
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  invalid_state: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  deployment_concurrency_exceeded: 429,
  cell_updates_quota_exceeded: 429,
  request_header_fields_too_large: 431,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ApiErrorOptions {
  /** String detail, or the 422 issue list. Defaults to the message. */
  detail?: string | ValidationIssue[];
  /** Extra machine-readable fields merged into the `error` object. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * An HTTP failure raised by the api layer itself (routing, body parsing, governance,
 * idempotency). Everything below the api throws `AppError`s instead (src/lib/errors.ts);
 * `toApiError` maps both to the one documented body.
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/** 422 with a FastAPI-style issue list. */
export const validationError = (issues: ValidationIssue[]): Invalid => new Invalid(issues);

/** The HTTP rendering of any thrown value; unknown errors become a bare `internal`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof AppError) return fromAppError(error);
  // The driver reconnects by itself (serverSelectionTimeoutMS 5 s): a retry soon may land.
  if (isDatabaseUnreachable(error)) return unreachable('the database');
  if (isTemporalUnreachable(error)) return unreachable('the workflow service');
  return new ApiError('internal', 'internal server error');
}

/**
 * What a client is told to wait when a backend (the database, Temporal) is unreachable and
 * nothing better is known: every 503 says when to come back.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const unreachable = (backend: string): ApiError =>
  new ApiError('unavailable', `${backend} is unreachable; try again shortly`, {
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });

function fromAppError(error: AppError): ApiError {
  const headers: Record<string, string> = {};
  if (error.options.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(Math.max(0, Math.ceil(error.options.retryAfterSeconds)));
  } else if (error.kind === 'unavailable') {
    headers['Retry-After'] = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  }
  if (error.kind === 'unauthorized') headers['WWW-Authenticate'] = 'APIKey';
  return new ApiError(error.kind, error.message, {
    ...(error.options.detail === undefined ? {} : { detail: error.options.detail }),
    ...(error.options.extra ? { extra: error.options.extra } : {}),
    headers,
  });
}
