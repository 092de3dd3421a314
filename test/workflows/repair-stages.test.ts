import type { RepairFinding, RepairPlan, RepairRecord } from '../../src/store/repairs.repo';
import {
  childEnded,
  diagnosed,
  ending,
  entered,
  repairCurrentDetails,
  stepFailed,
  verified,
} from '../../src/workflows/repair-stages';
import type { ActionState } from '../../src/workflows/external-action.contract';
import { CREATED_AT, LATER } from '../helpers/action-fixtures';

// A repair's stages without a server: what each step makes of the record and where the
// repair goes next, on every path (docs/repair.md).

const AT = '2026-11-25T09:10:00.000Z';

function repair(fields: Partial<RepairRecord> = {}): RepairRecord {
  return Object.freeze({
    _id: 'rep_1',
    workflow_id: 'repair-rep_1',
    error: null,
    seq: 1,
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    completed_at: null,
    object_id: 'obj_1',
    strategy: 'restore_last_good',
    status: 'diagnosing',
    reason: null,
    to_version: null,
    checkpoint_id: null,
    requested_by: { principal_id: 'prn_ada', key_id: 'key_ada' },
    steps: [],
    findings: [],
    plan: null,
    child_action_id: null,
    result: null,
    status_timestamps: { diagnosing: CREATED_AT },
    ledger_seq: null,
    ...fields,
  });
}

const plan = {
  object_id: 'obj_1',
  base_version: 4,
  attributes: { colour: 'red' },
  external_state: null,
  diff: { attributes: { colour: { from: 'blue', to: 'red' } }, external_state: {} },
  source: 'history@3',
  digest: 'sha256:plan',
} as RepairPlan;

const finding = (check: string, ok: boolean): RepairFinding => ({
  check,
  ok,
  detail: `${check} ${ok ? 'holds' : 'broken'}`,
});

const child = (status: ActionState['status'], fields: Partial<ActionState> = {}) =>
  ({ action_id: 'act_1', status, execution: null, dry_run: null, ...fields }) as ActionState;

describe('entering a status', () => {
  it('a new status is timestamped and changes the search attribute; each entry is a projection', () => {
    const next = entered(repair(), 'planned', AT);
    expect(next.statusChanged).toBe(true);
    expect(next.record).toMatchObject({
      status: 'planned',
      seq: 2,
      updated_at: AT,
      status_timestamps: { diagnosing: CREATED_AT, planned: AT },
    });
  });

  it('entering the status it is in (an end, once in the ledger) changes no timestamp', () => {
    const ended = ending(repair(), 'repaired', LATER);
    expect(ended).toMatchObject({
      status: 'repaired',
      completed_at: LATER,
      status_timestamps: { repaired: LATER },
    });
    const next = entered(ended, 'repaired', AT);
    expect(next.statusChanged).toBe(false);
    expect(next.record).toMatchObject({
      seq: 2,
      updated_at: AT,
      status_timestamps: { repaired: LATER },
    });
  });
});

describe('diagnosis', () => {
  it('nothing to change: no action needed, the plan skipped', () => {
    const stage = diagnosed(repair(), { findings: [finding('history', true)], plan: null }, AT);
    expect(stage.next).toBe('no_action_needed');
    expect(stage.record.findings).toEqual([finding('history', true)]);
    expect(stage.record.steps).toEqual([
      { step: 'diagnose', outcome: 'done', at: AT, detail: '1 check(s), 0 not holding' },
      { step: 'plan', outcome: 'skipped', at: AT, detail: 'nothing to change' },
    ]);
  });

  it('a plan: planned, counting its field changes', () => {
    const stage = diagnosed(
      repair(),
      { findings: [finding('history', false), finding('chain', true)], plan },
      AT,
    );
    expect(stage.next).toBe('planned');
    expect(stage.record.plan).toBe(plan);
    expect(stage.record.steps.map((s) => s.detail)).toEqual([
      '2 check(s), 1 not holding',
      '1 field change(s) from history@3, sha256:plan',
    ]);
  });

  it('a step that cannot go on fails the repair, saying why', () => {
    const stage = stepFailed(repair(), 'diagnose', 'version 9 is not in history', AT);
    expect(stage).toEqual({
      next: 'failed',
      record: expect.objectContaining({
        error: 'version 9 is not in history',
        steps: [
          { step: 'diagnose', outcome: 'failed', at: AT, detail: 'version 9 is not in history' },
        ],
      }),
    });
  });
});

