import {
  RepairNotPossible,
  diagnose,
  fieldDiff,
  replayVersions,
} from '../../../src/domain/repairs/diagnosis';
import { firstBrokenEntry, ledgerEntryOf } from '../../../src/domain/repairs/ledger';
import type { RepairRecord } from '../../../src/store/repairs.repo';
import type { ExternalState } from '../../../src/store/world-external-state.repo';
import type { WorldHistoryEvent } from '../../../src/store/world-history.repo';
import type { WorldObject } from '../../../src/store/world-objects.repo';

const at = '2026-01-01T00:00:00.000Z';
const event = (kind: string, change: Record<string, unknown>, n: number): WorldHistoryEvent => ({
  _id: `evt_${n}`,
  kind,
  object_id: 'obj_1',
  at,
  change,
});
const history = [
  event('object.updated', { version: 2, changes: { status: { from: 'draft', to: 'live' } } }, 2),
  event('object.created', { after: { attributes: { status: 'draft', owner: 'ada' } } }, 1),
  event(
    'object.updated',
    { version: 3, changes: { owner: { from: 'ada', to: null, removed: true } } },
    3,
  ),
];
const objectAt = (version: number, attributes: Record<string, unknown>): WorldObject => ({
  _id: 'obj_1',
  kind: 'doc',
  name: 'Doc',
  attributes,
  external_state: {},
  version,
  created_at: at,
  updated_at: at,
});
const head = (fields: Record<string, unknown>, revision = 2): ExternalState => ({
  revision,
  fields,
  provenance: {},
  generation: revision,
  observed_generation: revision,
  conditions: [
    {
      type: 'Reconciled',
      status: 'True',
      reason: 'Recorded',
      message: '',
      last_transition_time: at,
    },
  ],
  last_event_id: null,
  updated_at: at,
});

describe('replayVersions', () => {
  it('replays created, updated (removals too) and repaired events in version order', () => {
    const versions = replayVersions([
      ...history,
      event('object.repaired', { version: 4, attributes: { status: 'draft', owner: 'ada' } }, 4),
      event('object.repaired', { version: null, external_changes: {} }, 5),
    ]);
    expect([...versions.keys()]).toEqual([1, 2, 3, 4]);
    expect(versions.get(1)).toEqual({ status: 'draft', owner: 'ada' });
    expect(versions.get(2)).toEqual({ status: 'live', owner: 'ada' });
    expect(versions.get(3)).toEqual({ status: 'live' });
    expect(versions.get(4)).toEqual({ status: 'draft', owner: 'ada' });
  });
});

describe('diagnose', () => {
  it('revalidate: nothing to do for an object that matches its replay', () => {
    const result = diagnose('revalidate', {
      object: objectAt(3, { status: 'live' }),
      history,
      externalHead: null,
    });
    expect(result.plan).toBeNull();
    expect(result.findings.every((finding) => finding.ok)).toBe(true);
  });

  it('revalidate: plans the replayed attributes and the chain head over a diverged object', () => {
    const object = {
      ...objectAt(3, { status: 'hacked', extra: 1 }),
      external_state: { revision: 1, fields: { replicas: 1 } },
    };
    const result = diagnose('revalidate', {
      object,
      history,
      externalHead: head({ replicas: 3 }),
    });
    expect(result.plan).toMatchObject({
      base_version: 3,
      attributes: { status: 'live' },
      external_state: { base_revision: 2, fields: { replicas: 3 } },
      source: 'history@3+external@2',
      diff: {
        attributes: {
          status: { from: 'hacked', to: 'live' },
          extra: { from: 1, to: null, removed: true },
        },
        external_state: { replicas: { from: 1, to: 3 } },
      },
    });
    expect(result.plan?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.findings.filter((f) => !f.ok).map((f) => f.check)).toEqual([
      'history_replay',
      'external_state',
    ]);
  });

  it('reconcile_external: rebuilds the fields from the events by their stamps', () => {
    const object = {
      ...objectAt(3, { status: 'live' }),
      external_state: { revision: 2, fields: { replicas: 9 } },
    };
    const events = [
      {
        event_id: 'e2',
        source_family: 'k8s',
        source_event_id: '2',
        occurred_at: '2026-01-01T00:00:02.000Z',
        payload: { replicas: 3 },
      },
      {
        event_id: 'e1',
        source_family: 'k8s',
        source_event_id: '1',
        occurred_at: '2026-01-01T00:00:01.000Z',
        payload: { replicas: 2, region: 'eu' },
      },
    ];
    const result = diagnose('reconcile_external', {
      object,
      history,
      externalHead: head({ replicas: 9 }),
      events,
    });
    expect(result.plan?.external_state).toMatchObject({
      base_revision: 2,
      fields: { replicas: 3, region: 'eu' },
      generation: 3,
    });
    expect(result.plan?.source).toBe('events:2');
    const healthy = diagnose('reconcile_external', {
      object: { ...object, external_state: { revision: 3, fields: { replicas: 3, region: 'eu' } } },
      history,
      externalHead: head({ replicas: 3, region: 'eu' }, 3),
      events,
    });
    expect(healthy.plan).toBeNull();
  });

  it('restore_last_good: the version before, a version asked for, or a checkpoint copy', () => {
    const object = objectAt(3, { status: 'live' });
    const evidence = { object, history, externalHead: null };
    expect(diagnose('restore_last_good', evidence).plan).toMatchObject({
      attributes: { status: 'live', owner: 'ada' },
      source: 'history@2',
    });
    expect(diagnose('restore_last_good', evidence, { to_version: 1 }).plan).toMatchObject({
      attributes: { status: 'draft', owner: 'ada' },
      source: 'history@1',
    });
    expect(
      diagnose('restore_last_good', {
        ...evidence,
        checkpointCopy: { checkpoint_id: 'chk_1', attributes: { status: 'live' } },
      }).plan,
    ).toBeNull();
    expect(() =>
      diagnose(
        'restore_last_good',
        { ...evidence, history: history.slice(1, 2) },
        { to_version: 2 },
      ),
    ).toThrow(RepairNotPossible);
    expect(diagnose('restore_last_good', { ...evidence, object: objectAt(1, {}) }).plan).toBeNull();
  });

  it('fieldDiff names changed, added and removed fields only', () => {
    expect(fieldDiff({ a: 1, b: 2, c: [1] }, { a: 1, c: [1], d: 4 })).toEqual({
      b: { from: 2, to: null, removed: true },
      d: { from: null, to: 4 },
    });
  });
});

describe('the repair ledger', () => {
  const record = (id: string): RepairRecord =>
    ({
      _id: id,
      object_id: 'obj_1',
      strategy: 'revalidate',
      status: 'no_action_needed',
      plan: null,
      child_action_id: null,
      result: null,
      completed_at: at,
      updated_at: at,
    }) as unknown as RepairRecord;

  it('chains entries, and names the first one changed or unlinked', () => {
    const first = ledgerEntryOf(record('rep_1'), null);
    const second = ledgerEntryOf(record('rep_2'), first);
    const third = ledgerEntryOf(record('rep_3'), second);
    expect(first._id).toBe(1);
    expect(second.prev_digest).toBe(first.digest);
    expect(firstBrokenEntry([first, second, third])).toBeNull();
    expect(firstBrokenEntry([first, { ...second, outcome: 'repaired' }, third])).toBe(2);
    const relinked = ledgerEntryOf(record('rep_3'), first);
    expect(firstBrokenEntry([first, second, { ...relinked, _id: 3 }])).toBe(3);
  });
});
