import { randomUUID } from 'node:crypto';

/** One HTTP exchange as the load saw it. */
export interface Exchange {
  /** When it was sent and answered (ms since the run's start). */
  sentAt: number;
  answeredAt: number;
  op: string;
  api: number;
  /** 0 when no answer came (connection refused or reset, timed out). */
  status: number;
  retryAfter: string | null;
  error?: string;
  /** A 5xx answer's body, to read why. */
  body?: unknown;
}

export interface Answer<T> {
  status: number;
  payload: T | undefined;
  body: unknown;
}

/**
 * The load's HTTP client: spreads requests over the api processes as a load balancer would,
 * records every exchange, and retries what a client may retry (no answer, 502–504, 429) with
 * the same `Idempotency-Key`, moving to the next api each time.
 */
export class ChaosClient {
  readonly log: Exchange[] = [];
  /** The first body answered per `<op> <status>` that was not a success: what went wrong. */
  readonly samples = new Map<string, unknown>();
  private next = 0;

  constructor(
    private readonly apiUrls: string[],
    private readonly startedAt: number,
    private readonly timeoutMs = 30_000,
  ) {}

  now(): number {
    return Date.now() - this.startedAt;
  }

  /** One request, retried up to `attempts` times; answers the last exchange. */
  async call<T = Record<string, unknown>>(
    op: string,
    key: string,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    body?: unknown,
    options: { attempts?: number; idempotent?: boolean } = {},
  ): Promise<Answer<T>> {
    const attempts = options.attempts ?? 8;
    const idempotencyKey = options.idempotent ? randomUUID() : undefined;
    let last: Answer<T> = { status: 0, payload: undefined, body: undefined };
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      last = await this.once<T>(op, key, method, path, body, idempotencyKey);
      const retryable = last.status === 0 || last.status === 429 || last.status >= 502;
      if (!retryable) return last;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** (attempt - 1), 5000)));
    }
    return last;
  }

  private async once<T>(
    op: string,
    key: string,
    method: string,
    path: string,
    body: unknown,
    idempotencyKey: string | undefined,
  ): Promise<Answer<T>> {
    const api = this.next++ % this.apiUrls.length;
    const sentAt = this.now();
    const headers: Record<string, string> = { 'X-API-Key': key };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    try {
      const res = await fetch(`${this.apiUrls[api]}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      this.log.push({
        sentAt,
        answeredAt: this.now(),
        op,
        api,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        ...(res.status >= 500 ? { body: parsed } : {}),
      });
      const sample = `${op} ${res.status}`;
      if (res.status >= 400 && !this.samples.has(sample)) this.samples.set(sample, parsed);
      const payload = (parsed as { payload?: T } | undefined)?.payload;
      return { status: res.status, payload, body: parsed };
    } catch (error) {
      this.log.push({
        sentAt,
        answeredAt: this.now(),
        op,
        api,
        status: 0,
        retryAfter: null,
        error: error instanceof Error ? error.message : String(error),
      });
      return { status: 0, payload: undefined, body: undefined };
    }
  }
}
