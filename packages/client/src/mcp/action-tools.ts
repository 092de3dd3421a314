import { actionTable } from '../cli/action-view';
import { makeStyle } from '../cli/output';
import type { Action } from '../cli/types';
import { actionFields, answerOf, readAction } from './action-read';
import { inputOf, picked, textOf, type GovernedTool } from './tool';
import { settle, waitForDecision, WAIT_INPUT } from './wait';

/** Why a plan that failed its dry run failed, and what a person must do about it. */
function dryRunRefusal(action: Action): string {
  const plan = action.dry_run;
  const reasons = plan?.policy.reasons.join('; ') || 'no reason given';
  const policy = plan && !plan.policy.allowed ? 'Policy denied it' : 'Its dry run failed';
  return `${policy}: ${reasons}. Action ${action.action_id} ended dry_run_failed; nothing will be changed. To go on, propose a change the policy allows (within bounds.allowed_fields, an allow-listed URL), or ask a person (an operator) to change the policy or the approval rule.`;
}

const proposeAction: GovernedTool = {
  name: 'propose_action',
  title: 'Propose an action for people to approve',
  description:
    'Proposes a consequential change (world.update_object patches a world object within bounds.allowed_fields; webhook.post POSTs to an allow-listed URL; notify posts a message). The service dry-runs it at once and answers the plan: each change as `field: before → after`, the approval rule, who may approve, the window and the Temporal link. Nothing happens until people approve: then call wait_for_decision, and execute_action once approved.',
  inputSchema: inputOf('actions.propose'),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  async run(input, context) {
    const { data } = await context.client.POST('/v1/external-actions/propose', {
      body: input as never,
      signal: context.signal,
    });
    const action = data!.payload;
    if (action.status === 'dry_run_failed') {
      return { text: dryRunRefusal(action), structured: actionFields(action), isError: true };
    }
    return answerOf(context, action);
  },
};

const waitForDecisionTool: GovernedTool = {
  name: 'wait_for_decision',
  title: 'Wait for people to approve or reject',
  description:
    'Waits until people decide on an action, up to timeout_seconds (default 50, at most 600), reporting progress while it waits. Answers approved, rejected or expired with the decisions and their reasons; if nobody has decided yet it says so (call it again). Cancelling the call stops the wait only: the action goes on waiting in the service.',
  inputSchema: inputOf('actions.get', { own: WAIT_INPUT }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: (input, context) => waitForDecision(input, context),
};

const executeAction: GovernedTool = {
  name: 'execute_action',
  title: 'Carry out an approved action',
  description:
    'Executes an action people have approved (once its wait is over) and answers how it ended. A plan that no longer matches the world (plan drift), a rejection or an expiry is refused with what a person must do.',
  inputSchema: inputOf('actions.execute', { omit: ['approver_assertion'] }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  async run(input, context) {
    const id = textOf(input, 'action_id');
    const { data } = await context.client.POST('/v1/external-actions/{action_id}/execute', {
      params: { path: { action_id: id } },
      body: picked(input, ['reason', 'plan_digest']),
      signal: context.signal,
    });
    const action = await settle(context, data!.payload);
    if (action.status === 'failed') {
      const reason = action.execution?.reason ?? 'no reason recorded';
      const drift = /plan_drift/.test(reason)
        ? ' The target changed after the plan was approved (plan drift), so nothing was changed: propose the change again and have people approve the new plan.'
        : ' A person must look at the action (get_action, the console or `gr actions show`) before anything is tried again.';
      const answer = await answerOf(context, action, true);
      return { ...answer, text: `Execution of ${id} failed: ${reason}.${drift}\n\n${answer.text}` };
    }
    return answerOf(context, action);
  },
};

const getAction: GovernedTool = {
  name: 'get_action',
  title: 'Read an action',
  description:
    'One action as it stands: what it changes (`field: before → after`), its status, the rule and who may approve, the approvals and rejections with reasons, the window and the Temporal link.',
  inputSchema: inputOf('actions.get'),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    return answerOf(context, await readAction(context, textOf(input, 'action_id')));
  },
};

const listMyActions: GovernedTool = {
  name: 'list_my_actions',
  title: 'List the actions this agent proposed',
  description:
    "The actions this agent's key proposed, newest first, with status, approvals, window and the change; filter by status, action_kind or shared_context_id.",
  inputSchema: inputOf('actions.list', { omit: ['cursor', 'proposed_by', 'awaiting_me'] }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    const query = {
      ...picked(input, ['status', 'action_kind', 'shared_context_id', 'limit']),
      proposed_by: await context.me(),
    };
    const { data } = await context.client.GET('/v1/external-actions', {
      params: { query: query as never },
      signal: context.signal,
    });
    const { items, next_cursor } = data!.payload;
    const lines = items.length === 0 ? ['no actions'] : actionTable(items, makeStyle(false));
    if (next_cursor) lines.push(`(more: raise limit, up to 500)`);
    return {
      text: lines.join('\n'),
      structured: { actions: items.map((a) => ({ action_id: a.action_id, status: a.status })) },
    };
  },
};

/** The tools over actions. None approves or rejects: decisions are people's. */
export const ACTION_TOOLS: readonly GovernedTool[] = [
  proposeAction,
  waitForDecisionTool,
  executeAction,
  getAction,
  listMyActions,
];
