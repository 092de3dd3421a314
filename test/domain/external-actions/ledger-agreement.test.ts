import {
  ledgerAgreement,
  reopenProblem,
  sameTransition,
} from '../../../src/domain/external-actions/ledger-agreement';
import type { ActionLedgerEntry } from '../../../src/store/external-actions.repo';

const entry = (
  seq: number,
  event: string,
  status: ActionLedgerEntry['status'],
  extra: Partial<ActionLedgerEntry> = {},
): ActionLedgerEntry => ({
  _id: `act_X:${seq}`,
  action_id: 'act_X',
  seq,
  at: `2026-11-28T00:00:0${seq}.000Z`,
  event,
  status,
  action_kind: 'world.update_object',
  shared_context_id: null,
  actor: null,
  detail: {},
  prev_digest: seq === 1 ? null : `d${seq - 1}`,
  digest: `d${seq}`,
  ...extra,
});
const ben = { principal_id: 'prn_ben', key_id: 'key_ben' };
const approval = (id: string) => ({ decision: { decision: 'approve', decision_id: id } });
const ledger = [
  entry(1, 'proposed', 'proposed'),
  entry(2, 'awaiting_approval', 'awaiting_approval'),
  entry(3, 'approved', 'approved', { actor: ben, detail: approval('dec_ben') }),
  entry(4, 'aborted', 'aborted'),
];

describe('the ledger against a run that wants to record', () => {
  it('agrees with a batch that continues it, and with a retry of what it holds', () => {
    const next = { seq: 3, event: 'approved', status: 'approved' as const, actor: ben };
    expect(
      ledgerAgreement(
        { head: 'd2', entries: [{ ...next, detail: approval('dec_ben') }] },
        ledger.slice(1, 3),
      ),
    ).toEqual({ agrees: true });
  });

  it('refuses a run going on after the action ended (a reset of an aborted action)', () => {
    const verdict = ledgerAgreement(
      { head: 'd3', entries: [{ seq: 4, event: 'executing', status: 'executing', actor: null }] },
      ledger.slice(2),
    );
    expect(verdict).toMatchObject({ agrees: false, at_seq: 4 });
    expect(verdict.agrees || verdict.problem).toMatch(/already aborted/);
  });

  it("refuses another principal's decision where the ledger credits one", () => {
    const cat = { principal_id: 'prn_cat', key_id: 'key_cat' };
    const stored = ledger[2];
    const intended = { seq: 3, event: 'approved', status: 'approved' as const, actor: cat };
    expect(sameTransition(stored, { ...intended, detail: approval('dec_cat') })).toBe(false);
    expect(sameTransition(stored, { ...intended, actor: ben, detail: approval('dec_ben') })).toBe(
      true,
    );
    // Written by this very run (a workflow task Temporal did not keep): it stands.
    expect(sameTransition({ ...stored, run_id: 'run_1' }, intended, 'run_1')).toBe(true);
    expect(sameTransition({ ...stored, run_id: 'run_0' }, intended, 'run_1')).toBe(false);
  });

  it("refuses a run whose head is not the ledger's, and one behind a final ledger", () => {
    const step = { seq: 3, event: 'approved', status: 'approved' as const, actor: ben };
    expect(
      ledgerAgreement({ head: 'dX', entries: [{ ...step, detail: approval('dec_ben') }] }, ledger),
    ).toMatchObject({ agrees: false, at_seq: 2 });
    expect(
      ledgerAgreement({ head: 'd2', entries: [{ ...step, detail: approval('dec_ben') }] }, ledger),
    ).toMatchObject({ agrees: false, at_seq: 4 });
  });

  it('lets a run start over only while the ledger holds no decision', () => {
    expect(reopenProblem([])).toBeNull();
    expect(reopenProblem(ledger.slice(0, 2))).toBeNull();
    expect(reopenProblem(ledger.slice(0, 3))).toMatch(/approved at seq 3/);
    expect(reopenProblem(ledger)).toMatch(/already aborted/);
  });
});
