import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import stringify from 'safe-stable-stringify';
import { EXECUTION_FAILURES, type ActionState } from '../workflows/external-action.contract';

/**
 * The effect of a `webhook.post` action: one signed POST, with the action id as its
 * idempotency key. A 4xx other than 408/429 is final; anything else is retried.
 */
export async function postWebhook(
  deps: { webhookSigningSecret: string; webhookTimeoutMs: number },
  state: ActionState,
): Promise<Record<string, unknown>> {
  const url = state.target.url!;
  const text = stringify(state.parameters['body'] ?? state.parameters) ?? 'null';
  const signature = createHmac('sha256', deps.webhookSigningSecret).update(text).digest('hex');
  const attempt = Context.current().info.attempt;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Idempotency-Key': state.action_id,
        'X-Governed-Action-Id': state.action_id,
        'X-Governed-Signature': `sha256=${signature}`,
      },
      body: text,
      signal: AbortSignal.timeout(deps.webhookTimeoutMs),
    });
  } catch (error) {
    throw new Error(
      `webhook POST ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (response.ok) return { status: response.status, attempt, url };
  if (
    response.status >= 400 &&
    response.status < 500 &&
    response.status !== 408 &&
    response.status !== 429
  ) {
    throw ApplicationFailure.nonRetryable(
      `webhook answered ${response.status}`,
      EXECUTION_FAILURES.webhookRejected,
    );
  }
  throw new Error(`webhook answered ${response.status}; will retry`);
}
