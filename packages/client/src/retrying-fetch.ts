/** How the client retries answers that say "try again later". */
export interface RetryOptions {
  /** Further attempts after the first (default 3). */
  retries?: number;
  /** Longest wait between attempts, whatever `Retry-After` says (default 30 s). */
  maxDelayMs?: number;
  /** Wait when an answer names none (default 500 ms, doubled per attempt). */
  baseDelayMs?: number;
}

const RETRIED_STATUSES = new Set([429, 503]);

/**
 * A fetch that retries 429 and 503, waiting as `Retry-After` says (seconds or an HTTP date)
 * or backing off. POSTs are retried only when they carry an `Idempotency-Key` (the client
 * adds one to every POST that accepts it), so a retry never does the work twice.
 */
export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  return async (request) => {
    const replayable = request.method !== 'POST' || request.headers.has('Idempotency-Key');
    // Only a body is used up by sending; a request without one (every GET) is sent as is.
    // A clone costs as much as building the request, a noticeable share of a local GET's
    // round trip (bench/results/client.md).
    const cloneEach = replayable && request.body !== null;
    for (let attempt = 0; ; attempt += 1) {
      const response = await fetchImpl(cloneEach ? request.clone() : request);
      if (!RETRIED_STATUSES.has(response.status) || !replayable || attempt >= retries) {
        return response;
      }
      const wait = retryAfterMs(response.headers.get('Retry-After')) ?? baseDelayMs * 2 ** attempt;
      await response.body?.cancel();
      await sleep(Math.min(wait, maxDelayMs), request.signal);
    }
  };
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
