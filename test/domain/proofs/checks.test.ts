import { canonicalDigest } from '../../../src/lib/canonical-digest';
import {
  actionLedgerChain,
  artifactsIntegrity,
  eventDedup,
  executionsApproved,
  noSecrets,
  repairChain,
} from '../../../src/domain/proofs/checks';
import { LEDGER_GENESIS } from '../../../src/domain/repairs/ledger';
import type { ActionLedgerEntry, ActionRecord } from '../../../src/store/external-actions.repo';
import type { ExternalEventRecord } from '../../../src/store/external-events.repo';
import type { RepairLedgerEntry } from '../../../src/store/repairs.repo';

// The pure proof checks (docs/proofs.md), over records built here: each rule's passing
// case and each way it names a violation.

const problems = (findings: { violations: { record_id: string; problem: string }[] }) =>
  findings.violations.map((v) => `${v.record_id}: ${v.problem}`);

/** An action's ledger, chained as the recorder chains it. */
function actionLedger(actionId: string, events: string[]): ActionLedgerEntry[] {
  const entries: ActionLedgerEntry[] = [];
  events.forEach((event, index) => {
    const body = {
      _id: `${actionId}:${index + 1}`,
      action_id: actionId,
      seq: index + 1,
      at: `2026-11-26T10:00:0${index}.000Z`,
      event,
      status: 'proposed' as const,
      action_kind: 'notify' as const,
      shared_context_id: null,
      actor: null,
      detail: {},
      prev_digest: entries[index - 1]?.digest ?? null,
    };
    entries.push({ ...body, digest: canonicalDigest(body) });
  });
  return entries;
}

describe('action_ledger_chain', () => {
  it('passes whole chains of several actions, whatever order they are read in', () => {
    const entries = [
      ...actionLedger('act_a', ['proposed', 'approved']),
      ...actionLedger('act_b', ['proposed']),
    ];
    const findings = actionLedgerChain([...entries].reverse(), true);
    expect(findings).toEqual({ checked: 3, violations: [] });
  });

  it('names an entry whose digest does not recompute', () => {
    const [first, second] = actionLedger('act_a', ['proposed', 'approved']);
    const findings = actionLedgerChain([first, { ...second, event: 'executed' }], true);
    expect(problems(findings)).toEqual(['act_a:2: its digest does not recompute']);
  });

  it('names a link to anything but the entry before', () => {
    const [first, , third] = actionLedger('act_a', ['proposed', 'approved', 'executed']);
    const findings = actionLedgerChain([first, third], true);
    expect(problems(findings)).toEqual(['act_a:3: prev_digest is not the digest of act_a:1']);
  });

  it('judges where a chain starts only when every entry was read', () => {
    const [, second] = actionLedger('act_a', ['proposed', 'approved']);
    expect(actionLedgerChain([second], false).violations).toEqual([]);
    expect(problems(actionLedgerChain([second], true))).toEqual([
      'act_a:2: the chain starts here, but prev_digest is set',
    ]);
  });
});

describe('executions_approved', () => {
  const action = (over: Partial<ActionRecord>): ActionRecord =>
    ({
      _id: 'act_x',
      status: 'executed',
      proposed_by: { principal_id: 'prn_ada' },
      bounds: { required_approvals: 2 },
      approvals: [
        { principal_id: 'prn_ben', at: '2026-11-26T10:00:01.000Z' },
        { principal_id: 'prn_cy', at: '2026-11-26T10:00:02.000Z' },
      ],
      status_timestamps: { executing: '2026-11-26T10:00:03.000Z' },
      ...over,
    }) as unknown as ActionRecord;

  it('passes an execution with its approvals, by others, before it began', () => {
    expect(executionsApproved([action({})])).toEqual({ checked: 1, violations: [] });
  });

  it('skips actions that never executed', () => {
    expect(executionsApproved([action({ status: 'rejected' })]).checked).toBe(0);
  });

  it('names too few, repeated, self- and late approvals', () => {
    const findings = executionsApproved([
      action({
        approvals: [
          { principal_id: 'prn_ada', at: '2026-11-26T10:00:01.000Z' },
          { principal_id: 'prn_ada', at: '2026-11-26T10:00:09.000Z' },
        ],
      } as Partial<ActionRecord>),
    ]);
    expect(problems(findings)).toEqual([
      'act_x: 1 distinct approvals of 2 required',
      'act_x: one principal approved more than once',
      'act_x: the proposer approved it',
      'act_x: an approval is dated after execution began',
    ]);
  });
});

