import type { AppInfra } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import type { KeyLimits } from '../../auth/limits';
import { notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ApiKeyRecord } from '../../store/api-keys.repo';
import { pageById } from '../../store/paging';
import type { QuotaPoliciesRepo, QuotaPolicy } from '../../store/quota-policies.repo';
import { auditCreated, createdActive } from './audit';
import { changeStatus } from './status-change';
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
  const now = new Date().toISOString();
  const policy = await deps.repos.quotaPolicies.insert({
    _id: newId('pol'),
    name: body.name,
    scope: body.scope,
    requests_per_minute: body.requests_per_minute,
    daily_quota: body.daily_quota,
    ...createdActive(now),
  });
  deps.authenticator.invalidateAll();
  return auditCreated(deps, auth, requestId, {
    action: 'policy.create',
    type: 'quota_policy',
    id: policy._id,
    view: policyView(policy),
  });
}

/** `GET /v1/admin/policies`: newest first, optionally by status or by what they scope. */
export const listPolicies = (deps: Pick<AppInfra, 'repos'>, query: PolicyListQuery) =>
  pageById(
    query,
    'pol',
    (limit, before) => {
      const { limit: _limit, cursor: _cursor, ...filter } = query;
      return deps.repos.quotaPolicies.list(filter, limit, before);
    },
    policyView,
  );

/**
 * Only active policies apply: suspending or archiving one hands its keys to the next most
 * specific active policy, or to the class defaults. Applies at once on this instance and
 * within the key-cache bound elsewhere.
 */
export function setPolicyStatus(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: SetPolicyStatusBody,
) {
  return changeStatus(deps, auth, requestId, {
    action: 'policy.status',
    type: 'quota_policy',
    id: body.policy_id,
    status: body.status,
    find: (id) => deps.repos.quotaPolicies.findById(id),
    write: (record, now) => deps.repos.quotaPolicies.setStatus(record._id, body.status, now),
    view: policyView,
    affectsKeys: true,
  });
}
