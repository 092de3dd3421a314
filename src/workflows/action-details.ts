import { clock, code, mdText } from '../lib/workflow-text';
import { actionTargetText, who } from './action-text';
import type { ActionState, DisplayNames } from './external-action.contract';

/**
 * What an action's workflow tells a person while it runs: its current details (set at
 * every transition: stage, approvals so far and by whom, the window, what it waits for
 * next) and the one-line summaries of the activities and timers it schedules, so its
 * history reads as a story. Computed in the workflow from its own state: no reads.
 */

/** Names the workflow knows: the starter's, plus each decider's as their decision brought it. */
export interface ActionNames extends DisplayNames {
  principals: Record<string, string>;
}

const nameOf = (names: ActionNames, principalId: string): string =>
  names.principals[principalId] ?? principalId;

/** `Ben, Cy` or `none yet`. */
const approversOf = (state: ActionState, names: ActionNames): string =>
  state.approvals.length
    ? state.approvals.map((a) => who(names.principals[a.principal_id], a.principal_id)).join(', ')
    : 'none yet';

/** Who may still approve, from the rule in force. */
function eligibleText(state: ActionState, names: ActionNames): string {
  const rule = state.rule;
  const others = `anyone but ${mdText(nameOf(names, state.proposed_by.principal_id))}`;
  if (!rule || (rule.approver_roles.length === 0 && rule.approver_principals.length === 0)) {
    return others;
  }
  const admitted = [
    ...rule.approver_roles.map((role) => `role ${code(role)}`),
    ...rule.approver_principals.map((id) => code(id)),
  ];
  return `${admitted.join(' or ')} (rule "${mdText(rule.name)}"), not the proposer`;
}

/** What the action waits for next, in words. */
export function nextStepOf(state: ActionState, names: ActionNames): string {
  const remaining = state.bounds.required_approvals - state.approvals.length;
  switch (state.status) {
    case 'proposed':
      return 'its dry run (the plan)';
    case 'awaiting_approval':
      return `${remaining} more approval${remaining === 1 ? '' : 's'} from ${eligibleText(state, names)}, before ${clock(state.expires_at)}`;
    case 'approved': {
      const auto = Boolean(state.rule?.auto_execute);
      const after =
        state.executable_at && Date.parse(state.executable_at) > Date.now()
          ? `the rule's wait to end at ${clock(state.executable_at)}, then `
          : '';
      return `${after}${auto ? 'executing by itself (auto_execute)' : `a call to execute (POST /v1/external-actions/${state.action_id}/execute)`}, before ${clock(state.expires_at)}`;
    }
    case 'executing':
      return `its effect on ${mdText(actionTargetText(state, names))}`;
    default:
      return `nothing: it ended ${state.status}${state.execution?.reason ? ` (${mdText(state.execution.reason)})` : ''}`;
  }
}

/**
 * The current details (Markdown): `**Stage:** awaiting_approval`, `**Approvals:** 1 of 2 (…)`,
 * the window, the plan digest and what comes next. The inspection test reads these lines.
 */
export function actionCurrentDetails(state: ActionState, names: ActionNames): string {
  // `1 of 2`, not `1/2`: the Web UI's Markdown would typeset that as a fraction.
  const lines = [
    `**Stage:** ${state.status}`,
    `**Next:** ${nextStepOf(state, names)}`,
    `**Approvals:** ${state.approvals.length} of ${state.bounds.required_approvals} (${approversOf(state, names)})`,
    `**Window ends:** ${state.expires_at}`,
    ...(state.executable_at ? [`**Executable at:** ${state.executable_at}`] : []),
    ...(state.dry_run ? [`**Plan:** ${code(state.dry_run.plan_digest)}`] : []),
  ];
  return lines.map((line) => `- ${line}`).join('\n');
}

/** The summary of the activity that records one transition: `record approval by Ada (2/2)`. */
export function recordSummary(
  event: string,
  actorId: string | null,
  state: ActionState,
  names: ActionNames,
): string {
  const by = actorId ? ` by ${nameOf(names, actorId)}` : '';
  const count = `${state.approvals.length}/${state.bounds.required_approvals}`;
  switch (event) {
    case 'approval_recorded':
      return `record approval${by} (${count})`;
    case 'approved':
      return `record approval${by} (${count}): approved`;
    case 'decision_refused':
      return 'record a refused decision (bad or missing signature)';
    default:
      return `record ${event.replace(/_/g, ' ')}${by}`;
  }
}

/** The one-line summaries of the activities and timers the action's workflow schedules. */
export const actionStepSummary = {
  checkProposal: (state: ActionState, target: string) =>
    `check the api's signature on the proposal, dry-run ${state.action_kind} → ${target}`,
  approvalWait: (state: ActionState, expiresAtMs: number) =>
    `wait for ${state.bounds.required_approvals} approval(s) until the window ends at ${clock(expiresAtMs)}`,
  ruleWait: (executableAt: string) =>
    `wait for the approval rule's wait to end at ${clock(executableAt)}`,
  executeWait: (expiresAtMs: number) => `wait for a call to execute until ${clock(expiresAtMs)}`,
  checkAndRecordProposal: (state: ActionState, target: string) =>
    `check the api's signature on the proposal, dry-run ${state.action_kind} → ${target}, record the plan`,
  window: (state: ActionState, expiresAtMs: number) =>
    `wait for ${state.bounds.required_approvals} approval(s) and the execution until the window ends at ${clock(expiresAtMs)}`,
  apply: (state: ActionState, target: string) => `apply ${state.action_kind} → ${target}`,
  executeAndRecord: (state: ActionState, target: string) =>
    `record executing, apply ${state.action_kind} → ${target}, record the outcome`,
};

/** The current details of a start the worker refused: its proposal is not signed as it must be. */
export const refusedProposalDetails = (problem: string): string =>
  `**Refused:** ${problem}. Nothing was recorded and nothing done.`;

/** What the Web UI shows of a run the action's ledger refused (a reset's run it contradicts). */
export const refusedRunDetails = (problem: string, status: string): string =>
  `**Run refused by the ledger:** ${problem}. The action is **${status}**; this run recorded and did nothing more (see the action's ledger, \`run_refused\`).`;
