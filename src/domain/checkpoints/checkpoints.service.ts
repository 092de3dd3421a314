import type { AppInfra } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { found } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { startOpsWorkflow } from '../ops-workflow';
import type { CheckpointRecord } from '../../store/checkpoints.repo';
import { pageById } from '../../store/paging';
import { checkpointWorkflowId, type CheckpointWorkflowInput } from '../../workflows/shared';
import {
  CHECKPOINT_SCOPES,
  SCOPE_COLLECTIONS,
  type CheckpointBody,
  type CheckpointListQuery,
} from './schemas';

type Deps = Pick<AppInfra, 'metrics' | 'repos' | 'temporal'>;

export function checkpointView(record: CheckpointRecord) {
  const { _id, seq: _seq, ...rest } = record;
  return { checkpoint_id: _id, ...rest };
}

/** A checkpoint's first record, before its workflow has done anything. */
export function newCheckpoint(
  body: CheckpointBody,
  requestedBy: string,
  now: string,
): CheckpointRecord {
  const id = newId('chk');
  return {
    _id: id,
    label: body.label ?? null,
    scope: body.scope ?? [...CHECKPOINT_SCOPES],
    status: 'running',
    workflow_id: checkpointWorkflowId(id),
    scopes: {},
    manifest: null,
    history_head: null,
    world_revision: null,
    error: null,
    requested_by: requestedBy,
    seq: 0,
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
}

/**
 * `POST /v1/continuous-ops/checkpoint`: starts the workflow first (its id comes from the
 * checkpoint id), then writes the first record, so nothing is recorded that does not run.
 */
export async function createCheckpoint(deps: Deps, auth: AuthContext, body: CheckpointBody) {
  const record = newCheckpoint(body, auth.principalId, new Date().toISOString());
  const input: CheckpointWorkflowInput = { record, collections: SCOPE_COLLECTIONS };
  await startOpsWorkflow(deps, {
    workflowType: 'checkpointWorkflow',
    workflowId: record.workflow_id,
    args: [input],
    opsStatus: 'checkpoint.running',
    staticSummary: `checkpoint ${record.scope.join(', ')}${record.label ? ` "${record.label}"` : ''}`,
    staticDetails: `Checkpoint \`${record._id}\` requested by \`${record.requested_by}\`; artifacts under \`checkpoints/${record._id}/\``,
  });
  await deps.repos.checkpoints.project(record);
  return checkpointView(record);
}

export const listCheckpoints = (deps: Pick<AppInfra, 'repos'>, query: CheckpointListQuery) =>
  pageById(
    query,
    'chk',
    (limit, before) => deps.repos.checkpoints.list({ status: query.status }, limit, before),
    checkpointView,
  );

export async function getCheckpoint(deps: Pick<AppInfra, 'repos'>, checkpointId: string) {
  const record = await found(
    deps.repos.checkpoints.findById(checkpointId),
    `checkpoint ${checkpointId}`,
  );
  return checkpointView(record);
}
