import type { DomainInfra } from '../infra';
import {
  ACCESS_LAYER_NAMES,
  ENTITLEMENTS,
  FAMILIES,
  layerName,
  type AccessLayer,
  type FamilyName,
} from '../../auth/families';
import { classDefaults, requestLimitsView } from '../../auth/effective-limits';
import type { KeyStatus } from '../../store/api-keys.repo';

/**
 * `GET /v1/admin/access-layers`: every route family of the family table (planned ones, with 0
 * routes, included) with its exposure, minimum class and layer and its route count in
 * `routes`; and each layer with the families it opens and its active keys.
 */
export async function accessLayerSummary(
  deps: Pick<DomainInfra, 'repos'>,
  routes: readonly { family: string }[],
) {
  const routeCounts = new Map<string, number>();
  for (const route of routes)
    routeCounts.set(route.family, (routeCounts.get(route.family) ?? 0) + 1);
  const names = Object.keys(FAMILIES) as FamilyName[];
  const families = names.map((family) => ({
    family,
    exposure: FAMILIES[family].exposure,
    min_entitlement: FAMILIES[family].minEntitlement,
    min_layer: layerName(FAMILIES[family].minLayer),
    operator_only: FAMILIES[family].operatorOnly,
    routes: routeCounts.get(family) ?? 0,
  }));
  const { activeByLayer } = await deps.repos.apiKeys.counts();
  const layers = ACCESS_LAYER_NAMES.map((name, index) => ({
    layer: index,
    name,
    families: names.filter((family) => FAMILIES[family].minLayer === index),
    active_keys: activeByLayer.get(index as AccessLayer) ?? 0,
  }));
  return { layers, families };
}

/**
 * `GET /v1/admin/entitlements`: each class, weakest first, with its default limits, the
 * active class-scoped policies and its keys by status (from the keys collection: `$group`
 * with `$sum`, which FerretDB supports).
 */
export async function entitlementSummary(deps: Pick<DomainInfra, 'repos'>) {
  const [{ byClass }, classPolicies] = await Promise.all([
    deps.repos.apiKeys.counts(),
    deps.repos.quotaPolicies.activeClassPolicyCounts(),
  ]);
  const classes = ENTITLEMENTS.map((entitlement) => {
    const keys: Record<KeyStatus, number> = { active: 0, suspended: 0, revoked: 0 };
    for (const row of byClass) if (row.entitlement === entitlement) keys[row.status] += row.n;
    return {
      entitlement,
      ...requestLimitsView(classDefaults(entitlement)),
      policies: classPolicies.get(entitlement) ?? 0,
      active_keys: keys.active,
      keys,
    };
  });
  return { classes };
}
