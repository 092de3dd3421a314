import { testSealedRecords } from '../../helpers/sealed-records';
import { WitnessFold, WitnessIndex } from '../../../src/domain/witnesses/witness-index';
import { newId } from '../../../src/lib/ids';
import { createRepos } from '../../../src/store';
import type { SessionStepRecord } from '../../../src/store/session-steps.repo';
import { STEP_LEASE_CLOCK_SKEW_MS, STEP_LEASE_MS } from '../../../src/store/step-leases';
import { connectMongo } from '../../../src/store/mongo';
import type { WitnessAction } from '../../../src/store/external-actions.repo';
import type { WorldTask } from '../../../src/store/world-tasks.repo';
import { storedIn } from '../../helpers/collections';
import { freshDbName } from '../../helpers/test-app';
import { testMongoUri } from '../../test-env';

const uri = testMongoUri();

const action = (id: string, seq: number, status: string, context = 'ctx-a'): WitnessAction =>
  ({
    _id: id,
    seq,
    status,
    action_kind: 'notify',
    target: {},
    shared_context_id: context,
    proposed_by: { principal_id: 'prn_1', key_id: 'key_1' },
    approvals: [],
    status_timestamps: {},
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
    decisions: [],
  }) as WitnessAction;

const task = (id: string, version: number, state: WorldTask['state'], context?: string) => ({
  _id: id,
  title: 't',
  state,
  object_refs: [],
  version,
  created_at: '2026-11-24T10:00:00.000Z',
  updated_at: '2026-11-24T10:00:00.000Z',
  ...(context ? { shared_context_id: context } : {}),
});

describe('the witness fold', () => {
  it('keeps the newest version of each record, whatever order the changes arrive in', () => {
    const fold = new WitnessFold();
    fold.apply({ kind: 'action', record: action('act_1', 3, 'approved') });
    fold.apply({ kind: 'action', record: action('act_1', 2, 'awaiting_approval') });
    expect(fold.actions.get('act_1')!.status).toBe('approved');
    expect([...(fold.actionsByStatus.get('approved') ?? [])]).toEqual(['act_1']);
    expect(fold.actionsByStatus.get('awaiting_approval')?.size ?? 0).toBe(0);
    fold.apply({ kind: 'action', record: action('act_1', 4, 'executed') });
    expect(fold.actionsByStatus.get('approved')!.size).toBe(0);
    expect([...fold.actionsByStatus.get('executed')!]).toEqual(['act_1']);

    fold.apply({ kind: 'task', record: task('tsk_1', 2, 'open', 'ctx-a') });
    fold.apply({ kind: 'task', record: task('tsk_1', 3, 'blocked', 'ctx-b') });
    fold.apply({ kind: 'task', record: task('tsk_1', 1, 'done', 'ctx-a') });
    expect(fold.tasks.get('tsk_1')!.state).toBe('blocked');
    expect(fold.context('ctx-a')!.tasks.has('tsk_1')).toBe(false);
    expect(fold.context('ctx-b')!.tasks.has('tsk_1')).toBe(true);
  });

  it('keeps outcomes in time order and reads a window by bisection', () => {
    const fold = new WitnessFold();
    const entry = (id: string, at: string, event: string) => ({
      kind: 'ledger' as const,
      record: {
        _id: id,
        action_id: id,
        seq: 1,
        at,
        event,
        status: event as never,
        action_kind: 'notify' as const,
        shared_context_id: null,
        prev_digest: null,
        digest: `sha256:${id}`,
        reason: null,
      },
    });
    fold.apply(entry('b', '2026-11-24T10:02:00.000Z', 'executed'));
    fold.apply(entry('a', '2026-11-24T10:01:00.000Z', 'failed'));
    fold.apply(entry('c', '2026-11-24T10:03:00.000Z', 'approved'));
    fold.apply(entry('d', '2026-11-24T10:02:30.000Z', 'proposed'));
    fold.apply(entry('a', '2026-11-24T10:01:00.000Z', 'failed'));
    expect(fold.outcomes.items.map((e) => e._id)).toEqual(['a', 'b', 'c']);
    const window = fold.outcomes.between('2026-11-24T10:01:30.000Z', '2026-11-24T10:03:00.000Z');
    expect(window.map((e) => e._id)).toEqual(['b']);
    expect(fold.ledger.size).toBe(4);
  });
});

