import {
  emptyMerged,
  mergeEvent,
  mergeEventInto,
  ownedCopy,
  type MergeEvent,
} from '../../../src/domain/external-events/merge';

const event = (
  id: string,
  at: string,
  payload: Record<string, unknown>,
  source = 'erp',
): MergeEvent => ({
  event_id: `evt_${id.padStart(10, '0')}`,
  source_family: source,
  source_event_id: id,
  occurred_at: `2026-01-01T00:00:${at}.000Z`,
  payload,
});

const mergeAll = (events: MergeEvent[]) =>
  events.reduce((state, e) => mergeEvent(state, e).state, emptyMerged());

/** Every ordering of a small list. */
const permutations = <T>(items: T[]): T[][] =>
  items.length <= 1
    ? [items]
    : items.flatMap((item, i) =>
        permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
      );

/** Events over three fields, two of them at the same instant from different sources. */
const fourEvents = [
  event('1', '01', { status: 'draft', owner: 'ada' }),
  event('2', '04', { status: 'review' }),
  event('3', '02', { owner: 'bob', size: 3 }),
  event('4', '04', { size: 5 }, 'crm'),
];

describe('mergeEvent (the reconciliation merge)', () => {
  it('keeps, per field, the value of the newest occurred_at', () => {
    const older = event('1', '01', { status: 'draft', owner: 'ada' });
    const newer = event('2', '02', { status: 'final' });
    const first = mergeEvent(emptyMerged(), older);
    expect(first).toMatchObject({ outcome: 'applied', changed: true });
    const second = mergeEvent(first.state, newer);
    expect(second.outcome).toBe('applied');
    expect(second.state.fields).toEqual({ status: 'final', owner: 'ada' });
    expect(second.state.provenance['status']?.event_id).toBe(newer.event_id);
  });

  it('calls an event stale when every field it sets holds a newer value', () => {
    const state = mergeAll([event('2', '05', { status: 'final' })]);
    const late = mergeEvent(state, event('1', '01', { status: 'draft' }));
    expect(late).toMatchObject({ outcome: 'stale', stale_fields: ['status'], changed: false });
    expect(late.state.fields).toEqual({ status: 'final' });
  });

  it('is idempotent: a re-delivered event changes nothing', () => {
    const once = mergeEvent(emptyMerged(), event('1', '01', { status: 'draft' }));
    const twice = mergeEvent(once.state, event('1', '01', { status: 'draft' }));
    expect(twice).toMatchObject({ changed: false, applied_fields: ['status'] });
    expect(twice.state).toEqual(once.state);
  });

  it('settles a same-time disagreement by the stamp order and flags it, in any arrival order', () => {
    const a = event('a', '03', { status: 'open' }, 'crm');
    const b = event('b', '03', { status: 'closed' }, 'erp');
    const ab = mergeAll([a, b]);
    const ba = mergeAll([b, a]);
    expect(ab.fields).toEqual(ba.fields);
    expect(ab.fields['status']).toBe('closed'); // `erp` > `crm` at the same instant
    expect(ab.provenance['status']?.conflict).toBe(true);
    expect(ba.provenance['status']?.conflict).toBe(true);
    expect(mergeEvent(mergeAll([a]), b).outcome).toBe('conflict');
  });

  it('ends in the same fields and provenance whatever the arrival order', () => {
    const results = permutations(fourEvents).map(mergeAll);
    for (const result of results) {
      expect(result.fields).toEqual(results[0].fields);
      expect(result.provenance).toEqual(results[0].provenance);
    }
    expect(results[0].fields).toEqual({ status: 'review', owner: 'bob', size: 5 });
  });

  it('leaves the state it is given as it was', () => {
    const state = mergeAll([event('1', '01', { status: 'draft' }), event('2', '02', { n: 1 })]);
    const before = JSON.parse(JSON.stringify(state)) as typeof state;
    mergeEvent(state, event('3', '03', { status: 'final', n: 2 }));
    mergeEvent(state, event('4', '02', { n: 9 }, 'aaa'));
    expect(state).toEqual(before);
  });
});

describe('mergeEventInto (one copy per pass)', () => {
  // Four events, a fifth tied with two of them, and a re-delivery.
  const events = [
    ...fourEvents,
    event('5', '04', { size: 6 }, 'erp'),
    event('2', '04', { status: 'review' }),
  ];

  it('gives, event by event, what mergeEvent gives, in every arrival order', () => {
    for (const order of permutations(events.slice(0, 5))) {
      let pure = emptyMerged();
      const owned = ownedCopy(emptyMerged());
      for (const e of [...order, events[5]]) {
        const expected = mergeEvent(pure, e);
        const actual = mergeEventInto(owned, e);
        const { state: expectedState, ...expectedRest } = expected;
        const { state: actualState, ...actualRest } = actual;
        expect(actualRest).toEqual(expectedRest);
        expect(actualState).toEqual(expectedState);
        pure = expected.state;
      }
    }
  });

  it('changes only the copy: the state it was copied from stays as it was', () => {
    const base = mergeAll(events.slice(0, 3));
    const before = JSON.parse(JSON.stringify(base)) as typeof base;
    const owned = ownedCopy(base);
    for (const e of events.slice(3)) mergeEventInto(owned, e);
    expect(base).toEqual(before);
    expect(owned.fields['size']).toBe(6);
    expect(owned.generation).toBeGreaterThan(base.generation);
  });
});
