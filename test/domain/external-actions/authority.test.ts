import { randomBytes } from 'node:crypto';
import { createDecisionSigner } from '../../../src/auth/decision-signer';
import { createActionAuthority } from '../../../src/domain/external-actions/authority';
import type {
  ActionContract,
  ActionRule,
  ActionState,
} from '../../../src/workflows/external-action.contract';
import { signedDecision, signedInput, stateOf } from '../../helpers/signed-actions';

// The check the effect activity runs before it touches the world, and the proofs run over
// the ledger: with the accepted keys only, whatever the workflow's state claims.
const api = createDecisionSigner(randomBytes(32));
const foreign = createDecisionSigner(randomBytes(32));
const authority = createActionAuthority([api.publicKeyHex]);
const PLAN = `sha256:${'a'.repeat(64)}`;
const contract: ActionContract = {
  action_kind: 'notify',
  target: {},
  parameters: { message: 'hi' },
  bounds: { allowed_fields: [], expires_in_seconds: 3600, required_approvals: 2 },
  shared_context_id: null,
  reason: null,
};
const actionId = 'act_01AUTHORITYTEST0000000001';
const input = signedInput(api, { action_id: actionId, contract });
const approve = (principal: string, signer = api, digest: string | null = PLAN) =>
  signedDecision(signer, actionId, 'approve', principal, digest);
const execute = signedDecision(api, actionId, 'execute', 'prn_c', null);
const executing = (fields: Partial<ActionState>) =>
  stateOf(input, { status: 'executing', ...fields });

describe('the authority over an action', () => {
  it('authorises execution with the signed proposal, its approvals and an execute', () => {
    const state = executing({ decisions: [approve('prn_b'), approve('prn_c'), execute] });
    expect(authority.executionProblem(state, PLAN)).toBeNull();
    expect(authority.stateProblem(state)).toBeNull();
  });

  it.each<[string, Partial<ActionState>, RegExp]>([
    ['no approvals', { decisions: [execute] }, /0 signed approval\(s\) of 2/],
    ['one approval of two', { decisions: [approve('prn_b'), execute] }, /1 signed approval/],
    [
      'the same principal twice',
      { decisions: [approve('prn_b'), approve('prn_b'), execute] },
      /1 signed approval/,
    ],
    [
      'the proposer approving',
      { decisions: [approve('prn_proposer'), approve('prn_b'), execute] },
      /proposer/,
    ],
    [
      'an approval of another plan',
      { decisions: [approve('prn_b'), approve('prn_c', api, `sha256:${'b'.repeat(64)}`), execute] },
      /names plan/,
    ],
    [
      'an approval with no plan',
      { decisions: [approve('prn_b'), approve('prn_c', api, null), execute] },
      /names plan null/,
    ],
    [
      'an approval signed by a foreign key',
      { decisions: [approve('prn_b'), approve('prn_c', foreign), execute] },
      /does not accept/,
    ],
    [
      'an unsigned approval',
      {
        decisions: [
          approve('prn_b'),
          { ...approve('prn_c'), signature: undefined, decision_id: undefined },
          execute,
        ],
      },
      /not signed by the api/,
    ],
    [
      'an approval edited after signing',
      { decisions: [approve('prn_b'), { ...approve('prn_c'), principal_id: 'prn_d' }, execute] },
      /signature does not match/,
    ],
    [
      'an approval of another action',
      {
        decisions: [
          approve('prn_b'),
          signedDecision(api, 'act_01OTHERACTION000000000001', 'approve', 'prn_c', PLAN),
          execute,
        ],
      },
      /signature does not match/,
    ],
    [
      'no execute decision',
      { decisions: [approve('prn_b'), approve('prn_c')] },
      /no signed execute/,
    ],
    [
      'a rejection among the decisions',
      {
        decisions: [
          approve('prn_b'),
          approve('prn_c'),
          signedDecision(api, actionId, 'reject', 'prn_d', PLAN),
          execute,
        ],
      },
      /rejected/,
    ],
  ])('refuses execution with %s', (_what, fields, problem) => {
    expect(authority.executionProblem(executing(fields), PLAN)).toMatch(problem);
  });

  it('refuses a state whose proposal was edited, unsigned or signed by a foreign key', () => {
    const decisions = [approve('prn_b'), approve('prn_c'), execute];
    const edited = executing({ decisions });
    edited.proposal = {
      ...edited.proposal,
      contract: { ...contract, parameters: { message: 'other' } },
    };
    expect(authority.executionProblem(edited, PLAN)).toMatch(/signature does not match/);
    const unsigned = executing({ decisions });
    unsigned.proposal = { ...unsigned.proposal, signature: '' };
    expect(authority.executionProblem(unsigned, PLAN)).toMatch(/not signed/);
    const foreignInput = signedInput(foreign, { action_id: actionId, contract });
    expect(authority.executionProblem(stateOf(foreignInput, { decisions }), PLAN)).toMatch(
      /does not accept/,
    );
    // A state of another action cannot borrow this one's proposal.
    expect(authority.stateProblem({ ...executing({ decisions }), action_id: 'act_x' })).toMatch(
      /proposal is for/,
    );
  });

  it('holds the rule the api signed: its approvers, its wait, its auto-execute', () => {
    const rule: ActionRule = {
      rule_id: 'rul_1',
      name: 'ops only',
      version: 3,
      required_approvals: 1,
      approver_roles: [],
      approver_principals: ['prn_ops'],
      require_reason: false,
      wait_seconds: 3600,
      auto_execute: true,
    };
    const ruled = signedInput(api, {
      action_id: actionId,
      contract: { ...contract, bounds: { ...contract.bounds, required_approvals: 1 } },
      rule,
    });
    const byOps = approve('prn_ops');
    expect(
      authority.executionProblem(stateOf(ruled, { decisions: [approve('prn_b')] }), PLAN),
    ).toMatch(/may not approve under rule rul_1/);
    expect(authority.executionProblem(stateOf(ruled, { decisions: [byOps] }), PLAN)).toMatch(
      /makes execution wait/,
    );
    const longAgo = new Date(Date.now() - 7_200_000).toISOString();
    const early = { ...approve('prn_ops'), signed_at: longAgo };
    // Back-dating the signature breaks it: the wait cannot be skipped by editing a date.
    expect(authority.executionProblem(stateOf(ruled, { decisions: [early] }), PLAN)).toMatch(
      /signature does not match/,
    );
  });

  it('a status past approval needs the approvals in the projection too', () => {
    expect(authority.stateProblem(stateOf(input, { status: 'approved' }))).toMatch(
      /0 signed approval/,
    );
    expect(authority.stateProblem(stateOf(input, { status: 'awaiting_approval' }))).toBeNull();
  });
});
