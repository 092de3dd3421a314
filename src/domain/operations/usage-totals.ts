import {
  LATENCY_BOUNDS_MS,
  type UsageCounts,
  type UsageRollup,
} from '../../store/usage-rollups.repo';

/** Counts summed over rollups, overall and per route family. */
export interface UsageTotals {
  requests: number;
  errors: number;
  server_errors: number;
  rate_limited: number;
  latency_buckets: number[];
  by_family: Map<string, { requests: number; errors: number; rate_limited: number }>;
}

export const emptyTotals = (): UsageTotals => ({
  requests: 0,
  errors: 0,
  server_errors: 0,
  rate_limited: 0,
  latency_buckets: new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0),
  by_family: new Map(),
});

/** Adds one rollup (or partial totals) in. */
export function addRollup(
  totals: UsageTotals,
  rollup: UsageCounts & Pick<UsageRollup, 'family'>,
): void {
  totals.requests += rollup.requests;
  totals.errors += rollup.errors;
  totals.server_errors += rollup.server_errors ?? 0;
  totals.rate_limited += rollup.rate_limited ?? 0;
  rollup.latency_buckets?.forEach((n, i) => {
    if (i < totals.latency_buckets.length) totals.latency_buckets[i] += n;
  });
  const family = totals.by_family.get(rollup.family) ?? { requests: 0, errors: 0, rate_limited: 0 };
  family.requests += rollup.requests;
  family.errors += rollup.errors;
  family.rate_limited += rollup.rate_limited ?? 0;
  totals.by_family.set(rollup.family, family);
}

/**
 * The 95th percentile latency, as the upper bound of the histogram bucket that holds it
 * (for the open last bucket: its lower bound); null without requests.
 */
export function p95LatencyMs(latencyBuckets: number[]): number | null {
  const total = latencyBuckets.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(total * 0.95);
  let seen = 0;
  for (let i = 0; i < latencyBuckets.length; i += 1) {
    seen += latencyBuckets[i];
    if (seen >= rank) return LATENCY_BOUNDS_MS[Math.min(i, LATENCY_BOUNDS_MS.length - 1)];
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}

/** The `usage` object of the API: counts, p95 and per-family counts. */
export function usageView(totals: UsageTotals) {
  return {
    requests: totals.requests,
    errors: totals.errors,
    server_errors: totals.server_errors,
    rate_limited: totals.rate_limited,
    p95_latency_ms: p95LatencyMs(totals.latency_buckets),
    by_family: Object.fromEntries(
      [...totals.by_family].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
  };
}
