import type { Client } from '@temporalio/client';
import { resetOriginOf } from '../../temporal/reset-divergence';
import { actionWorkflowId } from '../../workflows/external-action.contract';
import { isFinalStatus } from './ledger-agreement';
import { refuseRun, type RefuseRunDeps } from './refuse-run';
import { LedgerOffCheckpoint } from './ledger-checkpoint-check';

/**
 * A reset's run of an action whose ledger has ended it: recorded as refused (`run_refused`,
 * who reset it, why), before the api terminates the run. Answers whether it was refused.
 * A ledger that contradicts its signed checkpoints gets no entry: the run is refused and
 * terminated all the same.
 */
export async function refuseResetOfFinalAction(
  deps: RefuseRunDeps & { client: () => Promise<Client> },
  actionId: string,
  runId: string,
): Promise<boolean> {
  const record = await deps.repos.externalActions.findById(actionId);
  const newest = await deps.repos.externalActions.newestEntry(actionId, record?.seq ?? 1);
  if (!newest || !isFinalStatus(newest.status)) return false;
  // The run that ended the action (or that refused itself in the ledger), still finishing:
  // it ends by itself.
  if (newest.run_id === runId) return false;
  const workflowId = actionWorkflowId(actionId);
  const reset = await resetOriginOf(await deps.client(), workflowId, runId).catch(() => null);
  await refuseRun(deps, {
    action_id: actionId,
    workflow_id: workflowId,
    run_id: runId,
    problem: `the action is already ${newest.status} (ledger seq ${newest.seq}); a reset does not reopen it`,
    at_seq: newest.seq + 1,
    reset,
  }).catch((error: unknown) => {
    if (!(error instanceof LedgerOffCheckpoint)) throw error;
  });
  return true;
}