describe('the child action', () => {
  const planned = repair({ plan, status: 'applying', child_action_id: 'act_1' });

  it('executed: the repair keeps the version and revision it wrote, and verifies', () => {
    const stage = childEnded(
      planned,
      child('executed', {
        execution: {
          outcome: 'executed',
          reason: null,
          result: { version: 5, external_revision: 7 },
          started_at: AT,
          finished_at: AT,
        },
      }),
      AT,
    );
    expect(stage.next).toBe('verifying');
    expect(stage.record.result).toEqual({ version: 5, external_revision: 7 });
    expect(stage.record.steps).toEqual([
      { step: 'apply', outcome: 'done', at: AT, detail: 'child action act_1 executed' },
    ]);
  });

  it('executed without figures: the plan base version, no revision', () => {
    expect(childEnded(planned, child('executed'), AT).record.result).toEqual({
      version: 4,
      external_revision: null,
    });
  });

  it.each(['rejected', 'expired'] as const)(
    '%s: the repair is rejected, with no error',
    (status) => {
      const stage = childEnded(planned, child(status), AT);
      expect(stage.next).toBe('rejected');
      expect(stage.record.error).toBeNull();
      expect(stage.record.steps[0]).toMatchObject({
        step: 'apply',
        outcome: 'skipped',
        detail: `child action act_1 ${status}`,
      });
    },
  );

  it.each([
    [
      'failed',
      child('failed', {
        execution: {
          outcome: 'failed',
          reason: 'plan_drift',
          result: {},
          started_at: AT,
          finished_at: AT,
        },
      }),
      'plan_drift',
    ],
    [
      'dry_run_failed',
      child('dry_run_failed', {
        dry_run: { policy: { allowed: false, reasons: ['a', 'b'] } } as ActionState['dry_run'],
      }),
      'a; b',
    ],
  ])('%s: the repair fails with the reason', (status, final, why) => {
    const stage = childEnded(planned, final, AT);
    expect(stage.next).toBe('failed');
    expect(stage.record.error).toBe(`child action ${status}: ${why}`);
    expect(stage.record.steps[0].detail).toBe(`child action act_1 ${status}: ${why}`);
  });

  it('aborted (ended from Temporal): the repair fails', () => {
    const stage = childEnded(planned, child('aborted'), AT);
    expect(stage).toMatchObject({ next: 'failed', record: { error: 'child action aborted: ' } });
    expect(stage.record.steps[0].detail).toBe('child action act_1 aborted');
  });
});

describe('verification', () => {
  const applied = repair({ plan, findings: [finding('history', false)] });

  it('every check holds: repaired, with the checks kept as verify findings', () => {
    const stage = verified(applied, [finding('attributes', true)], AT);
    expect(stage.next).toBe('repaired');
    expect(stage.record.findings.map((f) => f.check)).toEqual(['history', 'verify.attributes']);
    expect(stage.record.steps).toEqual([
      { step: 'verify', outcome: 'done', at: AT, detail: '1 check(s) hold' },
    ]);
  });

  it('disputed conditions do not fail a repair; a broken check does', () => {
    expect(verified(applied, [finding('external_conditions', false)], AT).next).toBe('repaired');
    const stage = verified(applied, [finding('attributes', false), finding('chain', false)], AT);
    expect(stage.next).toBe('failed');
    expect(stage.record.error).toBe('attributes broken; chain broken');
    expect(stage.record.findings).toHaveLength(3);
  });
});

describe('current details', () => {
  it('name the stage, the object, the child and the error', () => {
    expect(repairCurrentDetails(repair({ child_action_id: 'act_1', error: 'boom' }), 'Lamp')).toBe(
      [
        '- **Stage:** diagnosing',
        '- **Object:** Lamp `obj_1`',
        '- **Strategy:** restore_last_good',
        '- **Child action:** `act_1`',
        '- **Error:** boom',
      ].join('\n'),
    );
    expect(repairCurrentDetails(repair())).toBe(
      '- **Stage:** diagnosing\n- **Object:**  `obj_1`\n- **Strategy:** restore_last_good',
    );
  });
});
