/**
 * A workflow run that ended from outside our code: an operator terminated or cancelled it
 * (`temporal workflow terminate|cancel`, the Web UI), it timed out, or it failed; or an
 * action's run that completed while its ledger had not ended the action. Read from
 * Temporal's history (`src/temporal/closures.ts`); every api process reads the same one, so
 * what is recorded from it is the same wherever it is recorded.
 */
export interface WorkflowClosure {
  workflow_id: string;
  run_id: string;
  workflow_type: string;
  status: 'terminated' | 'cancelled' | 'timed_out' | 'failed' | 'completed';
  /** The close event's time: the time of what it records. */
  closed_at: string;
  /** `--reason` of a termination, the cause of a cancellation, a failure's message. */
  reason: string | null;
  /** Who did it, as Temporal recorded the caller (`temporal-cli:…`, a worker's identity). */
  identity: string | null;
}

/** One line naming what happened in Temporal, for a record's `error` and the ledger. */
export function closureText(closure: WorkflowClosure): string {
  const what = closure.status.replace('_', ' ');
  const by = closure.identity ? ` by ${closure.identity}` : '';
  const why = closure.reason ? `: ${closure.reason}` : '';
  return `workflow run ${closure.run_id} was ${what} in Temporal${by}${why}`;
}

/** What `closure` is recorded in the ledger and a notification as. */
export const closureDetail = (closure: WorkflowClosure) => ({
  temporal: {
    status: closure.status,
    reason: closure.reason,
    identity: closure.identity,
    workflow_id: closure.workflow_id,
    run_id: closure.run_id,
    closed_at: closure.closed_at,
  },
});

/**
 * What reflecting a closure did: `recorded` a terminal status, or why it did nothing
 * (`off_checkpoint`: the action's ledger contradicts its signed checkpoints, so nothing is
 * written onto it; `ledger-checkpoint-check.ts`).
 */
export type ClosureOutcome =
  'recorded' | 'already_final' | 'unknown_record' | 'not_ours' | 'off_checkpoint';
