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

/** The limiter rules of a key: a per-minute rate and a per-UTC-day quota. */
export function keyRules(limits: KeyLimits): LimitRule[] {
  return [
    { name: 'minute', limit: limits.requestsPerMinute, code: 'rate_limited' },
    { name: 'day', limit: limits.dailyQuota, code: 'quota_exceeded' },
  ];
}
