import { InvalidState, RecordIntegrityError } from '../../lib/errors';
import type { ActionEnd, CheckedActionEnd } from '../../store/external-actions.repo';
import { actionWorkflowId } from '../../workflows/external-action.contract';
import type { DomainInfra } from '../infra';

import { sealProblem } from './ledger-seal';

export type FinalStatusDeps = Pick<DomainInfra, 'closedRuns' | 'logger' | 'repos' | 'ledgerSeal'>;

/**
 * Where the action's ledger ended it, or null: a final status is final by the ledger's word,
 * not the projection's nor a workflow's (a reset can start a run of an ended action), so
 * the api signs no decision for it. One read by `_id` of the end its final entry recorded.
 */
export async function finalEntryOf(
  deps: FinalStatusDeps,
  actionId: string,
): Promise<ActionEnd | null> {
  const end: CheckedActionEnd | null = await deps.repos.externalActions.endOf(actionId);
  if (!end) return null;
  // The end names a ledger entry that says the same; that entry must be sealed, too.
  const problem =
    end.entry.seal === undefined
      ? 'the ledger entry it names is not sealed'
      : sealProblem(deps.ledgerSeal.acceptedKeys, end.entry);
  if (problem !== null) {
    throw new RecordIntegrityError(
      'action_ends',
      actionId,
      problem,
      `end record of action ${actionId}`,
    );
  }
  return end;
}

/** The 409 for a decision on an ended action; the projection is finished if it lags. */
export async function finalStatusRefusal(
  deps: FinalStatusDeps,
  actionId: string,
  decision: string,
  ended: ActionEnd,
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
