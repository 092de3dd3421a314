import type { Entitlement } from './families';
import type { LimitRule } from './rate-limiter';

export interface KeyLimits {
  requestsPerMinute: number;
  dailyQuota: number;
}

/** Defaults by entitlement class (DESIGN.md section 3); quota policies may override them. */
export const CLASS_LIMITS: Record<Entitlement, KeyLimits> = {
  sandbox: { requestsPerMinute: 60, dailyQuota: 1_000 },
  institutional: { requestsPerMinute: 600, dailyQuota: 50_000 },
  strategic: { requestsPerMinute: 3_000, dailyQuota: 1_000_000 },
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
