import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** Per-request shaping (method, body, path per request), as autocannon takes it. */
  requests?: autocannon.Request[];
}

/** One autocannon run (HTTP/1.1 keep-alive, no pipelining). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    headers: options.headers,
    connections: options.connections,
    duration: options.durationSeconds,
    pipelining: 1,
    ...(options.requests ? { requests: options.requests } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Mean of several rounds of the same measurement (rounds are interleaved by the caller). */
export function meanOf(results: LoadResult[]): LoadResult {
  const mean = (pick: (r: LoadResult) => number): number =>
    Math.round((results.reduce((sum, r) => sum + pick(r), 0) / results.length) * 100) / 100;
  return {
    requestsPerSecond: mean((r) => r.requestsPerSecond),
    p50Ms: mean((r) => r.p50Ms),
    p99Ms: mean((r) => r.p99Ms),
    total: results.reduce((sum, r) => sum + r.total, 0),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}
