import {
  ACTION_ERRORS,
  mayDecideUnder,
  type ActionDecision,
  type ActionDecisionInput,
  type ActionState,
  type ActionStatus,
} from './external-action.contract';

/**
 * The checks an action's update validators run before a decision is taken: the status it
 * needs, who may decide under the rule in force, and the plan the decider saw. Pure: each
 * answers the typed failure the api maps to HTTP (`ACTION_ERRORS`), or null; the workflow's
 * decision gate throws it.
 */

/** Why a decision is refused: the type, message and details of its failed update. */
export interface DecisionRefusal {
  type: (typeof ACTION_ERRORS)[keyof typeof ACTION_ERRORS];
  message: string;
  details?: unknown[];
}

/** Refuses when the action is not in `expected` (409 `invalid_state` with the status). */
export function statusRefusal(
  status: ActionStatus,
  expected: ActionStatus,
  verb: string,
): DecisionRefusal | null {
  if (status === expected) return null;
  return {
    type: ACTION_ERRORS.invalidState,
    message: `cannot ${verb} an action that is ${status}`,
    details: [status],
  };
}

/** Refuses a decider the action does not admit: the proposer, one outside the rule, a stale plan. */
function deciderRefusal(
  state: ActionState,
  d: ActionDecisionInput,
  verb: string,
): DecisionRefusal | null {
  const wrongStatus = statusRefusal(state.status, 'awaiting_approval', verb);
  if (wrongStatus) return wrongStatus;
  if (d.principal_id === state.proposed_by.principal_id) {
    return {
      type: ACTION_ERRORS.forbidden,
      message: `the proposer cannot ${verb} their own action`,
    };
  }
  const rule = state.rule;
  if (rule && !mayDecideUnder(rule, d)) {
    return {
      type: ACTION_ERRORS.forbidden,
      message: `principal ${d.principal_id} may not ${verb} under approval rule "${rule.name}" (${rule.rule_id} v${rule.version})`,
      details: [state.status, { rule_id: rule.rule_id }],
    };
  }
  if (rule?.require_approver_signature && !d.approver_assertion) {
    return {
      type: ACTION_ERRORS.forbidden,
      message: approverSignatureRequired(rule, verb),
      details: [state.status, { rule_id: rule.rule_id }],
    };
  }
  if (rule?.require_reason && !d.reason) {
    return {
      type: ACTION_ERRORS.reasonRequired,
      message: `approval rule "${rule.name}" (${rule.rule_id}) requires a reason to ${verb}`,
      details: [state.status, { rule_id: rule.rule_id }],
    };
  }
  if (d.plan_digest && d.plan_digest !== state.dry_run?.plan_digest) {
    return {
      type: ACTION_ERRORS.conflict,
      message: `plan_digest ${d.plan_digest} is not the current plan (${state.dry_run?.plan_digest})`,
      details: [state.status],
    };
  }
  return null;
}

/** What a decision under a rule that wants the approver's own signature is told without one. */
export const approverSignatureRequired = (
  rule: { name: string; rule_id: string; version: number },
  verb: string,
): string =>
  `approval rule "${rule.name}" (${rule.rule_id} v${rule.version}) requires the approver's own signature to ${verb}: register a passkey or an Ed25519 key (POST /v1/principals/me/keys/register), ask for a challenge (POST /v1/external-actions/{action_id}/challenge) and send the signed assertion as approver_assertion`;

/** Refuses a second approval by the same principal. */
function repeatApprovalRefusal(state: ActionState, d: ActionDecisionInput): DecisionRefusal | null {
  if (!state.approvals.some((a) => a.principal_id === d.principal_id)) return null;
  return {
    type: ACTION_ERRORS.conflict,
    message: `principal ${d.principal_id} has already approved this action`,
    details: [state.status],
  };
}

/** Refuses an execute before the action is approved or before the rule's wait is over. */
function earlyExecuteRefusal(state: ActionState, nowMs: number): DecisionRefusal | null {
  const wrongStatus = statusRefusal(state.status, 'approved', 'execute');
  if (wrongStatus) return wrongStatus;
  if (state.executable_at && nowMs < Date.parse(state.executable_at)) {
    return {
      type: ACTION_ERRORS.invalidState,
      message: `approval rule "${state.rule?.name}" makes execution wait until ${state.executable_at}`,
      details: [state.status],
    };
  }
  return null;
}

/**
 * Why the action refuses this decision now (`nowMs`: the workflow's clock), or null when it
 * takes it. Its signature is the decision gate's to check, before this.
 */
export function decisionRefusal(
  state: ActionState,
  kind: ActionDecision['decision'],
  d: ActionDecisionInput,
  nowMs: number,
): DecisionRefusal | null {
  switch (kind) {
    case 'approve':
      return deciderRefusal(state, d, kind) ?? repeatApprovalRefusal(state, d);
    case 'reject':
      return deciderRefusal(state, d, kind);
    case 'execute':
      return earlyExecuteRefusal(state, nowMs);
  }
}
