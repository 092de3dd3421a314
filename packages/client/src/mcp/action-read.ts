import type { Action } from '../cli/types';
import { actionText } from './render';
import type { ToolContext } from './tool';

const ACTION_PATH = '/v1/external-actions/{action_id}' as const;

/** The few fields of an action a program reads beside the text. */
export const actionFields = (action: Action): Record<string, unknown> => ({
  action_id: action.action_id,
  status: action.status,
  plan_digest: action.dry_run?.plan_digest ?? null,
  approvals: action.approvals.length,
  expires_at: action.expires_at,
  temporal_ui: action.links.temporal_ui,
});

export async function readAction(context: ToolContext, id: string): Promise<Action> {
  const { data } = await context.client.GET(ACTION_PATH, {
    params: { path: { action_id: id } },
    signal: context.signal,
  });
  return data!.payload;
}

/** The action as the tool's answer; `isError` when it is a refusal the agent must not pass over. */
export async function answerOf(context: ToolContext, action: Action, isError = false) {
  return {
    text: await actionText(context.names, action),
    structured: actionFields(action),
    isError,
  };
}
