/**
 * Limits on heavy work (docs/governance.md, "Limits on heavy work"): running deployments and
 * cell updates per UTC day, per key and per organization, checked when a deployment is
 * admitted. Neither rests on a read-modify-write of the database: a running deployment
 * holds a slot claimed by a unique insert, and a charge is written before the day's sum is
 * read, so two concurrent deploys can be refused together but never both admitted past it.
 */
import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import type { HeavyWorkLimits } from '../../auth/limits';
import { LimitExceeded } from '../../lib/errors';
import { msUntilUtcMidnight, utcDay } from '../../lib/time';
import type { HeavyWorkRepo } from '../../store/heavy-work.repo';
import type { NormalizedSpec } from '../../store/substrate-deployments.repo';

type Deps = Pick<DomainInfra, 'repos' | 'metrics'>;

/** A slot whose deployment has no record this long after the claim never started. */
export const UNSTARTED_CLAIM_MS = 60_000;

/** What admission took: given back when the deployment does not start after all. */
export interface HeavyWorkAdmission {
  cellUpdates: number;
  /** Frees the slots and refunds the charge. */
  withdraw(): Promise<void>;
}

/** Cell updates a deployment of this spec costs: cells × ticks. */
export const cellUpdatesOf = (spec: NormalizedSpec): number =>
  spec.params.width * spec.params.height * spec.params.ticks;

interface Scope {
  name: 'key' | 'organization';
  id: string;
  slot: string;
  charge: { key_id: string } | { organization_id: string };
  concurrent: number;
  cellUpdates: number;
}

function scopesOf(auth: AuthContext): Scope[] {
  const { limits } = auth;
  return [
    {
      name: 'key',
      id: auth.keyId,
      slot: `key:${auth.keyId}`,
      charge: { key_id: auth.keyId },
      concurrent: limits.concurrentDeployments,
      cellUpdates: limits.cellUpdatesPerDay,
    },
    {
      name: 'organization',
      id: auth.organizationId,
      slot: `org:${auth.organizationId}`,
      charge: { organization_id: auth.organizationId },
      concurrent: limits.organizationConcurrentDeployments,
      cellUpdates: limits.organizationCellUpdatesPerDay,
    },
  ];
}

/**
 * Admits a deployment against every limit of its key and organization, or throws 429
 * `deployment_concurrency_exceeded` / `cell_updates_quota_exceeded` naming the limit and the
 * scope, having taken nothing.
 */
export async function admitDeployment(
  deps: Deps,
  auth: AuthContext,
  deploymentId: string,
  spec: NormalizedSpec,
): Promise<HeavyWorkAdmission> {
  const heavy = deps.repos.heavyWork;
  const scopes = scopesOf(auth);
  const cellUpdates = cellUpdatesOf(spec);
  const withdraw = async () => {
    await heavy.releaseSlotsOf(deploymentId);
    await heavy.refund(deploymentId);
  };
  try {
    for (const scope of scopes) await claimSlot(deps, scope, deploymentId);
    const nowMs = Date.now();
    const day = utcDay(nowMs);
    await heavy.charge({
      _id: deploymentId,
      key_id: auth.keyId,
      organization_id: auth.organizationId,
      day,
      cell_updates: cellUpdates,
      at: new Date(nowMs).toISOString(),
    });
    for (const scope of scopes) {
      const used = await heavy.chargedOn(scope.charge, day);
      if (used > scope.cellUpdates) throw quotaExceeded(scope, used - cellUpdates, cellUpdates);
    }
  } catch (error) {
    await withdraw();
    if (error instanceof LimitExceeded) deps.metrics.limiterRejections.inc({ code: error.kind });
    throw error;
  }
  return { cellUpdates, withdraw };
}