describe('the witness index', () => {
  it("follows another process's writes through the journal, and a fresh one folds the same", async () => {
    const dbName = freshDbName('witness_index');
    const [a, b] = await Promise.all([connectMongo(uri, dbName), connectMongo(uri, dbName)]);
    try {
      const writer = createRepos(a.db, testSealedRecords());
      const reader = new WitnessIndex({ repos: createRepos(b.db, testSealedRecords()) });

      // Written before any index existed and never journalled: found by the first fold.
      const early = newId('act');
      await storedIn(a.db).actions.insertOne({ ...action(early, 1, 'approved') } as never);
      const first = await reader.current();
      expect(first.actions.get(early)?.status).toBe('approved');

      const late = newId('act');
      await writer.externalActions.project({ ...action(late, 1, 'awaiting_approval') } as never);
      await writer.externalActions.project({ ...action(late, 2, 'approved', 'ctx-a') } as never);
      await writer.worldTasks.project(task(newId('tsk'), 1, 'open', 'ctx-a'));
      await writer.externalEvents.claimMany([
        {
          _id: 'src:1',
          event_id: newId('evt'),
          source_family: 'src',
          source_event_id: '1',
          event_type: 'changed',
          occurred_at: '2026-11-24T10:00:00.000Z',
          received_at: '2026-11-24T10:00:00.000Z',
          world_object_ref: null,
          shared_context_id: 'ctx-a',
          payload: { big: 'x' },
          payload_sha256: '0'.repeat(64),
        },
      ]);

      const caughtUp = await reader.current();
      expect(caughtUp).toBe(first);
      expect(caughtUp.actions.get(late)?.seq).toBe(2);
      const members = caughtUp.context('ctx-a')!;
      expect([members.actions.size, members.tasks.size, members.events.size]).toEqual([2, 1, 1]);
      expect(JSON.stringify([...caughtUp.events.values()])).not.toContain('big');

      // A process that starts now (collections, then the journal) folds to the same state.
      const fresh = await new WitnessIndex({
        repos: createRepos(a.db, testSealedRecords()),
      }).current();
      const summary = (fold: WitnessFold) => ({
        actions: [...fold.actions.values()].sort((x, y) => x._id.localeCompare(y._id)),
        tasks: [...fold.tasks.values()],
        events: [...fold.events.keys()],
      });
      expect(summary(fresh)).toEqual(summary(caughtUp));
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });
});

/** A step record of a session (what the witnesses count needs of it). */
const stepOf = (sessionId: string, step: number) =>
  ({ _id: `${sessionId}:${step}`, session_id: sessionId, step }) as SessionStepRecord;

describe("steps counted from step leases and the sessions' slot chains", () => {
  const uri = testMongoUri();
  let a: Awaited<ReturnType<typeof connectMongo>>;
  let b: Awaited<ReturnType<typeof connectMongo>>;
  beforeEach(async () => {
    const dbName = freshDbName('witness_steps');
    [a, b] = await Promise.all([connectMongo(uri, dbName), connectMongo(uri, dbName)]);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all([a.client.close(), b.client.close()]);
  });

  it("counts another process's steps, journaling a lease per session instead of each step", async () => {
    const writer = createRepos(a.db, testSealedRecords());
    const reader = new WitnessIndex({ repos: createRepos(b.db, testSealedRecords()) });
    expect((await reader.current()).stepCount).toBe(0);
    const journalBefore = await writer.witnessJournal.head();
    for (let n = 1; n <= 20; n += 1) await writer.sessionSteps.insert(stepOf('ses_one', n));
    for (let n = 1; n <= 5; n += 1) await writer.sessionSteps.insert(stepOf('ses_two', n));
    // Two leases (one per session), not 25 step changes.
    expect((await writer.witnessJournal.head()) - journalBefore).toBeLessThanOrEqual(2);
    const fold = await reader.current();
    expect(fold.stepCount).toBe(25);
    expect(fold.newestSteps.get('ses_one')).toBe(20);
    // A process that starts now folds the stored steps to the same count.
    expect(
      (await new WitnessIndex({ repos: createRepos(b.db, testSealedRecords()) }).current())
        .stepCount,
    ).toBe(25);
  });

  it('a process that starts under a lease in force counts the steps written under it later', async () => {
    const writer = createRepos(a.db, testSealedRecords());
    await writer.sessionSteps.insert(stepOf('ses_one', 1));
    const reader = new WitnessIndex({ repos: createRepos(b.db, testSealedRecords()) });
    expect((await reader.current()).stepCount).toBe(1);
    const journalBefore = await writer.witnessJournal.head();
    await writer.sessionSteps.insert(stepOf('ses_one', 2));
    // Written under the lease taken before the reader started: nothing new in the journal.
    expect(await writer.witnessJournal.head()).toBe(journalBefore);
    expect((await reader.current()).stepCount).toBe(2);
  });

  it('stops probing a session once its lease has surely ended, and a new lease brings it back', async () => {
    const writer = createRepos(a.db, testSealedRecords());
    const readerRepos = createRepos(b.db, testSealedRecords());
    const probe = jest.spyOn(readerRepos.sessionSteps, 'newestNumber');
    const reader = new WitnessIndex({ repos: readerRepos });
    await writer.sessionSteps.insert(stepOf('ses_one', 1));
    expect((await reader.current()).stepCount).toBe(1);
    expect(probe).toHaveBeenCalledTimes(1);

    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + STEP_LEASE_MS + STEP_LEASE_CLOCK_SKEW_MS + 1);
    await reader.current(); // the last probe under the ended lease
    expect(probe).toHaveBeenCalledTimes(2);
    await reader.current();
    expect(probe).toHaveBeenCalledTimes(2);

    // The writer's lease has ended too: its next step takes a new one first.
    await writer.sessionSteps.insert(stepOf('ses_one', 2));
    expect((await reader.current()).stepCount).toBe(2);
    expect(probe).toHaveBeenCalledTimes(3);
  });
});
