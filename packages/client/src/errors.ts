/** The error body every non-2xx answer of the service carries (docs/conventions.md). */
export interface ErrorEnvelope {
  ok: false;
  error: { code: string; message: string; request_id: string; [field: string]: unknown };
  detail: unknown;
}

/**
 * A non-2xx answer, with the service's error envelope: `code` is machine-readable
 * (`not_found`, `invalid_state`, `validation_error`, …), `message` says what went wrong.
 */
export class GovernedApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  /** The whole body as answered (a 422 lists its problems in `detail`). */
  readonly body: ErrorEnvelope | undefined;

  constructor(status: number, body: ErrorEnvelope | undefined, fallback: string) {
    super(body?.error.message ?? fallback);
    this.name = 'GovernedApiError';
    this.status = status;
    this.code = body?.error.code ?? `http_${status}`;
    this.requestId = body?.error.request_id;
    this.body = body;
  }
}

/** The error a response carries, read from its body (JSON when the service wrote it). */
export async function errorOf(response: Response): Promise<GovernedApiError> {
  const text = await response.text();
  let body: ErrorEnvelope | undefined;
  try {
    const parsed = JSON.parse(text) as Partial<ErrorEnvelope>;
    if (parsed && typeof parsed.error === 'object') body = parsed as ErrorEnvelope;
  } catch {
    body = undefined;
  }
  return new GovernedApiError(
    response.status,
    body,
    `HTTP ${response.status}: ${text.slice(0, 200)}`,
  );
}
