import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { found } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { startOpsWorkflow } from '../workflow-start';
import type { CheckpointRecord } from '../../store/checkpoints.repo';
import { pageById } from '../../store/paging';
import {
  checkpointWorkflowId,
  type CheckpointWorkflowInput,
} from '../../workflows/checkpoint.contract';
import { workflowUrlOf, type LinkDeps } from '../workflow-links';
import { checkpointStartText } from './checkpoint-text';
import {
  CHECKPOINT_SCOPES,
  SCOPE_COLLECTIONS,
  type CheckpointBody,
  type CheckpointListQuery,
} from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'metrics' | 'repos' | 'temporal'>;

/** A checkpoint as clients see it, with its Web UI page as `workflow_url`. */
export function toCheckpointView(record: CheckpointRecord, links: LinkDeps) {
  const { _id, seq: _seq, ...rest } = record;
  return { checkpoint_id: _id, ...rest, workflow_url: workflowUrlOf(links, record.workflow_id) };
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
    requestedBy: auth.principalId,
    ...checkpointStartText(deps, record, auth),
  });
  await deps.repos.checkpoints.project(record);
  return toCheckpointView(record, deps);
}

export const listCheckpoints = (
  deps: Pick<DomainInfra, 'config' | 'repos' | 'temporal'>,
  query: CheckpointListQuery,
) =>
  pageById(
    query,
    'chk',
    (limit, before) => deps.repos.checkpoints.list({ status: query.status }, limit, before),
    (record) => toCheckpointView(record, deps),
  );

export async function getCheckpoint(
  deps: Pick<DomainInfra, 'config' | 'repos' | 'temporal'>,
  checkpointId: string,
) {
  const record = await found(
    deps.repos.checkpoints.findById(checkpointId),
    `checkpoint ${checkpointId}`,
  );
  return toCheckpointView(record, deps);
}
