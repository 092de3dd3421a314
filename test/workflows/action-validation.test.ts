import { openAction, planned, decided } from '../../src/workflows/action-machine';
import { decisionRefusal, statusRefusal } from '../../src/workflows/action-validation';
import { ACTION_ERRORS, type ActionState } from '../../src/workflows/external-action.contract';
import {
  CREATED_AT,
  LATER,
  RUN,
  actionInput,
  decider,
  decision,
  needing,
  plan,
  rule,
} from '../helpers/action-fixtures';

// Every refusal an action's update validators answer, without a server: the status each
// decision needs, who may decide under the rule in force, the plan the decider saw.

const NOW = Date.parse('2026-11-25T09:10:00.000Z');
const awaiting = (input = actionInput()): ActionState =>
  planned(openAction(input, RUN), plan(), CREATED_AT).machine.state;
const approvedWith = (fields: Partial<ActionState> = {}): ActionState => ({
  ...decided(
    planned(openAction(actionInput(), RUN), plan(), CREATED_AT).machine,
    decision('approve', 'prn_ben'),
    LATER,
  ).machine.state,
  ...fields,
});

describe('the status a decision needs', () => {
  it('is refused with the status it found (409 invalid_state)', () => {
    expect(statusRefusal('approved', 'awaiting_approval', 'reject')).toEqual({
      type: ACTION_ERRORS.invalidState,
      message: 'cannot reject an action that is approved',
      details: ['approved'],
    });
    expect(statusRefusal('approved', 'approved', 'execute')).toBeNull();
  });

  it.each(['approve', 'reject'] as const)('%s needs awaiting_approval', (kind) => {
    expect(decisionRefusal(approvedWith(), kind, decider('prn_cy'), NOW)).toMatchObject({
      type: ACTION_ERRORS.invalidState,
      details: ['approved'],
    });
  });

  it('execute needs approved', () => {
    expect(decisionRefusal(awaiting(), 'execute', decider('prn_cy'), NOW)).toMatchObject({
      type: ACTION_ERRORS.invalidState,
      message: 'cannot execute an action that is awaiting_approval',
    });
    expect(decisionRefusal(approvedWith(), 'execute', decider('prn_cy'), NOW)).toBeNull();
  });
});

describe('who may decide', () => {
  it.each(['approve', 'reject'] as const)(
    'the proposer may not %s their own action (403)',
    (kind) => {
      expect(decisionRefusal(awaiting(), kind, decider('prn_ada'), NOW)).toEqual({
        type: ACTION_ERRORS.forbidden,
        message: `the proposer cannot ${kind} their own action`,
      });
    },
  );

  it('anyone else may, when no rule names approvers', () => {
    expect(decisionRefusal(awaiting(), 'approve', decider('prn_ben'), NOW)).toBeNull();
    expect(
      decisionRefusal(awaiting(actionInput({ rule: rule() })), 'reject', decider('prn_ben'), NOW),
    ).toBeNull();
  });

  it('a rule naming roles and principals admits those only (403 naming the rule)', () => {
    const state = awaiting(
      actionInput({ rule: rule({ approver_roles: ['ops'], approver_principals: ['prn_cy'] }) }),
    );
    expect(decisionRefusal(state, 'approve', decider('prn_ben', { role: 'dev' }), NOW)).toEqual({
      type: ACTION_ERRORS.forbidden,
      message: 'principal prn_ben may not approve under approval rule "ops changes" (rul_1 v3)',
      details: ['awaiting_approval', { rule_id: 'rul_1' }],
    });
    expect(decisionRefusal(state, 'approve', decider('prn_ben', { role: 'ops' }), NOW)).toBeNull();
    expect(decisionRefusal(state, 'reject', decider('prn_cy'), NOW)).toBeNull();
  });

  it('a rule requiring a reason refuses a decision without one (reason_required)', () => {
    const state = awaiting(actionInput({ rule: rule({ require_reason: true }) }));
    expect(decisionRefusal(state, 'reject', decider('prn_ben'), NOW)).toEqual({
      type: ACTION_ERRORS.reasonRequired,
      message: 'approval rule "ops changes" (rul_1) requires a reason to reject',
      details: ['awaiting_approval', { rule_id: 'rul_1' }],
    });
    expect(decisionRefusal(state, 'reject', decider('prn_ben', { reason: 'no' }), NOW)).toBeNull();
  });

  it('a decision on a plan that is not the current one is a conflict (409)', () => {
    expect(
      decisionRefusal(
        awaiting(),
        'approve',
        decider('prn_ben', { plan_digest: 'sha256:old' }),
        NOW,
      ),
    ).toEqual({
      type: ACTION_ERRORS.conflict,
      message: 'plan_digest sha256:old is not the current plan (sha256:aaaa)',
      details: ['awaiting_approval'],
    });
    expect(
      decisionRefusal(
        awaiting(),
        'approve',
        decider('prn_ben', { plan_digest: 'sha256:aaaa' }),
        NOW,
      ),
    ).toBeNull();
  });

  it('the same principal approves once (409), and may still reject', () => {
    const state = decided(
      planned(openAction(needing(2), RUN), plan(), CREATED_AT).machine,
      decision('approve', 'prn_ben'),
      LATER,
    ).machine.state;
    expect(decisionRefusal(state, 'approve', decider('prn_ben'), NOW)).toEqual({
      type: ACTION_ERRORS.conflict,
      message: 'principal prn_ben has already approved this action',
      details: ['awaiting_approval'],
    });
    expect(decisionRefusal(state, 'approve', decider('prn_cy'), NOW)).toBeNull();
    expect(decisionRefusal(state, 'reject', decider('prn_ben'), NOW)).toBeNull();
  });
});

describe("the rule's wait", () => {
  it('refuses an execute before executable_at, and takes it from then on', () => {
    const state = approvedWith({ rule: rule(), executable_at: '2026-11-25T09:10:00.001Z' });
    expect(decisionRefusal(state, 'execute', decider('prn_cy'), NOW)).toEqual({
      type: ACTION_ERRORS.invalidState,
      message: 'approval rule "ops changes" makes execution wait until 2026-11-25T09:10:00.001Z',
      details: ['approved'],
    });
    expect(decisionRefusal(state, 'execute', decider('prn_cy'), NOW + 1)).toBeNull();
  });
});
