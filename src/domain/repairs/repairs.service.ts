import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { Conflict, found, Invalid, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { startOpsWorkflow } from '../workflow-start';
import { pageById } from '../../store/paging';
import type { RepairRecord } from '../../store/repairs.repo';
import {
  repairWorkflowId,
  type RepairWorkflowInput,
  repairRequestClaimOf,
} from '../../workflows/repair.contract';
import { RepairStrategyKey, WorldObjectIdKey } from '../../workflows/shared.contract';
import { workflowUrlOf, type LinkDeps } from '../workflow-links';
import { repairStartText } from './repair-text';
import { diagnose, RepairNotPossible } from './diagnosis';
import { gatherEvidence } from './evidence';
import {
  FINAL_REPAIR_STATUSES,
  REPAIR_STRATEGIES,
  type RepairRequestBody,
  type RepairListQuery,
} from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'decisionSigner' | 'metrics' | 'repos' | 'temporal'>;

export function toRepairView(record: RepairRecord, links: LinkDeps) {
  const { _id, seq: _seq, ...rest } = record;
  return { repair_id: _id, ...rest, workflow_url: workflowUrlOf(links, record.workflow_id) };
}

/** Options only `restore_last_good` takes, and not both at once: 422 naming the field. */
function checkOptions(body: RepairRequestBody, version: number): void {
  const strategy = body.strategy ?? 'revalidate';
  const issue = (field: string, msg: string) =>
    new Invalid([{ loc: ['body', field], msg, type: 'value_error' }]);
  for (const field of ['to_version', 'checkpoint_id'] as const) {
    if (body[field] !== undefined && strategy !== 'restore_last_good') {
      throw issue(field, `${field} is only for the restore_last_good strategy`);
    }
  }
  if (body.to_version !== undefined && body.checkpoint_id !== undefined) {
    throw issue('checkpoint_id', 'give to_version or checkpoint_id, not both');
  }
  if (body.to_version !== undefined && body.to_version >= version) {
    throw issue('to_version', `the object is at version ${version}: restore an earlier one`);
  }
}

/**
 * Takes the object's repair slot for `repairId`: 409 naming the repair that runs on it. A
 * slot held by a repair that has ended (its release was lost) is taken over.
 */
async function claimObject(deps: Deps, objectId: string, repairId: string, now: string) {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const holder = await deps.repos.repairs.claim(objectId, repairId, now);
    if (holder === null) return;
    const held = await deps.repos.repairs.findById(holder);
    if (held && !FINAL_REPAIR_STATUSES.includes(held.status)) {
      throw new Conflict(
        `repair ${holder} is running on ${objectId} (${held.status}); wait for it`,
        {
          extra: { repair_id: holder },
        },
      );
    }
    await deps.repos.repairs.release(objectId, holder);
  }
  throw new Conflict(`another repair of ${objectId} started meanwhile; read the repair state`);
}

/**
 * `POST /v1/repair/request`: claims the object, starts the repair workflow (its id comes from
 * the repair id), then writes the first record.
 */
export async function requestRepair(deps: Deps, auth: AuthContext, body: RepairRequestBody) {
  const object = await found(
    deps.repos.worldObjects.findById(body.object_id),
    `world object ${body.object_id}`,
  );
  checkOptions(body, object.version);
  if (body.checkpoint_id && !(await deps.repos.checkpoints.findById(body.checkpoint_id))) {
    throw notFound(`checkpoint ${body.checkpoint_id}`);
  }
  const now = new Date().toISOString();
  const id = newId('rep');
  const record: RepairRecord = {
    _id: id,
    object_id: object._id,
    strategy: body.strategy ?? 'revalidate',
    status: 'diagnosing',
    reason: body.reason ?? null,
    to_version: body.to_version ?? null,
    checkpoint_id: body.checkpoint_id ?? null,
    requested_by: { principal_id: auth.principalId, key_id: auth.keyId },
    workflow_id: repairWorkflowId(id),
    steps: [],
    findings: [],
    plan: null,
    child_action_id: null,
    result: null,
    error: null,
    status_timestamps: { diagnosing: now },
    ledger_seq: null,
    seq: 0,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
  await claimObject(deps, object._id, id, now);
  const input: RepairWorkflowInput = {
    record,
    request_signature: deps.decisionSigner.signClaim(
      'repair-request',
      repairRequestClaimOf(record),
    ),
    names: { requester: auth.principalName, target: object.name },
    public_base_url: deps.config.publicBaseUrl,
  };
  try {
    await startOpsWorkflow(deps, {
      workflowType: 'repairWorkflow',
      workflowId: record.workflow_id,
      args: [input],
      opsStatus: 'repair.diagnosing',
      requestedBy: auth.principalId,
      searchAttributes: [
        { key: WorldObjectIdKey, value: object._id },
        { key: RepairStrategyKey, value: record.strategy },
      ],
      ...repairStartText(deps, record, object, auth),
    });
  } catch (error) {
    await deps.repos.repairs.release(object._id, id);
    throw error;
  }
  await deps.repos.repairs.project(record);
  return toRepairView(record, deps);
}

/** `GET /v1/repair/state`: the newest repairs, optionally of one object. */
export const listRepairs = (
  deps: Pick<DomainInfra, 'config' | 'repos' | 'temporal'>,
  query: RepairListQuery,
) =>
  pageById(
    query,
    'rep',
    (limit, before) => deps.repos.repairs.list({ object_id: query.object_id }, limit, before),
    (record) => toRepairView(record, deps),
  );

/** `GET /v1/repairability/{object_id}`: each strategy as it would go now; changes nothing. */
export async function repairability(deps: Pick<DomainInfra, 'repos'>, objectId: string) {
  const object = await found(
    deps.repos.worldObjects.findById(objectId),
    `world object ${objectId}`,
  );
  const strategies = await Promise.all(
    REPAIR_STRATEGIES.map(async (strategy) => {
      try {
        const { findings, plan } = diagnose(
          strategy,
          await gatherEvidence(deps.repos, object, strategy),
        );
        return {
          strategy,
          applicable: plan !== null,
          findings,
          changes: plan && {
            attributes: plan.diff.attributes,
            external_state: plan.diff.external_state,
            source: plan.source,
            plan_digest: plan.digest,
          },
        };
      } catch (error) {
        if (!(error instanceof RepairNotPossible)) throw error;
        return { strategy, applicable: false, findings: [], changes: null, reason: error.message };
      }
    }),
  );
  const [newest] = await deps.repos.checkpoints.list({ status: 'completed' }, 1);
  return {
    object_id: object._id,
    version: object.version,
    strategies,
    newest_checkpoint: newest
      ? { checkpoint_id: newest._id, completed_at: newest.completed_at }
      : null,
    good_version: object.version > 1 ? object.version - 1 : null,
    running_repair: await deps.repos.repairs.holderOf(object._id),
  };
}
