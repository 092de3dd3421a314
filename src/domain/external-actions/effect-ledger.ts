import type { ActionLedgerEntry, ExternalActionsRepo } from '../../store/external-actions.repo';
import type { ActionState } from '../../workflows/external-action.contract';
import type { CheckpointIndex } from './checkpoint-index';
import { checkpointMismatch, type CheckpointMismatch } from './ledger-checkpoint-check';
import { isFinalStatus } from './ledger-agreement';

const REFUSAL_EVENTS = new Set(['decision_refused', 'decisions_refused']);
const isFinal = (entry: ActionLedgerEntry): boolean => isFinalStatus(entry.status);

/** Why the effect may not act; `mismatch` when the ledger contradicts a signed checkpoint. */
export interface EffectLedgerRefusal {
  problem: string;
  mismatch?: CheckpointMismatch;
}

/**
 * Why the effect may not act, by what the ledger says now rather than the state the
 * workflow hands it (docs/actions.md, "Resets"), or null. First the signed checkpoints
 * (when given): none from the run's `seq` on may name an entry the ledger does not hold as
 * named, so a ledger cut back to before an effect does not let it happen again. Then the
 * ledger's entry at the run's `seq` must be this run's head and `executing`, and nothing but
 * refused decisions may follow it (no other run recorded after it, and nothing ended the
 * action since). The head's digest chains every entry before it, so the decisions the run
 * holds are the ledger's.
 */
export async function effectLedgerProblem(
  ledgerRepo: Pick<ExternalActionsRepo, 'entriesFrom'>,
  state: ActionState,
  checkpoints?: CheckpointIndex,
): Promise<EffectLedgerRefusal | null> {
  // The common case costs a stat beside the ledger read, and a lookup.
  const [entries] = await Promise.all([
    ledgerRepo.entriesFrom(state.action_id, state.seq),
    checkpoints?.refresh(),
  ]);
  const mismatch =
    checkpoints && (await checkpointMismatch(checkpoints, state.action_id, state.seq, entries));
  if (mismatch) return { problem: mismatch.problem, mismatch };
  const problem = ledgerProblem(entries, state);
  return problem === null ? null : { problem };
}

function ledgerProblem(entries: ActionLedgerEntry[], state: ActionState): string | null {
  const [head, ...after] = entries;
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
