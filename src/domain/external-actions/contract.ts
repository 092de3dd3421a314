import { MAX_NOTIFY_MESSAGE_LENGTH, type ExternalActionRequest } from './schemas';
import { Invalid, type ValidationIssue } from '../../lib/errors';
import type { ActionContract } from '../../workflows/external-action.contract';

const DEFAULT_EXPIRES_IN_SECONDS = 86_400;
const DEFAULT_REQUIRED_APPROVALS = 1;
const MAX_MESSAGE_LENGTH = MAX_NOTIFY_MESSAGE_LENGTH;

/**
 * Checks what the schema cannot (each kind's required target and parameters) and fills in
 * the bounds defaults. A malformed contract is 422; a well-formed one that policy refuses
 * still gets a plan, with `ok: false` and the reasons.
 */
export function toContract(body: ExternalActionRequest): ActionContract {
  const issues: ValidationIssue[] = [];
  const require = (ok: boolean, loc: (string | number)[], msg: string): void => {
    if (!ok) issues.push({ loc: ['body', ...loc], msg, type: 'value_error' });
  };
  switch (body.action_kind) {
    case 'world.update_object': {
      require(Boolean(body.target.world_object_ref), [
        'target',
        'world_object_ref',
      ], 'world.update_object needs target.world_object_ref');
      const patch = body.parameters['patch'];
      require(typeof patch === 'object' &&
        patch !== null &&
        !Array.isArray(patch) &&
        Object.keys(patch).length > 0, [
        'parameters',
        'patch',
      ], 'world.update_object needs parameters.patch, an object of attribute values');
      break;
    }
    case 'webhook.post':
      require(Boolean(body.target.url), ['target', 'url'], 'webhook.post needs target.url');
      break;
    case 'notify': {
      const message = body.parameters['message'];
      require(typeof message === 'string' &&
        message.length > 0 &&
        message.length <= MAX_MESSAGE_LENGTH, [
        'parameters',
        'message',
      ], `notify needs parameters.message, a string of 1..${MAX_MESSAGE_LENGTH} characters`);
      const channel = body.parameters['channel'];
      require(channel === undefined ||
        (typeof channel === 'string' && /^[a-z0-9_.-]{1,64}$/.test(channel)), [
        'parameters',
        'channel',
      ], 'parameters.channel must match ^[a-z0-9_.-]{1,64}$');
      break;
    }
  }
  if (issues.length > 0) throw new Invalid(issues);
  return {
    action_kind: body.action_kind,
    target: body.target,
    parameters: body.parameters,
    bounds: {
      allowed_fields: body.bounds.allowed_fields ?? [],
      expires_in_seconds: body.bounds.expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS,
      required_approvals: body.bounds.required_approvals ?? DEFAULT_REQUIRED_APPROVALS,
    },
    shared_context_id: body.shared_context_id ?? null,
    reason: body.reason ?? null,
  };
}
