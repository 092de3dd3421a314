import type { ActionState } from '../../workflows/external-action.contract';
import { isFinalStatus } from './ledger-agreement';
import {
  createTransitionRecorder,
  type RecordTransitionInput,
  type Recorder,
  type TransitionRecorderDeps,
} from './record-transitions';

export type RefuseRunDeps = TransitionRecorderDeps;

/** Who reset the workflow into the refused run, as its history tells (null: not a reset). */
export interface ResetOrigin {
  base_run_id: string | null;
  identity: string | null;
  reason: string | null;
}

export interface RunRefusal {
  action_id: string;
  workflow_id: string;
  run_id: string;
  problem: string;
  /** The `seq` at which the run and the ledger disagree. */
  at_seq: number | null;
  reset: ResetOrigin | null;
}

/**
 * Records that a run of an action's workflow was refused because it disagrees with the
 * ledger (docs/actions.md, "Resets"): a `run_refused` entry naming the run, who reset it and
 * why it was refused, chained to the ledger's newest entry; and when the action was not
 * final yet, `aborted` after it (no run of its workflow can now finish it truthfully). Once per
 * run: a retry, or a second refusal of the same run, finds its entry and writes nothing.
 */
export async function refuseRun(
  deps: RefuseRunDeps,
  refusal: RunRefusal,
  /** Who writes: the refused run itself (the worker, ending it), or the api (null). */
  recorder: Recorder = { run_id: null },
): Promise<void> {
  const { repos } = deps;
  const [record, ledger] = await Promise.all([
    repos.externalActions.findById(refusal.action_id),
    repos.externalActions.entriesFrom(refusal.action_id, 1),
  ]);
  const newest = ledger[ledger.length - 1];
  if (!record || !newest) return; // nothing recorded: the run opened nothing to refuse
  const already = ledger.some(
    (entry) => entry.event === 'run_refused' && entry.detail['run_id'] === refusal.run_id,
  );
  if (already) return;
  const { _id, approved_by: _by, eligible: _eligible, ...rest } = record;
  const at = new Date().toISOString();
  // The state as the ledger ends it, whatever the projection says.
  const base: ActionState = {
    ...rest,
    action_id: _id,
    status: newest.status,
    seq: newest.seq,
    ledger_head: newest.digest,
    updated_at: at,
  };
  const refused: RecordTransitionInput = {
    state: { ...base, seq: newest.seq + 1 },
    at,
    event: 'run_refused',
    actor: null,
    detail: {
      workflow_id: refusal.workflow_id,
      run_id: refusal.run_id,
      problem: refusal.problem,
      at_seq: refusal.at_seq,
      reset: refusal.reset,
    },
  };
  const inputs = [refused];
  if (!isFinalStatus(newest.status)) {
    inputs.push({
      state: {
        ...base,
        seq: newest.seq + 2,
        status: 'aborted',
        status_timestamps: { ...record.status_timestamps, aborted: at },
      },
      at,
      event: 'aborted',
      actor: null,
      detail: {
        previous_status: newest.status,
        reason: `run ${refusal.run_id} of its workflow was refused: ${refusal.problem}`,
      },
    });
  }
  await createTransitionRecorder(deps)(inputs, recorder);
}
