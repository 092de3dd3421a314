import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import type { KeyLimits } from '../../auth/limits';
import { notFound } from '../../api/errors';
import { newId } from '../../lib/ids';
import type { ApiKeyRecord } from '../../store/api-keys.repo';
import type { QuotaPoliciesRepo, QuotaPolicy } from '../../store/quota-policies.repo';
import { audit } from './audit';

export interface CreatePolicyBody {
  name: string;
  scope: QuotaPolicy['scope'];
  requests_per_minute: number;
  daily_quota: number;
}

/** Specificity of a policy's scope: a key beats an organization beats a class. */
const specificity = (policy: QuotaPolicy): number =>
  policy.scope.key_id ? 3 : policy.scope.organization_id ? 2 : 1;

/**
 * The limits of a key under the quota policies: the most specific active policy wins,
 * the newest among equally specific ones; undefined means the class defaults apply.
 */
export function createLimitsResolver(policies: QuotaPoliciesRepo) {
  return async (key: ApiKeyRecord): Promise<KeyLimits | undefined> => {
    const candidates = await policies.activeFor(key);
    let best: QuotaPolicy | undefined;
    for (const policy of candidates) {
      if (!best || specificity(policy) > specificity(best)) best = policy;
    }
    return best && { requestsPerMinute: best.requests_per_minute, dailyQuota: best.daily_quota };
  };
}

export function policyView(policy: QuotaPolicy) {
  return {
    policy_id: policy._id,
    name: policy.name,
    scope: policy.scope,
    requests_per_minute: policy.requests_per_minute,
    daily_quota: policy.daily_quota,
    status: policy.status,
    created_at: policy.created_at,
    updated_at: policy.updated_at,
  };
}

/** Creates an active policy (the schema admits exactly one scope target); it reaches every api instance within the key-cache bound. */
export async function createPolicy(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: CreatePolicyBody,
) {
  if (body.scope.key_id && !(await deps.repos.apiKeys.findById(body.scope.key_id))) {
    throw notFound(`key ${body.scope.key_id}`);
  }
  if (
    body.scope.organization_id &&
    !(await deps.repos.organizations.findById(body.scope.organization_id))
  ) {
    throw notFound(`organization ${body.scope.organization_id}`);
  }
  const now = new Date().toISOString();
  const policy = await deps.repos.quotaPolicies.insert({
    _id: newId('pol'),
    name: body.name,
    scope: body.scope,
    requests_per_minute: body.requests_per_minute,
    daily_quota: body.daily_quota,
    status: 'active',
    created_at: now,
    updated_at: now,
  });
  deps.authenticator.invalidateAll();
  const view = policyView(policy);
  await audit(deps, auth, requestId, {
    action: 'policy.create',
    target: { type: 'quota_policy', id: policy._id },
    before: null,
    after: view,
  });
  return view;
}
