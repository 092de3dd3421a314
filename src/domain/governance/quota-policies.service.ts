import type { AppInfra } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import type { KeyLimits } from '../../auth/limits';
import { notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ApiKeyRecord } from '../../store/api-keys.repo';
import type { QuotaPoliciesRepo, QuotaPolicy } from '../../store/quota-policies.repo';
import { createdActive } from './audit';
import * as tenant from './tenant-resource';
import type { CreatePolicyBody, PolicyListQuery, SetPolicyStatusBody } from './schemas';

type Deps = Pick<AppInfra, 'authenticator' | 'config' | 'repos'>;

/** Specificity of a policy's scope: a key beats an organization beats a class. */
const specificity = (policy: QuotaPolicy): number =>
  policy.scope.key_id ? 3 : policy.scope.organization_id ? 2 : 1;

/**
 * The policy that sets a key's limits: the most specific active one, the newest among
 * equally specific ones; undefined means the class defaults apply.
 */
export async function winningPolicy(
  policies: Pick<QuotaPoliciesRepo, 'activeFor'>,
  key: ApiKeyRecord,
): Promise<QuotaPolicy | undefined> {
  let best: QuotaPolicy | undefined;
  for (const policy of await policies.activeFor(key)) {
    if (!best || specificity(policy) > specificity(best)) best = policy;
  }
  return best;
}

/** The limits of a key under the quota policies (`winningPolicy`), or undefined for the class defaults. */
export function createLimitsResolver(policies: QuotaPoliciesRepo) {
  return async (key: ApiKeyRecord): Promise<KeyLimits | undefined> => {
    const best = await winningPolicy(policies, key);
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

/**
 * Only active policies apply: suspending or archiving one hands its keys to the next most
 * specific active policy, or to the class defaults. Applies at once on this instance and
 * within the key-cache bound elsewhere.
 */
const policies = tenant.resource('policy', 'pol', (repos) => repos.quotaPolicies, policyView, {
  type: 'quota_policy',
  affectsKeys: true,
});

/** Creates an active policy (the schema admits exactly one scope target); it reaches every api instance within the key-cache bound. */
export async function createPolicy(
  deps: Deps,
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
  const policy: QuotaPolicy = {
    _id: newId('pol'),
    name: body.name,
    scope: body.scope,
    requests_per_minute: body.requests_per_minute,
    daily_quota: body.daily_quota,
    ...createdActive(new Date().toISOString()),
  };
  const view = await tenant.create(deps, auth, requestId, policies, policy);
  deps.authenticator.invalidateAll();
  return view;
}

/** `GET /v1/admin/policies`: newest first, optionally by status or by what they scope. */
export const listPolicies = (deps: Pick<AppInfra, 'repos'>, query: PolicyListQuery) =>
  tenant.list(deps, policies, query);

export const setPolicyStatus = tenant.statusSetter(
  policies,
  (body: SetPolicyStatusBody) => body.policy_id,
);
