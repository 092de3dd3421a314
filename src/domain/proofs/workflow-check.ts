import type { ActionRecord } from '../../store/external-actions.repo';
import { FINAL_ACTION_STATUSES } from '../../workflows/external-action.contract';
import type { Violation } from './schemas';

/**
 * How long an action's workflow and its record may disagree before that is a violation: a
 * workflow closes right after its final record, the api reflects a run ended from Temporal
 * within a monitor tick, and Temporal's visibility (which says what runs) lags a little.
 */
export const WORKFLOW_GRACE_MS = 5 * 60_000;

/**
 * `actions_match_workflow` (docs/proofs.md): each action whose record has not changed for
 * `WORKFLOW_GRACE_MS` agrees with Temporal: its workflow runs while the action is open, and
 * runs no more once the action is final (a reset's run of an ended action, left running,
 * or a workflow ended without the api recording it, are violations). `running` is the set of
 * action ids whose workflow has a running execution.
 */
export function actionsMatchWorkflow(
  records: readonly Pick<ActionRecord, '_id' | 'status' | 'updated_at'>[],
  running: ReadonlySet<string>,
  now: Date,
): { checked: number; violations: Violation[] } {
  const violations: Violation[] = [];
  let checked = 0;
  for (const record of records) {
    if (now.getTime() - Date.parse(record.updated_at) < WORKFLOW_GRACE_MS) continue;
    checked += 1;
    const final = FINAL_ACTION_STATUSES.includes(record.status);
    const problem =
      final && running.has(record._id)
        ? `its workflow still runs, though the action is ${record.status}`
        : !final && !running.has(record._id)
          ? `its workflow runs no more, though the action is ${record.status}`
          : null;
    if (problem)
      violations.push({ collection: 'external_actions', record_id: record._id, problem });
  }
  return { checked, violations };
}
