import { ApplicationFailure, Context } from '@temporalio/activity';
import { isFinalStatus } from '../domain/external-actions/ledger-agreement';
import {
  LedgerOffCheckpoint,
  type CheckpointMismatch,
} from '../domain/external-actions/ledger-checkpoint-check';
import { refuseRun, type RefuseRunDeps } from '../domain/external-actions/refuse-run';
import type { SecurityEvent } from '../domain/worker-trust';
import { resetOriginOf } from '../temporal/reset-divergence';
import { ACTION_ERRORS } from '../workflows/external-action.contract';
import { schedulingWorkflow } from './scheduling-workflow';

/**
 * How the action activities end a run the ledger refuses (docs/actions.md, "Resets"); both
 * fail the activity for good with `RunRefused`, which ends the workflow.
 */
export function createRunRefusals(
  deps: RefuseRunDeps & { reportSecurityEvent: (event: SecurityEvent) => Promise<void> },
) {
  const { repos } = deps;
  /**
   * Ends a run the action's ledger contradicts (docs/actions.md, "Resets"): the ledger says
   * so (`run_refused`, who reset the workflow and why the run is refused; `aborted` after it
   * when the action was not final), and the activity fails for good with the status the
   * ledger ends the action in, which the workflow ends with.
   */
  async function refuseThisRun(
    actionId: string,
    problem: string,
    atSeq: number | null,
  ): Promise<never> {
    const { workflowId, runId } = schedulingWorkflow();
    // Who reset the workflow is told by its history; the refusal stands without it.
    const reset = await Promise.resolve()
      .then(() => resetOriginOf(Context.current().client, workflowId, runId))
      .catch(() => null);
    try {
      await refuseRun(
        deps,
        {
          action_id: actionId,
          workflow_id: workflowId,
          run_id: runId,
          problem,
          at_seq: atSeq,
          reset,
        },
        { run_id: runId },
      );
    } catch (error) {
      // The refusal itself would be written over a ledger its checkpoints show cut.
      if (error instanceof LedgerOffCheckpoint) return refuseOffCheckpoint(error.mismatch);
      throw error;
    }
    const newest = await repos.externalActions.newestEntry(actionId);
    const status = newest && isFinalStatus(newest.status) ? newest.status : 'aborted';
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.runRefused,
      message: `run ${runId} refused: ${problem}`,
      nonRetryable: true,
      details: [status],
    });
  }

  /**
   * Ends a run whose action's ledger contradicts a signed checkpoint (docs/actions.md,
   * "Resets"): reported as a security event naming the checkpoint and the ledger there, and
   * nothing recorded. The ledger is not the one the checkpoints were signed over, so neither
   * `run_refused` nor `aborted` goes into it: either would be written at a seq a checkpoint
   * names for an entry the ledger lost, over the evidence of what happened (`aborted` would
   * even end as aborted an action that executed). The run fails as refused runs do
   * (`RunRefused`), showing `refused`, since the ledger cannot say where the action ended.
   */
  async function refuseOffCheckpoint(mismatch: CheckpointMismatch): Promise<never> {
    const { workflowId, runId } = schedulingWorkflow();
    await deps.reportSecurityEvent({
      kind: 'security.checkpoint_mismatch',
      message: `refused a run of action ${mismatch.action_id}: ${mismatch.problem}`,
      dedup_key: `${workflowId}/${runId}`,
      detail: {
        action_id: mismatch.action_id,
        workflow_id: workflowId,
        run_id: runId,
        checkpoint: mismatch.checkpoint,
        ledger: mismatch.ledger,
        problem: mismatch.problem,
      },
    });
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.runRefused,
      message: `run ${runId} refused: ${mismatch.problem}`,
      nonRetryable: true,
      details: ['refused'],
    });
  }

  return { refuseThisRun, refuseOffCheckpoint };
}
