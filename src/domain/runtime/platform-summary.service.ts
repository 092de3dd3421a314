import type { DomainInfra } from '../infra';
import { API_VERSION } from '../../lib/version';
import { FAMILIES, layerName, type FamilyName } from '../../auth/families';
import { isoNow } from '../../lib/time';

/** Service name, as the root descriptor gives it. */
export const SERVICE_NAME = 'governed-runtime';

/**
 * Record kinds the platform summary counts, by collection. Counts use the store's estimate
 * (collection metadata on MongoDB; FerretDB counts by reading the collection). Governance
 * records (keys, principals, ledgers of requests) are not counted: the summary is public.
 */
export const COUNTED_COLLECTIONS = {
  session_steps: 'session_steps',
  world_objects: 'world_objects',
  world_relationships: 'world_relationships',
  world_history_events: 'world_history',
  world_tasks: 'world_tasks',
  external_events: 'external_events',
  external_actions: 'external_actions',
  action_ledger_entries: 'action_ledger',
} as const;

/**
 * The build-safe platform summary: the API version, every family that is not private (with
 * its exposure, minimum class and layer, and how many routes it has; planned families have
 * none yet) and headline record counts. Sessions are counted from the lineage head.
 */
export async function getPlatformSummary(
  deps: Pick<DomainInfra, 'repos'>,
  routes: readonly { family: string }[],
) {
  const perFamily = new Map<string, number>();
  for (const route of routes) perFamily.set(route.family, (perFamily.get(route.family) ?? 0) + 1);
  const families = (Object.keys(FAMILIES) as FamilyName[])
    .filter((family) => FAMILIES[family].exposure !== 'permanently_private')
    .map((family) => {
      const policy = FAMILIES[family];
      return {
        family,
        exposure: policy.exposure,
        min_entitlement: policy.minEntitlement,
        min_layer: layerName(policy.minLayer),
        routes: perFamily.get(family) ?? 0,
        planned: policy.exposure.startsWith('planned_'),
      };
    });
  const [head, counted] = await Promise.all([
    deps.repos.sessions.lineageHead(),
    deps.repos.recordCounts.estimate(Object.values(COUNTED_COLLECTIONS)),
  ]);
  const counts: Record<string, number> = { sessions: head?.sessions ?? 0 };
  Object.keys(COUNTED_COLLECTIONS).forEach((kind, index) => (counts[kind] = counted[index]));
  return {
    service: SERVICE_NAME,
    version: API_VERSION,
    routes: families.reduce((sum, f) => sum + f.routes, 0),
    families,
    counts,
    computed_at: isoNow(),
  };
}
