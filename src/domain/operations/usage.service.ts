import type { Filter } from 'mongodb';
import { found } from '../../lib/errors';
import type { DomainInfra } from '../infra';
import { effectiveLimits, requestLimitsView } from '../../auth/effective-limits';
import { msUntilUtcMidnight, utcDay } from '../../lib/time';
import { decodePageCursor, encodePageCursor } from '../../store/paging';
import { heavyWorkUsage } from '../substrates/heavy-work';
import type { UsageRollup } from '../../store/usage-rollups.repo';
import {
  floorPeriod,
  normalizeRange,
  periodKey,
  periodMs,
  periodRange,
  periodStart,
  type Granularity,
} from './periods';
import { addRollup, emptyTotals, usageView, type UsageTotals } from './usage-totals';
import type { KeyUsageQuery, UsageQuery } from './schemas';

/** Most periods `usage/{key_id}` answers; the default range fits well inside it. */
const MAX_PERIODS = 1000;
/** Default range of `usage/{key_id}`: the last 30 UTC days, or the last 48 UTC hours. */
const DEFAULT_PERIODS: Record<Granularity, number> = { day: 30, hour: 48 };

/**
 * `GET /v1/admin/usage`: one item per (key, period), newest period first, then by key id.
 * The rollups (one per flush × key × hour × family, insert-only) are read in that order
 * and summed as they stream by; FerretDB v1 computes only the first accumulator of a
 * `$group`, so the sums are made here rather than by the database (docs/operations.md).
 * Cursor: (period start, key id) of the last item.
 */
export async function listUsage(deps: Pick<DomainInfra, 'repos'>, raw: UsageQuery) {
  const query = normalizeRange(raw);
  const limit = query.limit ?? 50;
  const granularity = query.granularity ?? 'day';
  const field = granularity;
  const clauses: Filter<UsageRollup>[] = [];
  if (query.key_id) clauses.push({ key_id: query.key_id });
  if (query.organization_id) clauses.push({ organization_id: query.organization_id });
  const range = periodRange(granularity, query.since, query.until);
  if (Object.keys(range).length > 0) clauses.push({ [field]: range });
  if (query.cursor) {
    const after = decodePageCursor(query.cursor);
    const key = periodKey(Date.parse(after.at), granularity);
    clauses.push({ $or: [{ [field]: { $lt: key } }, { [field]: key, key_id: { $gt: after.id } }] });
  }
  const cursor = deps.repos.usageRollups.find(clauses.length > 0 ? { $and: clauses } : {}, {
    [field]: -1,
    key_id: 1,
  });

  type Item = {
    key_id: string;
    organization_id: string | null;
    period: string;
    totals: UsageTotals;
  };
  const items: Item[] = [];
  let hasMore = false;
  try {
    for await (const rollup of cursor) {
      const period = rollup[field];
      let current = items[items.length - 1];
      if (!current || current.period !== period || current.key_id !== rollup.key_id) {
        if (items.length === limit) {
          hasMore = true;
          break;
        }
        current = {
          key_id: rollup.key_id,
          organization_id: rollup.organization_id,
          period,
          totals: emptyTotals(),
        };
        items.push(current);
      }
      addRollup(current.totals, rollup);
    }
  } finally {
    await cursor.close();
  }
  const last = items[items.length - 1];
  return {
    items: items.map((item) => ({
      key_id: item.key_id,
      organization_id: item.organization_id,
      period_start: periodStart(item.period),
      granularity,
      usage: usageView(item.totals),
    })),
    next_cursor:
      hasMore && last ? encodePageCursor({ at: periodStart(last.period), id: last.key_id }) : null,
  };
}

/**
 * Requests the limiter has counted for a key in the current minute and UTC day: the sum
 * of every api instance's shard (`rate_counters`, window ids as `RateLimiter` names them),
 * as of each instance's last sync (`RATE_LIMIT_SYNC_MS`).
 */
async function limiterCounts(deps: Pick<DomainInfra, 'repos'>, keyId: string, nowMs: number) {
  const minuteWindow = `m:${Math.floor(nowMs / 60_000)}`;
  const dayWindow = `d:${utcDay(nowMs)}`;
  const shards = await deps.repos.rateCounters.readShards(
    [`key:${keyId}`],
    [minuteWindow, dayWindow],
  );
  const sum = (window: string) =>
    shards.filter((shard) => shard.window === window).reduce((n, shard) => n + shard.count, 0);
  return { minute: sum(minuteWindow), day: sum(dayWindow) };
}

/**
 * `GET /v1/admin/usage/{key_id}`: effective limits and their source, what is used and
 * left of this minute and this UTC day, and the key's rollups per period over the range
 * asked (default: the last 30 days, or 48 hours), newest first, with their totals.
 */
export async function keyUsage(
  deps: Pick<DomainInfra, 'repos'>,
  keyId: string,
  raw: KeyUsageQuery,
) {
  const query = normalizeRange(raw);
  const key = await found(deps.repos.apiKeys.findById(keyId), `key ${keyId}`);
  const nowMs = Date.now();
  const granularity = query.granularity ?? 'day';
  const since =
    query.since ??
    new Date(
      floorPeriod(nowMs, granularity) - (DEFAULT_PERIODS[granularity] - 1) * periodMs(granularity),
    ).toISOString();
  // The limits the authenticator enforces on this key (the bootstrap key's included).
  const [effective, used] = await Promise.all([
    effectiveLimits(deps.repos.quotaPolicies, key),
    limiterCounts(deps, keyId, nowMs),
  ]);
  const limits = { ...requestLimitsView(effective), source: effective.source };
  const heavyWork = await heavyWorkUsage(deps, key, effective.limits);

  const cursor = deps.repos.usageRollups.find(
    { key_id: keyId, [granularity]: periodRange(granularity, since, query.until) },
    { [granularity]: -1 },
  );
  const periods: { period: string; totals: UsageTotals }[] = [];
  const totals = emptyTotals();
  try {
    for await (const rollup of cursor) {
      const period = rollup[granularity];
      let current = periods[periods.length - 1];
      if (!current || current.period !== period) {
        if (periods.length === MAX_PERIODS) break;
        current = { period, totals: emptyTotals() };
        periods.push(current);
      }
      addRollup(current.totals, rollup);
      addRollup(totals, rollup);
    }
  } finally {
    await cursor.close();
  }

  return {
    key_id: keyId,
    organization_id: key.organization_id,
    status: key.status,
    limits,
    minute: {
      used: used.minute,
      remaining: Math.max(0, limits.requests_per_minute - used.minute),
      resets_in: Math.max(1, Math.ceil((60_000 - (nowMs % 60_000)) / 1000)),
    },
    day: {
      used: used.day,
      remaining: Math.max(0, limits.daily_quota - used.day),
      resets_at: new Date(nowMs + msUntilUtcMidnight(nowMs)).toISOString(),
    },
    heavy_work: heavyWork,
    granularity,
    since,
    until: query.until ?? null,
    totals: usageView(totals),
    periods: periods.map((p) => ({
      period_start: periodStart(p.period),
      usage: usageView(p.totals),
    })),
  };
}
