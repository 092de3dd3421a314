/** What one request of a scenario got back. */
export interface ScenarioResponse {
  status: number;
  /** The parsed JSON body (null when not JSON). */
  body: unknown;
}

/** A principal the scenario acts as, through the public API. */
export interface ScenarioCaller {
  get(path: string): Promise<ScenarioResponse>;
  post(path: string, body: unknown): Promise<ScenarioResponse>;
}

/** Per request: a hung api fails the step rather than the whole activity's time budget. */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * A client of the public HTTP API holding one key: scenarios act as any client would, so
 * every rule the api applies (auth, validation, approval rules, signing) applies to them.
 */
export function scenarioCaller(baseUrl: string, apiKey: string): ScenarioCaller {
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': apiKey,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed };
  };
  return {
    get: (path) => send('GET', path),
    post: (path, body) => send('POST', path, body),
  };
}

/** The `payload` of an enveloped answer, or a failure naming the request and its answer. */
export function payloadOf<T>(what: string, res: ScenarioResponse, expected = [200, 201]): T {
  if (!expected.includes(res.status)) {
    throw new Error(
      `${what}: HTTP ${res.status} ${JSON.stringify(res.body)?.slice(0, 500) ?? ''}`.trim(),
    );
  }
  return (res.body as { payload: T }).payload;
}
