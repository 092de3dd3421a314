import type { ActionRecord } from '../../store/external-actions.repo';
import type { ActionState } from '../../workflows/external-action.contract';

/**
 * The stored record of an action's workflow state, field by field: the store declares its
 * record on its own (src/store/external-action-record.ts), so this is the one place the two
 * shapes meet, and a field added to either is a compile error here until it is mapped.
 */
export const actionRecordOf = (state: ActionState): ActionRecord => ({
  _id: state.action_id,
  action_kind: state.action_kind,
  target: state.target,
  parameters: state.parameters,
  bounds: state.bounds,
  shared_context_id: state.shared_context_id,
  reason: state.reason,
  status: state.status,
  status_timestamps: state.status_timestamps,
  proposed_by: state.proposed_by,
  approvals: state.approvals,
  decisions: state.decisions,
  dry_run: state.dry_run,
  execution: state.execution,
  expires_at: state.expires_at,
  workflow_id: state.workflow_id,
  run_id: state.run_id,
  ...(state.first_run_id !== undefined ? { first_run_id: state.first_run_id } : {}),
  created_at: state.created_at,
  updated_at: state.updated_at,
  seq: state.seq,
  ledger_head: state.ledger_head,
  ...(state.refused_decisions !== undefined ? { refused_decisions: state.refused_decisions } : {}),
  ...(state.rule !== undefined ? { rule: state.rule } : {}),
  ...(state.executable_at !== undefined ? { executable_at: state.executable_at } : {}),
  proposal: state.proposal,
});
