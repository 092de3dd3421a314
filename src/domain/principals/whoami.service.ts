import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { FAMILIES, familyOpensTo, layerName, type FamilyName } from '../../auth/families';
import { Unauthorized } from '../../lib/errors';
import { toKeyView, toOrganizationView, toPrincipalView } from '../governance/views';

/** Families with routes today; the planned ones answer 501 whoever calls. */
const builtFamilies = (Object.keys(FAMILIES) as FamilyName[]).filter(
  (family) => !FAMILIES[family].exposure.startsWith('planned_'),
);

/**
 * `GET /v1/principals/me`: the calling key, its principal and organization, the route
 * families it opens and the limits it runs under: what a console or a CLI shows as "who
 * you are". The key was verified a moment ago (maybe from the authenticator's cache), so
 * the records are read afresh: this answer is never staler than the store.
 */
export async function whoAmI(deps: Pick<DomainInfra, 'repos' | 'config'>, auth: AuthContext) {
  const { repos } = deps;
  const [key, lastUsed, principal, organization] = await Promise.all([
    repos.apiKeys.findById(auth.keyId),
    repos.apiKeys.lastUsed([auth.keyId]),
    repos.principals.findById(auth.principalId),
    repos.organizations.findById(auth.organizationId),
  ]);
  // Removed between the check and the read (a principal deleted this instant): say so.
  if (!key || !principal || !organization) throw new Unauthorized('the calling key is gone');
  return {
    key: toKeyView(key, lastUsed.get(key._id) ?? null),
    principal: toPrincipalView(principal),
    organization: toOrganizationView(organization),
    access: {
      role: auth.role,
      entitlement: auth.entitlement,
      access_layer: layerName(auth.accessLayer),
      families: builtFamilies.filter((family) => familyOpensTo(FAMILIES[family], auth)),
    },
    limits: {
      requests_per_minute: auth.limits.requestsPerMinute,
      daily_quota: auth.limits.dailyQuota,
      concurrent_deployments: auth.limits.concurrentDeployments,
      cell_updates_per_day: auth.limits.cellUpdatesPerDay,
    },
    links: { temporal_ui: deps.config.temporalUiUrl },
  };
}
