import { ApplicationFailure } from '@temporalio/workflow';
import {
  ACTION_ERRORS,
  mayDecideUnder,
  type ActionDecisionInput,
  type ActionState,
  type ActionStatus,
} from './shared';

/**
 * The checks an action's update validators run before a decision is taken: the status it
 * needs, who may decide under the rule in force, and the plan the decider saw. They throw
 * the typed failures the api maps to HTTP (`ACTION_ERRORS`).
 */

/** Refuses when the action is not in `expected` (409 `invalid_state` with the status). */
export function requireStatus(state: ActionState, expected: ActionStatus, verb: string): void {
  if (state.status !== expected) {
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.invalidState,
      message: `cannot ${verb} an action that is ${state.status}`,
      details: [state.status],
    });
  }
}

/** Refuses a decider the action does not admit: the proposer, one outside the rule, a stale plan. */
export function validateDecider(state: ActionState, d: ActionDecisionInput, verb: string): void {
  requireStatus(state, 'awaiting_approval', verb);
  if (d.principal_id === state.proposed_by.principal_id) {
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.forbidden,
      message: `the proposer cannot ${verb} their own action`,
    });
  }
  const rule = state.rule;
  if (rule && !mayDecideUnder(rule, d)) {
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.forbidden,
      message: `principal ${d.principal_id} may not ${verb} under approval rule "${rule.name}" (${rule.rule_id} v${rule.version})`,
      details: [state.status, { rule_id: rule.rule_id }],
    });
  }
  if (rule?.require_reason && !d.reason) {
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.reasonRequired,
      message: `approval rule "${rule.name}" (${rule.rule_id}) requires a reason to ${verb}`,
      details: [state.status, { rule_id: rule.rule_id }],
    });
  }
  if (d.plan_digest && d.plan_digest !== state.dry_run?.plan_digest) {
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.conflict,
      message: `plan_digest ${d.plan_digest} is not the current plan (${state.dry_run?.plan_digest})`,
      details: [state.status],
    });
  }
}

/** Refuses a second approval by the same principal. */
export function refuseRepeatApproval(state: ActionState, d: ActionDecisionInput): void {
  if (state.approvals.some((a) => a.principal_id === d.principal_id)) {
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.conflict,
      message: `principal ${d.principal_id} has already approved this action`,
      details: [state.status],
    });
  }
}

/** Refuses an execute before the rule's wait is over. */
export function refuseEarlyExecute(state: ActionState): void {
  requireStatus(state, 'approved', 'execute');
  if (state.executable_at && Date.now() < Date.parse(state.executable_at)) {
    throw ApplicationFailure.create({
      type: ACTION_ERRORS.invalidState,
      message: `approval rule "${state.rule?.name}" makes execution wait until ${state.executable_at}`,
      details: [state.status],
    });
  }
}
