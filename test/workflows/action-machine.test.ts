import {
  MAX_RECORDED_REFUSALS,
  approvalsRemaining,
  decided,
  decisionOf,
  effectApplied,
  effectFailed,
  executedByItself,
  executesByItself,
  executionScheduled,
  expired,
  openAction,
  planned,
  recorded,
  refusalsFlushed,
  refused,
  transitionRecordsOf,
  type ActionMachine,
  type ActionStep,
  type RecordEffect,
  type Refusal,
} from '../../src/workflows/action-machine';
import { executionEnded } from '../../src/workflows/action-execution';
import {
  CREATED_AT,
  LATER,
  RUN,
  actionInput,
  decision,
  decider,
  needing,
  plan,
  rule,
} from '../helpers/action-fixtures';

// The action's lifecycle without a server: every transition, its effects in order (the
// order of the workflow's commands), and that no transition changes the machine it was given.

const AT = '2026-11-25T09:10:00.000Z';
const records = (step: ActionStep) =>
  step.effects.filter((e): e is RecordEffect => e.kind === 'record');
const kinds = (step: ActionStep) =>
  step.effects.map((e) => (e.kind === 'record' ? `record ${e.event}` : e.kind));

/** The effects of entering `status`: search attributes, details, the parent, the record. */
const entering = (status: string): string[] => [
  'search_attributes',
  'show_details',
  'notify_parent',
  `record ${status}`,
];

/** A frozen copy: a transition that writes into what it was given throws. */
function frozen<T>(value: T): T {
  const copy = JSON.parse(JSON.stringify(value)) as T;
  const freeze = (v: unknown): void => {
    if (v && typeof v === 'object') {
      Object.values(v).forEach(freeze);
      Object.freeze(v);
    }
  };
  freeze(copy);
  return copy;
}

const awaiting = (input = actionInput()): ActionMachine =>
  frozen(planned(openAction(input, RUN), plan(), CREATED_AT).machine);
const approved = (input = actionInput()): ActionMachine =>
  frozen(decided(awaiting(input), decision('approve', 'prn_ben'), LATER).machine);
const executing = (): ActionMachine =>
  frozen(decided(approved(), decision('execute', 'prn_ben'), LATER).machine);
const refusal = (n: number): Refusal => ({
  decision: 'approve',
  claimed_by: { principal_id: 'prn_eve', key_id: 'key_eve' },
  problem: `forged ${n}`,
  at: LATER,
});

describe('opening an action', () => {
  it('starts proposed, with its window, its run and its signed proposal', () => {
    const { state, refusals } = openAction(actionInput({ rule: rule() }), RUN);
    expect(state).toMatchObject({
      action_id: 'act_1',
      action_kind: 'notify',
      status: 'proposed',
      status_timestamps: { proposed: CREATED_AT },
      expires_at: '2026-11-25T10:00:00.000Z',
      workflow_id: 'action-act_1',
      run_id: 'run-2',
      first_run_id: 'run-1',
      seq: 0,
      ledger_head: null,
      refused_decisions: 0,
      rule: { rule_id: 'rul_1' },
      executable_at: null,
      proposal: {
        action_id: 'act_1',
        authority: 'api',
        signature: 'sig',
        rule: { rule_id: 'rul_1' },
      },
    });
    expect(refusals).toEqual({
      unrecorded: 0,
      last: null,
      next_aggregate_at: MAX_RECORDED_REFUSALS + 1,
    });
  });
});

describe('the plan', () => {
  it('records the proposal, then awaits approval under the plan digest', () => {
    const step = planned(frozen(openAction(needing(2), RUN)), plan(), AT);
    expect(kinds(step)).toEqual(['record proposed', ...entering('awaiting_approval')]);
    const [proposal, awaited] = records(step);
    expect(proposal).toMatchObject({
      actor: { principal_id: 'prn_ada' },
      state: { status: 'proposed', seq: 1 },
    });
    expect(proposal.detail).toMatchObject({ reason: 'tell ops', proposal: { action_id: 'act_1' } });
    expect(proposal.state.dry_run?.plan_digest).toBe('sha256:aaaa');
    expect(awaited).toMatchObject({ actor: null, detail: { plan_digest: 'sha256:aaaa' } });
    expect(awaited.state).toMatchObject({ status: 'awaiting_approval', seq: 2, updated_at: AT });
    expect(step.effects[1]).toEqual({
      kind: 'search_attributes',
      status: 'awaiting_approval',
      approvals_remaining: 2,
    });
    expect(step.effects[3]).toEqual({ kind: 'notify_parent', status: 'awaiting_approval' });
    expect(step.machine.state.status_timestamps).toEqual({
      proposed: CREATED_AT,
      awaiting_approval: AT,
    });
  });

  it('a plan policy denies ends the action dry_run_failed with its reasons', () => {
    const denied = plan({
      ok: false,
      policy: { allowed: false, reasons: ['not on the allow-list'] },
    });
    const step = planned(frozen(openAction(actionInput(), RUN)), denied, AT);
    expect(kinds(step)).toEqual(['record proposed', ...entering('dry_run_failed')]);
    expect(records(step)[1].detail).toEqual({ reasons: ['not on the allow-list'] });
    expect(step.machine.state.status).toBe('dry_run_failed');
  });
});

