import type { AppInfra } from '../app/deps';
import { Unavailable } from '../lib/errors';
import { OpsStatusKey } from '../workflows/shared';

/** What starting one continuous-ops workflow (a checkpoint, a repair) takes. */
export interface OpsWorkflowStart {
  workflowType: 'checkpointWorkflow' | 'repairWorkflow' | 'proofWorkflow';
  workflowId: string;
  args: unknown[];
  /** Its first `OpsStatus` (`checkpoint.running`, `repair.diagnosing`). */
  opsStatus: string;
  staticSummary: string;
  staticDetails: string;
}

/**
 * Starts an ops workflow under its business id (a second start of the same id fails: the
 * caller's id is new), counted in the workflow-start metric. Temporal not answering is 503.
 */
export async function startOpsWorkflow(
  deps: Pick<AppInfra, 'metrics' | 'temporal'>,
  start: OpsWorkflowStart,
): Promise<void> {
  try {
    const client = await deps.temporal.getClient();
    await client.workflow.start(start.workflowType, {
      workflowId: start.workflowId,
      workflowIdConflictPolicy: 'FAIL',
      taskQueue: deps.temporal.taskQueue,
      args: start.args,
      typedSearchAttributes: [{ key: OpsStatusKey, value: start.opsStatus }],
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
