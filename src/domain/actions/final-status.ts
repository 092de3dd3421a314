import { InvalidState } from '../../lib/errors';
import type { ActionLedgerEntry } from '../../store/external-actions.repo';
import { FINAL_ACTION_STATUSES, actionWorkflowId } from '../../workflows/shared';
import type { DomainInfra } from '../infra';

type FinalStatusDeps = Pick<DomainInfra, 'closedRuns' | 'logger' | 'repos'>;

/**
 * The action's newest ledger entry when it is final, else null: a final status is final by
 * the ledger's word, not the projection's nor a workflow's (a reset can start a run of an
 * ended action), so the api signs no decision for it.
 */
export async function finalEntryOf(
  deps: FinalStatusDeps,
  actionId: string,
): Promise<ActionLedgerEntry | null> {
  const record = await deps.repos.externalActions.findById(actionId);
  if (!record) return null; // unknown: the workflow's refusal says so (404)
  const newest = await deps.repos.externalActions.newestEntry(actionId, record.seq);
  return newest && FINAL_ACTION_STATUSES.includes(newest.status) ? newest : null;
}

/** The 409 for a decision on an ended action; the projection is finished if it lags. */
export async function finalStatusRefusal(
  deps: FinalStatusDeps,
  actionId: string,
  decision: string,
  ended: ActionLedgerEntry,
): Promise<InvalidState> {
  const stored = await deps.repos.externalActions.findById(actionId);
  if (stored?.status !== ended.status) {
    // A process stopped after writing the entry: the next one finishes its projection.
    await deps.closedRuns.reflectIfClosed(actionWorkflowId(actionId)).catch((error: unknown) => {
      deps.logger.warn({ err: error, action_id: actionId }, 'closed-run check failed');
    });
  }
  return new InvalidState(
    `cannot ${decision} an action that is ${ended.status} (its ledger ended it at seq ${ended.seq})`,
    { extra: { status: ended.status } },
  );
}