describe('decisions', () => {
  it('an approval short of the count is recorded, and the action still awaits approval', () => {
    const step = decided(awaiting(needing(2)), decision('approve', 'prn_ben'), LATER);
    expect(kinds(step)).toEqual(['search_attributes', 'show_details', 'record approval_recorded']);
    expect(step.effects[0]).toEqual({ kind: 'search_attributes', approvals_remaining: 1 });
    const [entry] = records(step);
    expect(entry.actor).toEqual({ principal_id: 'prn_ben', key_id: 'key_prn_ben' });
    expect(entry.detail).toEqual({ reason: null, decision: decision('approve', 'prn_ben') });
    expect(step.machine.state).toMatchObject({ status: 'awaiting_approval', seq: 3 });
    expect(approvalsRemaining(step.machine.state)).toBe(1);
  });

  it('the last approval approves', () => {
    const first = decided(awaiting(needing(2)), decision('approve', 'prn_ben'), LATER).machine;
    const step = decided(frozen(first), decision('approve', 'prn_cy'), AT);
    expect(kinds(step)).toEqual(entering('approved'));
    expect(step.effects[0]).toEqual({
      kind: 'search_attributes',
      status: 'approved',
      approvals_remaining: 0,
    });
    expect(step.machine.state.approvals.map((a) => a.principal_id)).toEqual(['prn_ben', 'prn_cy']);
    expect(step.machine.state.decisions).toHaveLength(2);
    expect(step.machine.state.status_timestamps.approved).toBe(AT);
  });

  it('a rejection rejects, and is a decision, not an approval', () => {
    const step = decided(awaiting(needing(2)), decision('reject', 'prn_ben'), AT);
    expect(kinds(step)).toEqual(entering('rejected'));
    expect(step.machine.state).toMatchObject({ status: 'rejected', approvals: [] });
    expect(step.machine.state.decisions.map((d) => d.decision)).toEqual(['reject']);
  });

  it('an execute starts executing, naming who called it and why', () => {
    const call = { ...decision('execute', 'prn_ben'), reason: 'go' };
    const step = decided(approved(), call, AT);
    expect(kinds(step)).toEqual(entering('executing'));
    expect(records(step)[0]).toMatchObject({
      actor: { principal_id: 'prn_ben' },
      detail: { reason: 'go', decision: call },
    });
  });

  it('a decision keeps what the api signed of it', () => {
    const d = decider('prn_ben', {
      reason: 'ok',
      plan_digest: 'sha256:aaaa',
      role: 'ops',
      decision_id: 'dec_1',
      signed_at: LATER,
      signature: 's',
      signer_key: 'k',
      principal_name: 'Ben',
    });
    expect(decisionOf('approve', d, AT)).toEqual({
      decision: 'approve',
      principal_id: 'prn_ben',
      key_id: 'key_prn_ben',
      reason: 'ok',
      plan_digest: 'sha256:aaaa',
      at: AT,
      role: 'ops',
      decision_id: 'dec_1',
      signed_at: LATER,
      signature: 's',
      signer_key: 'k',
    });
    expect(decisionOf('reject', decider('prn_ben'), AT)).toMatchObject({
      reason: null,
      plan_digest: null,
      role: null,
    });
  });
});

