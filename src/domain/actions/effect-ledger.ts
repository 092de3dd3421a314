import type { ExternalActionsRepo } from '../../store/external-actions.repo';
import {
  FINAL_ACTION_STATUSES,
  type ActionDecision,
  type ActionState,
} from '../../workflows/shared';

/**
 * Why the effect may not act, by what the ledger says now rather than the state the
 * workflow hands it (docs/actions.md, "Resets"), or null: the ledger's newest entry must be
 * this run's `executing` (nothing ended the action since, no other run recorded after it),
 * and it must credit as many approvals as the state holds.
 */
export async function effectLedgerProblem(
  ledgerRepo: Pick<ExternalActionsRepo, 'entriesOf'>,
  state: ActionState,
): Promise<string | null> {
  const ledger = await ledgerRepo.entriesOf(state.action_id);
  const newest = ledger[ledger.length - 1];
  if (!newest) return 'the action has no ledger';
  const final = ledger.find((entry) => FINAL_ACTION_STATUSES.includes(entry.status));
  if (final) return `the action is already ${final.status} (ledger seq ${final.seq})`;
  if (newest.seq !== state.seq || newest.digest !== state.ledger_head) {
    return `the ledger's newest entry is ${newest.event} at seq ${newest.seq}, not this run's head at seq ${state.seq}`;
  }
  if (newest.status !== 'executing') return `the ledger says ${newest.status}, not executing`;
  // Counted, not matched by decision: a workflow task Temporal did not keep may have
  // recorded another of two concurrent approvals than the one the run kept.
  const credited = ledger.filter(
    (entry) => (entry.detail['decision'] as ActionDecision | undefined)?.decision === 'approve',
  ).length;
  if (credited !== state.approvals.length) {
    return `the ledger credits ${credited} approvals, the run ${state.approvals.length}`;
  }
  return null;
}
