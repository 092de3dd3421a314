import type { Entitlement } from './families';
import type { LimitRule } from './rate-limiter';

/** Limits on heavy work (substrate deployments), per key and per organization. */
export interface HeavyWorkLimits {
  /** Deployments of the key not yet in a final stage. */
  concurrentDeployments: number;
  /** Cell updates (cells × ticks) the key may deploy per UTC day. */
  cellUpdatesPerDay: number;
  /** The same two, summed over every key of the key's organization. */
  organizationConcurrentDeployments: number;
  organizationCellUpdatesPerDay: number;
}

export interface KeyLimits extends HeavyWorkLimits {
  requestsPerMinute: number;
  dailyQuota: number;
}

/**
 * An organization's heavy-work totals unless an organization-scoped quota policy sets them
 * (docs/governance.md, Limits on heavy work).
 */
export const ORGANIZATION_HEAVY_WORK = {
  organizationConcurrentDeployments: 8,
  organizationCellUpdatesPerDay: 100_000_000_000_000,
} as const;

/**
 * Defaults by entitlement class (docs/governance.md); quota policies may override them.
 * Heavy work: a lattice-large run (4096² × 1M ticks) is 1.7·10^13 cell updates, about two
 * CPU-hours of the engine; a strategic key may deploy about three of those a day.
 */
export const CLASS_LIMITS: Record<Entitlement, KeyLimits> = {
  sandbox: {
    requestsPerMinute: 60,
    dailyQuota: 1_000,
    concurrentDeployments: 0,
    cellUpdatesPerDay: 0,
    ...ORGANIZATION_HEAVY_WORK,
  },
  institutional: {
    requestsPerMinute: 600,
    dailyQuota: 50_000,
    concurrentDeployments: 1,
    cellUpdatesPerDay: 2_000_000_000_000,
    ...ORGANIZATION_HEAVY_WORK,
  },
  strategic: {
    requestsPerMinute: 3_000,
    dailyQuota: 1_000_000,
    concurrentDeployments: 4,
    cellUpdatesPerDay: 50_000_000_000_000,
    ...ORGANIZATION_HEAVY_WORK,
  },
};

/** The rules made of each limits record (a cached key hands the same one to every request). */
const rulesOf = new WeakMap<KeyLimits, { rules: LimitRule[]; perMinute: number; daily: number }>();

/**
 * The limiter rules of a key: a per-minute rate and a per-UTC-day quota. The same list for
 * the same (unchanged) limits record, so nothing is built per request; treat it as read-only.
 */
export function keyRules(limits: KeyLimits): LimitRule[] {
  const known = rulesOf.get(limits);
  if (known && known.perMinute === limits.requestsPerMinute && known.daily === limits.dailyQuota) {
    return known.rules;
  }
  const rules: LimitRule[] = [
    { name: 'minute', limit: limits.requestsPerMinute, code: 'rate_limited' },
    { name: 'day', limit: limits.dailyQuota, code: 'quota_exceeded' },
  ];
  rulesOf.set(limits, {
    rules,
    perMinute: limits.requestsPerMinute,
    daily: limits.dailyQuota,
  });
  return rules;
}
