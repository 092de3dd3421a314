import type { Repos } from '../../store';
import type { ActionLedgerEntry, ActionRecord } from '../../store/external-actions.repo';
import { FINAL_ACTION_STATUSES, type ActionState } from '../../workflows/external-action.contract';
import type { Notify } from '../notifications/notifiable-event';
import { closureDetail, type WorkflowClosure } from '../workflow-closure';
import type { LedgerSealer } from './ledger-seal';
import { createTransitionRecorder } from './record-transitions';
import type { CheckpointIndex } from './checkpoint-index';
import { LedgerOffCheckpoint } from './ledger-checkpoint-check';

export interface AbortActionDeps {
  repos: Pick<Repos, 'externalActions' | 'actionInbox'>;
  notify?: Notify;
  /** The api's ledger seal: the `aborted` entry is sealed and checkpointed like the worker's. */
  ledgerSeal: Pick<LedgerSealer, 'seal' | 'checkpoint'>;
  /** The signed checkpoints: no `aborted` is written onto a ledger they show cut or rewritten. */
  checkpoints?: CheckpointIndex;
}

/**
 * The newest ledger entry of an action: its projection's head, or a later one when the
 * projection fell behind the ledger (docs/actions.md), found by `_id` reads forward.
 */
async function newestEntry(
  repos: AbortActionDeps['repos'],
  record: ActionRecord,
): Promise<ActionLedgerEntry | null> {
  let newest: ActionLedgerEntry | null = null;
  for (let seq = record.seq; ; seq += 1) {
    const entry = await repos.externalActions.ledgerEntry(`${record._id}:${seq}`);
    if (!entry) return newest;
    newest = entry;
  }
}

/**
 * Records that an action's workflow was ended from Temporal: status `aborted`, one ledger
 * entry (`aborted`, chained to the head, `actor: null`, who and why from Temporal in
 * `detail.temporal`), the projection, the inbox departure and the `action.aborted`
 * notification, through the same recorder the workflow uses. Nothing happens for an action
 * already final.
 *
 * Several api processes may do this at once: the entry's id (`<action_id>:<seq>`) and its
 * body come from the stored head and the closure alone (its time is the close event's), so
 * they write the same entry and one insert wins; the others find it and finish the same
 * projection, departure and notification (each idempotent). A process that stopped half
 * way is finished by the next one that sees the closure.
 *
 * A ledger that contradicts its signed checkpoints gets nothing (`off_checkpoint`): its lost
 * entries may have ended the action otherwise (a worker refused the run for it and reported
 * it; docs/actions.md, "Resets").
 */
export async function abortAction(
  deps: AbortActionDeps,
  actionId: string,
  closure: WorkflowClosure,
): Promise<'recorded' | 'already_final' | 'unknown_record' | 'off_checkpoint'> {
  const record = await deps.repos.externalActions.findById(actionId);
  if (!record) return 'unknown_record';
  const head = await newestEntry(deps.repos, record);
  const resuming = head?.event === 'aborted';
  if (!resuming && (FINAL_ACTION_STATUSES.includes(record.status) || isFinal(head))) {
    return 'already_final';
  }
  const { _id, approved_by: _by, eligible: _eligible, ...rest } = record;
  const previous = resuming ? (head.detail['previous_status'] as string) : record.status;
  const state: ActionState = {
    ...rest,
    action_id: _id,
    status: 'aborted',
    status_timestamps: { ...record.status_timestamps, aborted: closure.closed_at },
    updated_at: closure.closed_at,
    seq: resuming ? head.seq : (head?.seq ?? record.seq) + 1,
    ledger_head: resuming ? head.prev_digest : (head?.digest ?? record.ledger_head),
  };
  try {
    await createTransitionRecorder(deps)([
      {
        state,
        event: 'aborted',
        actor: null,
        detail: { previous_status: previous, ...closureDetail(closure) },
      },
    ]);
  } catch (error) {
    if (error instanceof LedgerOffCheckpoint) return 'off_checkpoint';
    throw error;
  }
  return 'recorded';
}

const isFinal = (entry: ActionLedgerEntry | null): boolean =>
  entry !== null && FINAL_ACTION_STATUSES.includes(entry.status);
