import type { ApiKeyRecord } from '../store/api-keys.repo';
import type { QuotaPoliciesRepo, QuotaPolicy } from '../store/quota-policies.repo';
import type { Entitlement } from './families';
import { CLASS_LIMITS, type KeyLimits } from './limits';

/**
 * A key's effective limits and where they come from: `class:<entitlement>` for its class's
 * defaults, or the id of the quota policy that sets its requests per minute and per day.
 * The one rule the authenticator enforces and every report (usage, grants, summaries) shows.
 */
export interface EffectiveLimits {
  limits: KeyLimits;
  source: string;
}

/** The heavy-work fields of a policy and the `KeyLimits` field each one sets. */
export const HEAVY_FIELDS = [
  ['concurrent_deployments', 'concurrentDeployments'],
  ['cell_updates_per_day', 'cellUpdatesPerDay'],
  ['organization_concurrent_deployments', 'organizationConcurrentDeployments'],
  ['organization_cell_updates_per_day', 'organizationCellUpdatesPerDay'],
] as const;

/** Heavy-work fields that describe the organization as a whole. */
export const ORGANIZATION_FIELDS = new Set<string>([
  'organization_concurrent_deployments',
  'organization_cell_updates_per_day',
]);

/** A class's default limits (docs/governance.md), what a key gets when no policy applies. */
export const classDefaults = (entitlement: Entitlement): EffectiveLimits => ({
  limits: CLASS_LIMITS[entitlement],
  source: `class:${entitlement}`,
});

/** Specificity of a policy's scope: a key beats an organization beats a class. */
const specificity = (policy: QuotaPolicy): number =>
  policy.scope.key_id ? 3 : policy.scope.organization_id ? 2 : 1;

/**
 * The limits of a key. The bootstrap operator key (ADMIN_API_KEY) is the break-glass path:
 * no policy applies to it, whatever its scope (an entitlement-wide policy included), so a bad
 * policy can always be suspended with it; it has its class's defaults. Any other key:
 * requests per minute and per day come from the most specific active policy that applies,
 * the newest among equally specific ones; each heavy-work limit from the most specific active
 * policy that sets it (the newest among equals), the organization totals only from the key's
 * organization's policies; else the class defaults.
 */
export async function effectiveLimits(
  policies: Pick<QuotaPoliciesRepo, 'activeFor'>,
  key: Pick<ApiKeyRecord, '_id' | 'organization_id' | 'entitlement' | 'bootstrap'>,
): Promise<EffectiveLimits> {
  if (key.bootstrap) return classDefaults(key.entitlement);
  const active = await policies.activeFor(key);
  if (active.length === 0) return classDefaults(key.entitlement);
  // Most specific first; `activeFor` is newest first and the sort is stable.
  const ordered = [...active].sort((a, b) => specificity(b) - specificity(a));
  const best = ordered[0];
  const limits: KeyLimits = {
    ...CLASS_LIMITS[key.entitlement],
    requestsPerMinute: best.requests_per_minute,
    dailyQuota: best.daily_quota,
  };
  for (const [field, limit] of HEAVY_FIELDS) {
    const setBy = ordered.find(
      (policy) =>
        policy[field] !== undefined &&
        (!ORGANIZATION_FIELDS.has(field) || policy.scope.organization_id !== undefined),
    );
    if (setBy) limits[limit] = setBy[field]!;
  }
  return { limits, source: best._id };
}

/** Requests per minute and per UTC day as the reports name them. */
export const requestLimitsView = ({ limits }: EffectiveLimits) => ({
  requests_per_minute: limits.requestsPerMinute,
  daily_quota: limits.dailyQuota,
});