describe('refused decisions', () => {
  const refuseTimes = (machine: ActionMachine, n: number) => {
    const steps: ActionStep[] = [];
    for (let i = 1; i <= n; i++) {
      steps.push(refused(frozen(machine), refusal(i)));
      machine = steps[steps.length - 1].machine;
    }
    return steps;
  };

  it(`are recorded one by one up to ${MAX_RECORDED_REFUSALS}`, () => {
    const steps = refuseTimes(awaiting(), MAX_RECORDED_REFUSALS);
    expect(steps.map(kinds)).toEqual(steps.map(() => ['record decision_refused']));
    expect(records(steps[0])[0]).toMatchObject({
      actor: null,
      detail: refusal(1),
      state: { refused_decisions: 1 },
    });
    expect(steps[steps.length - 1].machine.state.refused_decisions).toBe(MAX_RECORDED_REFUSALS);
  });

  it('past that, one aggregate entry each time the count doubles', () => {
    const steps = refuseTimes(awaiting(), 4 * (MAX_RECORDED_REFUSALS + 1));
    const aggregates = steps
      .map((step, i) => ({ n: i + 1, entries: records(step) }))
      .filter(({ n, entries }) => n > MAX_RECORDED_REFUSALS && entries.length > 0);
    expect(aggregates.map(({ n }) => n)).toEqual([21, 42, 84]);
    expect(aggregates.map(({ entries }) => entries.map((e) => e.event))).toEqual([
      ['decisions_refused'],
      ['decisions_refused'],
      ['decisions_refused'],
    ]);
    expect(aggregates[1].entries[0].detail).toEqual({
      count: 42,
      since_last_entry: 21,
      last: refusal(42),
    });
    expect(steps[22].effects).toEqual([]);
    expect(steps[22].machine.refusals).toEqual({
      unrecorded: 2,
      last: refusal(23),
      next_aggregate_at: 42,
    });
  });

  it('not yet recorded go in before the status they happened under ends', () => {
    const [last] = refuseTimes(awaiting(), MAX_RECORDED_REFUSALS + 2).slice(-1);
    const step = decided(frozen(last.machine), decision('reject', 'prn_ben'), AT);
    expect(kinds(step)).toEqual(['record decisions_refused', ...entering('rejected')]);
    const [aggregate, rejected] = records(step);
    expect(aggregate.state).toMatchObject({
      status: 'awaiting_approval',
      seq: rejected.state.seq - 1,
    });
    expect(aggregate.detail).toEqual({ count: 22, since_last_entry: 1, last: refusal(22) });
    expect(step.machine.refusals).toEqual({
      unrecorded: 0,
      last: refusal(22),
      next_aggregate_at: 44,
    });
  });

  it('are flushed when the workflow ends, and nothing is when none waits', () => {
    const [last] = refuseTimes(awaiting(), MAX_RECORDED_REFUSALS + 2).slice(-1);
    expect(kinds(refusalsFlushed(frozen(last.machine)))).toEqual(['record decisions_refused']);
    const none = refusalsFlushed(awaiting());
    expect(none.effects).toEqual([]);
    expect(none.machine).toEqual(awaiting());
  });
});

describe('windows', () => {
  it.each(['approval', 'execution'] as const)('the %s window ends: expired', (window) => {
    const step = expired(window === 'approval' ? awaiting() : approved(), window, AT);
    expect(kinds(step)).toEqual(entering('expired'));
    expect(records(step)[0].detail).toEqual({ window });
    expect(step.machine.state.status_timestamps.expired).toBe(AT);
  });

  it("execution may start once the rule's wait after the approval is over", () => {
    const step = executionScheduled(approved(actionInput({ rule: rule({ wait_seconds: 90 }) })));
    expect(step.effects).toEqual([{ kind: 'show_details' }]);
    expect(step.machine.state.executable_at).toBe('2026-11-25T09:06:30.000Z');
    expect(executionScheduled(approved()).machine.state.executable_at).toBe(LATER);
  });
});

describe('executing by itself', () => {
  it('when the rule auto-executes or its proposer asked, never otherwise', () => {
    expect(executesByItself(approved().state)).toBe(false);
    expect(executesByItself(approved().state, true)).toBe(true);
    expect(
      executesByItself(approved(actionInput({ rule: rule({ auto_execute: true }) })).state),
    ).toBe(true);
  });

  it('under the rule: an `auto` decision naming it', () => {
    const step = executedByItself(
      approved(actionInput({ rule: rule({ auto_execute: true }) })),
      AT,
    );
    expect(kinds(step)).toEqual(entering('executing'));
    expect(step.machine.state.decisions.at(-1)).toEqual({
      decision: 'execute',
      principal_id: 'auto',
      key_id: 'auto',
      reason: 'auto_execute under approval rule rul_1',
      plan_digest: null,
      at: AT,
    });
    expect(records(step)[0]).toMatchObject({
      actor: null,
      detail: { auto_execute: true, rule_id: 'rul_1' },
    });
  });

  it('for its proposer (a repair): an `auto` decision saying so', () => {
    const step = executedByItself(approved(), AT);
    expect(step.machine.state.decisions.at(-1)?.reason).toBe(
      'executes once approved, as its proposer (a repair) asked',
    );
    expect(records(step)[0].detail).toEqual({ auto_execute: true, rule_id: null });
  });
});

