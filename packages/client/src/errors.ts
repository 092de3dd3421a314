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

/**
 * The error a response carries, read from its body (JSON when the service wrote it). An
 * answer without the service's envelope (a proxy's or another server's page) says where it
 * came from, what it was and its gist, so a wrong URL reads as one.
 */
export async function errorOf(response: Response): Promise<GovernedApiError> {
  const text = await response.text();
  let body: ErrorEnvelope | undefined;
  try {
    const parsed = JSON.parse(text) as Partial<ErrorEnvelope>;
    if (parsed && typeof parsed.error === 'object') body = parsed as ErrorEnvelope;
  } catch {
    body = undefined;
  }
  return new GovernedApiError(response.status, body, notTheServiceText(response, text));
}

/**
 * `http://host/v1/… answered HTTP 404 (text/html), not the service's JSON: "Not Found"`: an
 * answer that is not the service's, in words. The gist is an HTML page's title, else the
 * start of the text, on one line.
 */
export function notTheServiceText(response: Response, text: string): string {
  const type = response.headers.get('Content-Type')?.split(';')[0]?.trim() || 'no content type';
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const gist = (title ?? text).replace(/\s+/g, ' ').trim().slice(0, 200);
  const where = response.url || 'the service';
  return `${where} answered HTTP ${response.status} (${type}), not the service's JSON${gist ? `: "${gist}"` : ''}`;
}

/**
 * Nothing answered: the connection was refused, the host is unknown, the connection timed
 * out or closed. `reason` says which in words; `cause` is what fetch threw.
 */
export class ServiceUnreachableError extends Error {
  /** The service URL that was called (the client's base URL, as `http://host:port/`). */
  readonly url: string;

  constructor(
    baseUrl: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach ${urlText(baseUrl)}: ${reason}`, options);
    this.name = 'ServiceUnreachableError';
    this.url = urlText(baseUrl);
  }
}

/** What undici's system error codes mean, in words. */
const UNREACHABLE_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up (DNS did not answer)',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped coming',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection closed before an answer',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
};

/**
 * fetch's network failure (a `TypeError("fetch failed")` whose `cause` is the reason) as a
 * `ServiceUnreachableError`; anything else (an abort, a bug) unchanged.
 */
export function unreachableOr(baseUrl: string, error: unknown): unknown {
  // By name, not instanceof: fetch's TypeError may come from another realm (a test VM).
  const failed = error as { name?: unknown; message?: unknown; cause?: unknown } | null;
  if (failed?.name !== 'TypeError' || failed.message !== 'fetch failed') return error;
  const cause = failed.cause as
    { code?: string; message?: string; errors?: { code?: string }[] } | undefined;
  // A name with several addresses (localhost: ::1 and 127.0.0.1) fails with an aggregate.
  const code = cause?.code ?? cause?.errors?.find((e) => e.code)?.code;
  const reason =
    (code && UNREACHABLE_REASONS[code]) ??
    (code?.startsWith('ERR_SSL') || /certificate|TLS|SSL/i.test(cause?.message ?? '')
      ? `TLS failed: ${cause?.message}`
      : cause?.message === 'bad port'
        ? "fetch refuses to call that port (it is on fetch's list of blocked ports)"
        : (cause?.message ?? 'fetch failed'));
  return new ServiceUnreachableError(baseUrl, reason, { cause: error });
}

/** The base URL as people read it: `http://127.0.0.1:8080/`. */
function urlText(baseUrl: string): string {
  try {
    return new URL(baseUrl).href;
  } catch {
    return baseUrl;
  }
}
