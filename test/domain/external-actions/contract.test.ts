import { toContract } from '../../../src/domain/external-actions/contract';
import type { ExternalActionRequest } from '../../../src/domain/external-actions/schemas';
import { Invalid } from '../../../src/lib/errors';

const issuesOf = (body: ExternalActionRequest) => {
  try {
    toContract(body);
  } catch (error) {
    if (error instanceof Invalid) return error.issues.map((issue) => issue.loc.join('.'));
    throw error;
  }
  return [];
};

describe('toContract (what the schema cannot check, and the bounds defaults)', () => {
  it('fills in the bounds defaults: a day to approve, one approval, no fields', () => {
    const contract = toContract({
      action_kind: 'notify',
      target: {},
      parameters: { message: 'deploy done' },
      bounds: {},
    });
    expect(contract.bounds).toEqual({
      allowed_fields: [],
      expires_in_seconds: 86_400,
      required_approvals: 1,
    });
    expect(contract).toMatchObject({ shared_context_id: null, reason: null });
  });

  it('names what each kind needs, at its place in the body', () => {
    expect(
      issuesOf({ action_kind: 'world.update_object', target: {}, parameters: {}, bounds: {} }),
    ).toEqual(['body.target.world_object_ref', 'body.parameters.patch']);
    expect(
      issuesOf({ action_kind: 'webhook.post', target: {}, parameters: {}, bounds: {} }),
    ).toEqual(['body.target.url']);
    expect(
      issuesOf({
        action_kind: 'notify',
        target: {},
        parameters: { message: '', channel: 'Bad Channel' },
        bounds: {},
      }),
    ).toEqual(['body.parameters.message', 'body.parameters.channel']);
  });

  it('keeps the bounds asked for', () => {
    const contract = toContract({
      action_kind: 'world.update_object',
      target: { world_object_ref: 'obj_01JABCDEFGHJKMNPQRSTVWXYZ0' },
      parameters: { patch: { status: 'final' } },
      bounds: { allowed_fields: ['status'], expires_in_seconds: 120, required_approvals: 3 },
      reason: 'ship it',
    });
    expect(contract.bounds).toEqual({
      allowed_fields: ['status'],
      expires_in_seconds: 120,
      required_approvals: 3,
    });
    expect(contract.reason).toBe('ship it');
  });
});
