import type { RequestLedgerRow } from '../store/request-ledger.repo';
import { LATENCY_BOUNDS_MS, type UsageRollup } from '../store/usage-rollups.repo';

/** Index of the latency bucket of `latencyMs` (the last one holds everything slower). */
export function latencyBucket(latencyMs: number): number {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => latencyMs <= bound);
  return index === -1 ? LATENCY_BOUNDS_MS.length : index;
}

/**
 * The usage rollups of one ledger flush: one per (key, UTC hour, route family) present in
 * it, counting requests, errors (4xx/5xx), server errors (5xx), 429s and a latency
 * histogram. Rows without a key (401s, public routes) are in the ledger but not in usage.
 */
export function rollupsOfFlush(
  bucketId: string,
  instance: string,
  rows: RequestLedgerRow[],
  organizationOf: (keyId: string) => string | null,
): UsageRollup[] {
  const groups = new Map<string, UsageRollup>();
  for (const row of rows) {
    if (!row.key_id) continue;
    const hour = row.at.slice(0, 13);
    const family = row.family ?? 'unmatched';
    const id = `${row.key_id}|${hour}|${family}`;
    let rollup = groups.get(id);
    if (!rollup) {
      rollup = {
        _id: `${bucketId}.${groups.size}`,
        bucket_id: bucketId,
        instance,
        key_id: row.key_id,
        organization_id: organizationOf(row.key_id),
        hour,
        day: row.at.slice(0, 10),
        family,
        requests: 0,
        errors: 0,
        server_errors: 0,
        rate_limited: 0,
        latency_buckets: new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0),
      };
      groups.set(id, rollup);
    }
    rollup.requests += 1;
    if (row.status >= 400) rollup.errors += 1;
    if (row.status >= 500) rollup.server_errors += 1;
    if (row.status === 429) rollup.rate_limited += 1;
    rollup.latency_buckets[latencyBucket(row.latency_ms)] += 1;
  }
  return [...groups.values()];
}
