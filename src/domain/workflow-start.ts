import type { DomainInfra } from './infra';
import { Unavailable } from '../lib/errors';
import type { SearchAttributePair } from '@temporalio/common';
import { OpsStatusKey, ProposedByKey, SharedContextIdKey } from '../workflows/shared.contract';
import type { WorkflowName, WorkflowTypes } from '../workflows/workflow-types';

/** A start names a registered workflow and passes exactly its function's arguments. */
type WorkflowArgs<N extends WorkflowName> = Parameters<WorkflowTypes[N]>;

type OpsWorkflowName =
  'checkpointWorkflow' | 'repairWorkflow' | 'proofWorkflow' | 'scenarioWorkflow';

/** What starting one continuous-ops workflow (a checkpoint, a repair) takes. */
export interface OpsWorkflowStart<N extends OpsWorkflowName> {
  workflowType: N;
  workflowId: string;
  args: WorkflowArgs<N>;
  /** Its first `OpsStatus` (`checkpoint.running`, `repair.diagnosing`). */
  opsStatus: string;
  staticSummary: string;
  staticDetails: string;
  /** The shared context it works in (its `SharedContextId`). */
  sharedContextId?: string;
  /** Who asked for it (its `ProposedBy`). */
  requestedBy?: string;
  /** Further search attributes (a repair's `WorldObjectId`, `RepairStrategy`). */
  searchAttributes?: SearchAttributePair[];
}

/** What starting any of the api's workflows takes (its search attributes already chosen). */
export interface WorkflowStart<N extends WorkflowName> {
  workflowType: N;
  workflowId: string;
  args: WorkflowArgs<N>;
  searchAttributes: SearchAttributePair[];
  staticSummary: string;
  staticDetails: string;
}

/**
 * Starts a workflow under its business id (a second start of the same id fails: the
 * caller's id is new), counted in the workflow-start metric. Temporal not answering is 503:
 * nothing was written and no workflow runs, so the caller may simply retry.
 */
export async function startWorkflow<N extends WorkflowName>(
  deps: Pick<DomainInfra, 'metrics' | 'temporal'>,
  start: WorkflowStart<N>,
): Promise<void> {
  try {
    const client = await deps.temporal.getClient();
    await client.workflow.start<WorkflowTypes[N]>(start.workflowType, {
      workflowId: start.workflowId,
      workflowIdConflictPolicy: 'FAIL',
      taskQueue: deps.temporal.taskQueue,
      args: start.args,
      typedSearchAttributes: start.searchAttributes,
      staticSummary: start.staticSummary,
      staticDetails: start.staticDetails,
    });
  } catch (error) {
    throw new Unavailable('the workflow service is unavailable; retry', {
      extra: { cause: error instanceof Error ? error.message : String(error) },
    });
  }
  deps.metrics.workflowStarts.inc({ workflow_type: start.workflowType });
}

/** Starts an ops workflow, with the search attributes every ops workflow carries. */
export const startOpsWorkflow = <N extends OpsWorkflowName>(
  deps: Pick<DomainInfra, 'metrics' | 'temporal'>,
  start: OpsWorkflowStart<N>,
): Promise<void> =>
  startWorkflow(deps, {
    ...start,
    searchAttributes: [
      { key: OpsStatusKey, value: start.opsStatus },
      ...(start.sharedContextId ? [{ key: SharedContextIdKey, value: start.sharedContextId }] : []),
      ...(start.requestedBy ? [{ key: ProposedByKey, value: start.requestedBy }] : []),
      ...(start.searchAttributes ?? []),
    ],
  });

/**
 * The workflow's result when it ends within `ms`; null when it runs on or failed (the
 * caller reads its record instead). A route waiting this long answers small runs at once.
 */
export async function resultWithin<T>(
  deps: Pick<DomainInfra, 'temporal'>,
  workflowId: string,
  ms: number,
): Promise<T | null> {
  const client = await deps.temporal.getClient();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    const result = client.workflow.getHandle(workflowId).result() as Promise<T>;
    return await Promise.race([result.catch(() => null), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