describe('repair_chain', () => {
  function repairLedger(count: number): RepairLedgerEntry[] {
    const entries: RepairLedgerEntry[] = [];
    for (let slot = 1; slot <= count; slot += 1) {
      const body = {
        _id: slot,
        repair_id: `rep_${slot}`,
        object_id: 'obj_1',
        strategy: 'restore_last_good' as const,
        outcome: 'repaired' as const,
        plan_digest: null,
        child_action_id: null,
        version: slot,
        at: `2026-11-26T10:00:0${slot}.000Z`,
        prev_digest: entries[slot - 2]?.digest ?? LEDGER_GENESIS,
      };
      entries.push({ ...body, digest: canonicalDigest(body) });
    }
    return entries;
  }

  it('passes slots 1, 2, 3 chained from the genesis digest', () => {
    expect(repairChain(repairLedger(3).reverse())).toEqual({ checked: 3, violations: [] });
  });

  it('names a tampered entry and the link after a missing one', () => {
    const [first, , third] = repairLedger(3);
    const findings = repairChain([{ ...first, object_id: 'obj_2' }, third]);
    expect(findings.violations.map((v) => v.record_id)).toEqual(['1', '3']);
    expect(findings.violations[0].problem).toBe('its digest does not recompute');
  });
});

describe('event_dedup', () => {
  const keyOf = (family: string, id: string) => `${family}:${id}`;
  const event = (id: string, eventId: string, family = 'ci', source = 'e1') =>
    ({
      _id: id,
      event_id: eventId,
      source_family: family,
      source_event_id: source,
    }) as ExternalEventRecord;

  it('passes events stored once each under their key', () => {
    const findings = eventDedup(
      [event('ci:e1', 'evt_1'), event('ci:e2', 'evt_2', 'ci', 'e2')],
      keyOf,
    );
    expect(findings).toEqual({ checked: 2, violations: [] });
  });

  it('names an event under another key, a repeated source event and a repeated event id', () => {
    const findings = eventDedup(
      [event('ci:e1', 'evt_1'), event('ci:e1', 'evt_2'), event('other', 'evt_1', 'ci', 'e3')],
      keyOf,
    );
    expect(problems(findings)).toEqual([
      'evt_2: same source event as evt_1',
      'evt_1: not stored under its dedup key',
      'evt_1: event_id also stored as ci:e1',
    ]);
  });
});

describe('no_secrets', () => {
  it('finds a key secret anywhere in a row, never a key id alone', () => {
    const withKeyId = { _id: 'aud_1', after: { key_id: 'grk_0a1b2c3d4e5f' } };
    const withSecret = { _id: 'aud_2', note: 'grk_0a1b2c3d4e5f_abcdefghijklmnop0123' };
    const findings = noSecrets([
      { collection: 'audit', row: withKeyId },
      { collection: 'audit', row: withSecret },
    ]);
    expect(problems(findings)).toEqual(['aud_2: holds an API key secret']);
  });
});

describe('artifacts_integrity', () => {
  const artifact = (stored: { sha256: string; size: number } | null) => ({
    _id: 'art_1',
    path: 'checkpoints/chk_1/manifest.json',
    sha256: 'aa',
    size: 10,
    stored,
  });

  it('passes bytes that hash to the recorded digest and size', () => {
    expect(artifactsIntegrity([artifact({ sha256: 'aa', size: 10 })]).violations).toEqual([]);
  });

  it('names missing bytes, another digest, another size', () => {
    const findings = artifactsIntegrity([
      artifact(null),
      artifact({ sha256: 'bb', size: 10 }),
      artifact({ sha256: 'aa', size: 9 }),
    ]);
    expect(findings.violations.map((v) => v.problem)).toEqual([
      'its bytes are missing',
      'its bytes hash to bb',
      'it holds 9 bytes, not 10',
    ]);
  });
});