/** Claims a slot of the scope, freeing slots of finished deployments first when all are held. */
async function claimSlot(deps: Deps, scope: Scope, deploymentId: string): Promise<void> {
  const heavy = deps.repos.heavyWork;
  const claim = () =>
    heavy.claimSlot(scope.slot, scope.concurrent, deploymentId, new Date().toISOString());
  if (await claim()) return;
  if (scope.concurrent > 0 && (await reconcile(deps, heavy, scope.slot)) > 0 && (await claim())) {
    return;
  }
  const running = (await heavy.slotsOf(scope.slot)).length;
  throw new LimitExceeded(
    'deployment_concurrency_exceeded',
    `limit of ${scope.concurrent} concurrent deployments per ${scope.name} reached (${scope.name} ${scope.id}: ${running} running)`,
    {
      extra: {
        limit: 'concurrent_deployments',
        scope: scope.name,
        scope_id: scope.id,
        allowed: scope.concurrent,
        running,
      },
    },
  );
}

/**
 * Frees the scope's slots whose deployment is final (its release was lost) or whose
 * deployment never started (no record `UNSTARTED_CLAIM_MS` after the claim); answers how
 * many. A slot is deleted only if it still names that deployment.
 */
export async function reconcile(
  deps: Pick<DomainInfra, 'repos'>,
  heavy: HeavyWorkRepo,
  slotScope: string,
): Promise<number> {
  let freed = 0;
  for (const slot of await heavy.slotsOf(slotScope)) {
    const record = await deps.repos.substrateDeployments.findById(slot.deployment_id);
    const stale = record
      ? record.status !== 'running'
      : Date.now() - Date.parse(slot.claimed_at) > UNSTARTED_CLAIM_MS;
    if (stale && (await heavy.releaseSlot(slot))) freed += 1;
  }
  return freed;
}

function quotaExceeded(scope: Scope, used: number, requested: number): LimitExceeded {
  const nowMs = Date.now();
  // Waiting helps only when the deployment fits in a whole day's quota.
  const retryAfterSeconds =
    requested <= scope.cellUpdates ? Math.ceil(msUntilUtcMidnight(nowMs) / 1000) : undefined;
  return new LimitExceeded(
    'cell_updates_quota_exceeded',
    `daily quota of ${scope.cellUpdates} cell updates per ${scope.name} exceeded (${scope.name} ${scope.id}: ${used} used today, this deployment needs ${requested})`,
    {
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      extra: {
        limit: 'cell_updates_per_day',
        scope: scope.name,
        scope_id: scope.id,
        allowed: scope.cellUpdates,
        used,
        requested,
        resets_at: new Date(nowMs + msUntilUtcMidnight(nowMs)).toISOString(),
        ...(retryAfterSeconds === undefined ? {} : { retry_after_seconds: retryAfterSeconds }),
      },
    },
  );
}

/** A key's and its organization's heavy work now: running deployments and today's charges. */
export async function heavyWorkUsage(
  deps: Pick<DomainInfra, 'repos'>,
  key: { _id: string; organization_id: string },
  limits: HeavyWorkLimits,
) {
  const heavy = deps.repos.heavyWork;
  const nowMs = Date.now();
  const day = utcDay(nowMs);
  const of = async (slot: string, charge: Scope['charge'], concurrent: number, cells: number) => {
    const [running, used] = await Promise.all([
      heavy.slotsOf(slot).then((slots) => slots.length),
      heavy.chargedOn(charge, day),
    ]);
    return {
      concurrent_deployments: { allowed: concurrent, running },
      cell_updates_today: { allowed: cells, used, remaining: Math.max(0, cells - used) },
    };
  };
  const [perKey, perOrganization] = await Promise.all([
    of(
      `key:${key._id}`,
      { key_id: key._id },
      limits.concurrentDeployments,
      limits.cellUpdatesPerDay,
    ),
    of(
      `org:${key.organization_id}`,
      { organization_id: key.organization_id },
      limits.organizationConcurrentDeployments,
      limits.organizationCellUpdatesPerDay,
    ),
  ]);
  return {
    key: perKey,
    organization: perOrganization,
    resets_at: new Date(nowMs + msUntilUtcMidnight(nowMs)).toISOString(),
  };
}
