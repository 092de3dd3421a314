import { GovernedApiError, ServiceUnreachableError } from '../errors';

/**
 * A tool's refusal as the agent reads it: what happened and what a person must do, in
 * words. Never a stack and never a bare status: the service's own message, its code and
 * request id (so a person can find it in the request ledger), and the way forward.
 */
export class ToolRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolRefusal';
  }
}

/** A failure of a tool call as the text of its tool error. */
export function refusalText(error: unknown): string {
  if (error instanceof ToolRefusal) return error.message;
  if (error instanceof ServiceUnreachableError) {
    return `The Governed Runtime service could not be reached (${error.message}). Nothing was done. A person must check that the service is running and that GR_URL names it.`;
  }
  if (error instanceof GovernedApiError) return apiRefusal(error);
  if ((error as { name?: unknown } | null)?.name === 'AbortError') {
    return 'The call was cancelled before it finished; the action, if any, goes on in the service.';
  }
  const message = error instanceof Error ? error.message : String(error);
  return `The tool failed: ${message.split('\n')[0]}. Nothing is known to have changed; get_action shows an action's state.`;
}

function apiRefusal(error: GovernedApiError): string {
  const said = `The service refused: ${error.message}${error.requestId ? ` (${error.code}, request ${error.requestId})` : ` (${error.code})`}.`;
  switch (error.status) {
    case 401:
      return `${said} This agent's API key is missing, revoked or expired. A person must give it a valid key (GR_API_KEY or the gr profile; X-API-Key over HTTP).`;
    case 403:
      return `${said} ${forbiddenHint(error)}`;
    case 404:
      return `${said} No such record is visible to this key: check the id (actions are act_…, world objects obj_…).`;
    case 409:
      return `${said} The action's state does not allow this now; get_action shows its state and what may happen next.`;
    case 422:
      return `${said} The input was not accepted, and nothing was stored:\n${issueLines(error.body?.detail)}`;
    case 429: {
      const retry = error.body?.error['retry_after_seconds'];
      return `${said} This key has used up its ${error.code === 'quota_exceeded' ? 'daily quota' : 'rate limit'}${typeof retry === 'number' ? `; try again in ${retry} s` : ''}. A person (an operator) can raise the key's limits.`;
    }
    case 503:
      return `${said} A backend of the service is not answering; try again shortly. Nothing was done.`;
    default:
      return `${said} A person may need to look at the service's logs for this request.`;
  }
}

/** A 403: the route family the key does not reach, or a rule's own demand. */
function forbiddenHint(error: GovernedApiError): string {
  const family = error.body?.error['family'];
  if (typeof family === 'string') {
    return `This key's entitlement class or access layer does not reach the ${family} routes. A person (an operator) must issue this agent a key that does (docs/governance.md).`;
  }
  if (/signature/i.test(error.message)) {
    return "The rule wants the approver's own signature: that is a person's decision, made with `gr actions approve` and their approver key or with a passkey in the console.";
  }
  return 'A person with the right role must take this step (the console or gr).';
}

/** A 422's problems, one a line: `body.parameters.patch: Field required`. */
function issueLines(detail: unknown): string {
  if (!Array.isArray(detail)) return `  ${typeof detail === 'string' ? detail : 'invalid input'}`;
  return detail
    .map((issue: { loc?: unknown[]; msg?: string }) => {
      const where = (issue.loc ?? []).filter((part) => part !== 'body').join('.');
      return `  ${where || 'input'}: ${issue.msg ?? JSON.stringify(issue)}`;
    })
    .join('\n');
}
