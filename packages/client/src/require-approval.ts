import type { GovernedClient } from './client';
import { sleep } from './retrying-fetch';
import type { paths } from './schema';

type ProposePost = paths['/v1/external-actions/propose']['post'];
/** What to propose: the action's kind, target, parameters, bounds and reason. */
export type ApprovalRequest = ProposePost['requestBody']['content']['application/json'];
/** An action as the service shows it. */
export type Action =
  paths['/v1/external-actions/{action_id}']['get']['responses'][200]['content']['application/json']['payload'];

export interface ApprovalOptions {
  /** Give up waiting after this long (the action goes on; it is in the error). Default 1 hour. */
  timeoutMs?: number;
  /** First wait between reads (default 500 ms); it grows by half each time, to `maxPollMs`. */
  pollMs?: number;
  maxPollMs?: number;
  /** Stops waiting (the action goes on in the service). */
  signal?: AbortSignal;
}

/** Waiting ran out before the action was decided; `action` is how it stood then. */
export class ApprovalTimeoutError extends Error {
  constructor(readonly action: Action) {
    super(`action ${action.action_id} still ${action.status} when the wait ran out`);
    this.name = 'ApprovalTimeoutError';
  }
}

/** Statuses after which nothing more happens to an action. */
export const FINAL_ACTION_STATUSES: ReadonlySet<string> = new Set([
  'executed',
  'failed',
  'rejected',
  'expired',
  'aborted',
  'dry_run_failed',
]);

/**
 * The human-in-the-loop step of an agent or a pipeline: proposes the action, waits until
 * people decide, executes it once approved (unless its rule executes it by itself), and
 * answers the action as it ended: `executed`, or `rejected`, `expired`, `aborted`,
 * `failed`, `dry_run_failed`. Reads back off from `pollMs` to `maxPollMs`.
 */
export async function requireApproval(
  client: GovernedClient,
  request: ApprovalRequest,
  options: ApprovalOptions = {},
): Promise<Action> {
  const deadline = Date.now() + (options.timeoutMs ?? 3_600_000);
  const { data: proposed } = await client.POST('/v1/external-actions/propose', { body: request });
  let action = proposed!.payload;
  let wait = options.pollMs ?? 500;
  let executeSent = false;
  while (!FINAL_ACTION_STATUSES.has(action.status)) {
    if (action.status === 'approved' && !executeSent) {
      executeSent = true;
      const { data } = await client.POST('/v1/external-actions/{action_id}/execute', {
        params: { path: { action_id: action.action_id } },
      });
      action = data!.payload;
      continue;
    }
    if (Date.now() >= deadline) throw new ApprovalTimeoutError(action);
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())), options.signal);
    wait = Math.min(wait * 1.5, options.maxPollMs ?? 5_000);
    const { data } = await client.GET('/v1/external-actions/{action_id}', {
      params: { path: { action_id: action.action_id } },
    });
    action = data!.payload;
  }
  return action;
}
