/** Every error code the API answers with, and the status each one maps to. */
export const ERROR_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_state: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One entry of a FastAPI-compatible HTTPValidationError list. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  ctx?: Record<string, unknown>;
}

export interface ApiErrorOptions {
  /** String detail, or the 422 issue list. Defaults to the message. */
  detail?: string | ValidationIssue[];
  /** Extra machine-readable fields merged into the `error` object. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** An error that renders as the documented `{ok:false, error, detail}` body. */
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
export function validationError(issues: ValidationIssue[]): ApiError {
  const first = issues[0];
  const where = first ? `${first.loc.join('.')}: ${first.msg}` : 'invalid request';
  return new ApiError('validation_error', `request validation failed (${where})`, {
    detail: issues,
  });
}

export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} not found`);