describe('execution', () => {
  const STARTED = '2026-11-25T09:09:00.000Z';

  it.each([
    ['PlanDrift', 'plan_drift'],
    ['PolicyDenied', 'policy_denied'],
  ])('a plan the effect made again and refused (%s) fails the action as %s', (type, reason) => {
    const refusal = { replanned_digest: 'sha256:bbbb', reasons: ['no'] };
    const step = executionEnded(
      executing(),
      { failure: { type, message: 'refused', refusal } },
      STARTED,
      AT,
    );
    expect(kinds(step)).toEqual(entering('failed'));
    expect(records(step)[0].detail).toEqual({ reason });
    expect(step.machine.state.execution).toEqual({
      outcome: 'failed',
      reason,
      result: refusal,
      started_at: STARTED,
      finished_at: AT,
    });
  });

  it('any other ending: executed with the result, or failed with the message', () => {
    expect(executionEnded(executing(), { result: { sent: 1 } }, STARTED, AT)).toEqual(
      effectApplied(executing(), { sent: 1 }, STARTED, AT),
    );
    const failure = { type: 'HttpError', message: 'receiver said 500' };
    expect(executionEnded(executing(), { failure }, STARTED, AT)).toEqual(
      effectFailed(executing(), failure, STARTED, AT),
    );
    // A refusal type without the plan made now is a failure like any other.
    const drift = { type: 'PlanDrift', message: 'object moved' };
    expect(executionEnded(executing(), { failure: drift }, STARTED, AT)).toEqual(
      effectFailed(executing(), drift, STARTED, AT),
    );
  });

  it('the effect applied: executed with its result', () => {
    const step = effectApplied(executing(), { delivered: true }, STARTED, AT);
    expect(kinds(step)).toEqual(entering('executed'));
    expect(records(step)[0].detail).toEqual({ result: { delivered: true } });
    expect(step.machine.state.execution).toEqual({
      outcome: 'executed',
      reason: null,
      result: { delivered: true },
      started_at: STARTED,
      finished_at: AT,
    });
  });

  it.each([
    [{ type: 'PlanDrift', message: 'object moved' }, 'plan_drift'],
    [{ type: 'HttpError', message: 'receiver said 500' }, 'receiver said 500'],
    [{ message: 'Error: boom' }, 'Error: boom'],
  ])('the effect failed (%j): failed, as %s', (failure, reason) => {
    const step = effectFailed(executing(), failure, STARTED, AT);
    expect(kinds(step)).toEqual(entering('failed'));
    expect(step.machine.state.execution).toMatchObject({
      outcome: 'failed',
      reason,
      result: { error: failure.message },
    });
  });
});

describe('the ledger head', () => {
  it('follows each record that lands, and every transition keeps it', () => {
    const machine = recorded(awaiting(), 'sha256:head');
    expect(machine.state.ledger_head).toBe('sha256:head');
    const step = decided(frozen(machine), decision('approve', 'prn_ben'), AT);
    expect(records(step)[0].state.ledger_head).toBe('sha256:head');
  });

  it('an activity records a step as the workflow would: its records, the first chained to the head', () => {
    const step = planned(openAction(actionInput(), RUN), plan(), AT);
    const taken = transitionRecordsOf(step, AT, 'sha256:head');
    expect(taken.map((r) => [r.event, r.state.seq, r.at])).toEqual([
      ['proposed', 1, AT],
      ['awaiting_approval', 2, AT],
    ]);
    expect(taken.map((r) => r.state.ledger_head)).toEqual(['sha256:head', null]);
    expect(
      taken.map(({ state, event, actor, detail }) => ({
        state: { ...state, ledger_head: null },
        event,
        actor,
        detail,
      })),
    ).toEqual(
      records(step).map(({ state, event, actor, detail }) => ({ state, event, actor, detail })),
    );
  });

  it('every record takes the next seq, in the order of its effects', () => {
    let machine = openAction(needing(3), RUN);
    const seqs: number[] = [];
    const take = (step: ActionStep) => {
      seqs.push(...records(step).map((r) => r.state.seq));
      machine = step.machine;
    };
    take(planned(machine, plan(), CREATED_AT));
    take(decided(machine, decision('approve', 'prn_ben'), LATER));
    take(refused(machine, refusal(1)));
    take(decided(machine, decision('approve', 'prn_cy'), LATER));
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(machine.state.seq).toBe(5);
  });
});
