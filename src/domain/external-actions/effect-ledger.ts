import type { ActionLedgerEntry, ExternalActionsRepo } from '../../store/external-actions.repo';
import type { ActionState } from '../../workflows/external-action.contract';
import { isFinalStatus } from './ledger-agreement';

const REFUSAL_EVENTS = new Set(['decision_refused', 'decisions_refused']);
const isFinal = (entry: ActionLedgerEntry): boolean => isFinalStatus(entry.status);

/**
 * Why the effect may not act, by what the ledger says now rather than the state the
 * workflow hands it (docs/actions.md, "Resets"), or null: the ledger's entry at the run's
 * `seq` must be this run's head and `executing`, and nothing but refused decisions may
 * follow it (no other run recorded after it, and nothing ended the action since). The head's
 * digest chains every entry before it, so the decisions the run holds are the ledger's.
 */
export async function effectLedgerProblem(
  ledgerRepo: Pick<ExternalActionsRepo, 'entriesFrom'>,
  state: ActionState,
): Promise<string | null> {
  const [head, ...after] = await ledgerRepo.entriesFrom(state.action_id, state.seq);
  if (!head) return `the ledger holds no entry at the run's head (seq ${state.seq})`;
  if (head.digest !== state.ledger_head) {
    return `the ledger's entry at seq ${state.seq} is not the run's head`;
  }
  // Only refused decisions (forged updates the run counted while the effect ran) may follow.
  const next = after.find((entry) => !REFUSAL_EVENTS.has(entry.event) || isFinal(entry));
  if (next) {
    return isFinal(next)
      ? `the action is already ${next.status} (ledger seq ${next.seq})`
      : `the ledger holds ${next.event} at seq ${next.seq}, after the run's head`;
  }
  if (head.status !== 'executing') return `the ledger says ${head.status}, not executing`;
  return null;
}
