import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { HEAVY_FIELDS, ORGANIZATION_FIELDS } from '../../auth/effective-limits';
import { bootstrapKeyId } from '../../auth/authenticator';
import { Conflict, invalidAt, notFound } from '../../lib/errors';
import { OPERATORS_ORGANIZATION } from '../../store/organizations.repo';
import { newId } from '../../lib/ids';
import type { QuotaPolicy } from '../../store/quota-policies.repo';
import { createdActive } from './audit';
import * as tenant from './tenant-resource';
import type { CreatePolicyBody, PolicyListQuery, SetPolicyStatusBody } from './schemas';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

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
