import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { CLASS_LIMITS, type KeyLimits } from '../../auth/limits';
import { bootstrapKeyId } from '../../auth/authenticator';
import { Conflict, invalidAt, notFound } from '../../lib/errors';
import { OPERATORS_ORGANIZATION } from '../../store/organizations.repo';
import { newId } from '../../lib/ids';
import type { ApiKeyRecord } from '../../store/api-keys.repo';
import type { QuotaPoliciesRepo, QuotaPolicy } from '../../store/quota-policies.repo';
import { createdActive } from './audit';
import * as tenant from './tenant-resource';
import type { CreatePolicyBody, PolicyListQuery, SetPolicyStatusBody } from './schemas';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/** Specificity of a policy's scope: a key beats an organization beats a class. */
const specificity = (policy: QuotaPolicy): number =>
  policy.scope.key_id ? 3 : policy.scope.organization_id ? 2 : 1;

/** The heavy-work fields of a policy and the `KeyLimits` field each one sets. */
const HEAVY_FIELDS = [
  ['concurrent_deployments', 'concurrentDeployments'],
  ['cell_updates_per_day', 'cellUpdatesPerDay'],
  ['organization_concurrent_deployments', 'organizationConcurrentDeployments'],
  ['organization_cell_updates_per_day', 'organizationCellUpdatesPerDay'],
] as const;

/** Heavy-work fields that describe the organization as a whole. */
const ORGANIZATION_FIELDS = new Set<string>([
  'organization_concurrent_deployments',
  'organization_cell_updates_per_day',
]);

/**
 * The limits of a key under the quota policies, or undefined for the class defaults.
 * Requests per minute and per day come from the winning policy (`best`): the most specific
 * active one, the newest among equally specific ones. Each heavy-work limit comes
 * from the most specific active policy that sets it (the newest among equals), else the
 * class default; the organization totals only from the key's organization's policies.
 */
export async function limitsOf(
  policies: Pick<QuotaPoliciesRepo, 'activeFor'>,
  key: ApiKeyRecord,
): Promise<{ limits: KeyLimits; best: QuotaPolicy | undefined } | undefined> {
  const active = await policies.activeFor(key);
  if (active.length === 0) return undefined;
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
  return { limits, best };
}

/** The limits of a key under the quota policies (`limitsOf`), or undefined for the class defaults. */
export function createLimitsResolver(policies: QuotaPoliciesRepo) {
  // The bootstrap operator key (ADMIN_API_KEY) is the break-glass path: no policy throttles
  // it, whatever its scope (an entitlement-wide policy included), so a bad policy can
  // always be suspended with it.
  return async (key: ApiKeyRecord): Promise<KeyLimits | undefined> =>
    key.bootstrap ? undefined : (await limitsOf(policies, key))?.limits;
}

export function toPolicyView(policy: QuotaPolicy) {
  return {
    policy_id: policy._id,
    name: policy.name,
    scope: policy.scope,
    requests_per_minute: policy.requests_per_minute,
    daily_quota: policy.daily_quota,
    ...Object.fromEntries(
      HEAVY_FIELDS.filter(([field]) => policy[field] !== undefined).map(([field]) => [
        field,
        policy[field],
      ]),
    ),
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
const policies = tenant.resource('policy', 'pol', (repos) => repos.quotaPolicies, toPolicyView, {
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
  const organization = body.scope.organization_id
    ? await deps.repos.organizations.findById(body.scope.organization_id)
    : undefined;
  if (body.scope.organization_id && !organization) {
    throw notFound(`organization ${body.scope.organization_id}`);
  }
  await refuseControlPlaneScope(deps, body.scope, organization?.name);
  for (const field of ORGANIZATION_FIELDS) {
    if (body[field as keyof CreatePolicyBody] !== undefined && !body.scope.organization_id) {
      throw invalidAt(['body', field], 'only an organization-scoped policy sets this');
    }
  }
  const policy: QuotaPolicy = {
    _id: newId('pol'),
    name: body.name,
    scope: body.scope,
    requests_per_minute: body.requests_per_minute,
    daily_quota: body.daily_quota,
    ...Object.fromEntries(
      HEAVY_FIELDS.filter(([field]) => body[field] !== undefined).map(([field]) => [
        field,
        body[field],
      ]),
    ),
    ...createdActive(new Date().toISOString()),
  };
  const view = await tenant.create(deps, auth, requestId, policies, policy);
  deps.authenticator.invalidateAll();
  return view;
}

/**
 * A policy must not throttle the control plane's own way in: the operators' organization,
 * the bootstrap key's organization or the bootstrap key itself (409, as suspending them is).
 * Found by fuzzing: a policy of 6 requests a minute on the operators' organization locked
 * the bootstrap key out for hours.
 */
async function refuseControlPlaneScope(
  deps: Deps,
  scope: CreatePolicyBody['scope'],
  organizationName: string | undefined,
): Promise<void> {
  const bootstrapId = deps.config.adminApiKey ? bootstrapKeyId(deps.config.adminApiKey) : null;
  const bootstrap = bootstrapId ? await deps.repos.apiKeys.findById(bootstrapId) : null;
  const why =
    organizationName === OPERATORS_ORGANIZATION
      ? `organization ${scope.organization_id} is the operators' organization`
      : scope.organization_id && scope.organization_id === bootstrap?.organization_id
        ? `organization ${scope.organization_id} holds the bootstrap operator key (ADMIN_API_KEY)`
        : scope.key_id && scope.key_id === bootstrapId
          ? `key ${scope.key_id} is the bootstrap operator key (ADMIN_API_KEY)`
          : null;
  if (why) {
    throw new Conflict(
      `refusing a quota policy that would throttle the control plane: ${why}; the bootstrap key is never throttled, and operators' access is limited by their keys' own class`,
      { extra: { scope } },
    );
  }
}

/** `GET /v1/admin/policies`: newest first, optionally by status or by what they scope. */
export const listPolicies = (deps: Pick<DomainInfra, 'repos'>, query: PolicyListQuery) =>
  tenant.list(deps, policies, query);

export const setPolicyStatus = tenant.statusSetter(
  policies,
  (body: SetPolicyStatusBody) => body.policy_id,
);
