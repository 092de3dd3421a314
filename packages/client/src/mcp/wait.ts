import { sleep } from '../retrying-fetch';
import { named } from '../cli/names';
import type { Action } from '../cli/types';
import { answerOf, readAction } from './action-read';
import { ToolRefusal } from './refusals';
import { textOf, type JsonSchema, type ToolAnswer, type ToolContext } from './tool';

/** Default bound of one wait, in seconds: under the 60 s hosts commonly give a tool call. */
export const DEFAULT_WAIT_S = 50;
/** Longest wait one call may ask for; an agent waits longer by calling again. */
export const MAX_WAIT_S = 600;
/** Longest `execute_action` follows an action that is executing before answering. */
const EXECUTE_FOLLOW_MS = 30_000;

/** The wait tool's own input beside the action id (not an operation of the service). */
export const WAIT_INPUT: Record<string, JsonSchema> = {
  timeout_seconds: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_WAIT_S,
    default: DEFAULT_WAIT_S,
    description: `Longest to wait in this call, in seconds (1..${MAX_WAIT_S}, default ${DEFAULT_WAIT_S}); if nobody has decided by then, call again.`,
  },
};

/** Statuses in which people have yet to decide. */
const UNDECIDED = new Set(['proposed', 'awaiting_approval']);

function waitSeconds(input: Record<string, unknown>): number {
  const given = input['timeout_seconds'];
  if (given === undefined) return DEFAULT_WAIT_S;
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 1 || given > MAX_WAIT_S) {
    throw new ToolRefusal(
      `timeout_seconds must be a whole number of seconds from 1 to ${MAX_WAIT_S}, not ${JSON.stringify(given)}. Nothing was done.`,
    );
  }
  return given;
}

/**
 * Reads the action until people have decided or the bound passes, reporting each reading
 * as progress (seconds waited of the bound, and the approvals so far). The wait is the
 * caller's only: cancelling it leaves the action waiting in the service.
 */
export async function waitForDecision(
  input: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolAnswer> {
  const bound = waitSeconds(input);
  const id = textOf(input, 'action_id');
  const started = Date.now();
  const deadline = started + bound * 1000;
  let wait = context.pollMs.first;
  let action = await readAction(context, id);
  // Progress must grow with each notification (the protocol says so): seconds waited, to
  // the tenth, and a reading within the same tenth is not reported again.
  let reported = -1;
  while (UNDECIDED.has(action.status) && Date.now() < deadline) {
    const waited = Math.min(bound, Math.round((Date.now() - started) / 100) / 10);
    if (waited > reported) {
      reported = waited;
      const so = `${action.status}: ${action.approvals.length} approval(s) so far`;
      await context.progress(waited, bound, so);
    }
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())), context.signal);
    wait = Math.min(wait * 1.5, context.pollMs.max);
    action = await readAction(context, id);
  }
  return decidedAnswer(context, action, bound);
}

/** The decision as the agent reads it: the outcome first, then the action. */
async function decidedAnswer(
  context: ToolContext,
  action: Action,
  bound: number,
): Promise<ToolAnswer> {
  const answer = await answerOf(context, action);
  const names = await context.names.of(action);
  const rejections = action.decisions.filter((d) => d.decision === 'reject');
  const why = (d: Action['decisions'][number]) =>
    `${named(names, d.principal_id)}${d.reason ? `: ${JSON.stringify(d.reason)}` : ' (no reason given)'}`;
  let outcome: string;
  if (UNDECIDED.has(action.status)) {
    outcome = `Not decided yet after ${bound} s: ${action.approvals.length} approval(s) so far. Call wait_for_decision again; a person decides in the console or with \`gr actions approve ${action.action_id}\`.`;
  } else if (action.status === 'rejected') {
    outcome = `REJECTED by ${rejections.map(why).join('; ') || 'a person'}. Do not execute it; propose something else if the reasons allow.`;
  } else if (action.status === 'expired') {
    outcome = `EXPIRED: nobody decided within its window (${action.expires_at}). Nothing will be changed; propose it again if it is still needed.`;
  } else if (['approved', 'executing', 'executed'].includes(action.status)) {
    const approvals = action.approvals.map(why).join('; ');
    outcome = `APPROVED by ${approvals || 'its rule'}.${action.status === 'approved' ? ' Call execute_action to carry it out.' : ''}`;
  } else {
    outcome = `Ended ${action.status}: nothing more will happen to it.`;
  }
  const decision = UNDECIDED.has(action.status) ? 'undecided' : action.status;
  return {
    text: `${outcome}\n\n${answer.text}`,
    structured: { ...answer.structured, decision },
  };
}

/**
 * The action after an execute: followed while it is executing (the effect is being
 * applied), up to a bound, so the answer says how it ended when it ends soon.
 */
export async function settle(context: ToolContext, first: Action): Promise<Action> {
  const deadline = Date.now() + EXECUTE_FOLLOW_MS;
  let action = first;
  let wait = context.pollMs.first;
  while (action.status === 'executing' && Date.now() < deadline) {
    await sleep(wait, context.signal);
    wait = Math.min(wait * 1.5, context.pollMs.max);
    action = await readAction(context, action.action_id);
  }
  return action;
}
