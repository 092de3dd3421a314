import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createRepos } from '../../src/store';
import type { ActionLedgerEntry, ActionRecord } from '../../src/store/external-actions.repo';

describe('external actions repository: one transition', () => {
  const client = new MongoClient(process.env['TEST_MONGODB_URI']!);
  const db = client.db(`t_action_repo_${randomBytes(3).toString('hex')}`);
  const repos = createRepos(db);
  const actionId = 'act_01TESTRECORDTRANSITION001';

  const entry = (seq: number, digest: string): ActionLedgerEntry =>
    ({
      _id: `${actionId}:${seq}`,
      action_id: actionId,
      seq,
      at: new Date().toISOString(),
      event: seq === 1 ? 'proposed' : 'awaiting_approval',
      status: seq === 1 ? 'proposed' : 'awaiting_approval',
      action_kind: 'notify',
      shared_context_id: null,
      actor: null,
      detail: {},
      prev_digest: null,
      digest,
    }) as unknown as ActionLedgerEntry;
  const snapshot = (seq: number) =>
    ({
      _id: actionId,
      seq,
      status: seq === 1 ? 'proposed' : 'awaiting_approval',
      action_kind: 'notify',
      target: {},
      shared_context_id: null,
      proposed_by: { principal_id: 'p', key_id: 'k' },
      approvals: [],
      decisions: [],
      status_timestamps: {},
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    }) as unknown as Omit<ActionRecord, 'ledger_head'>;

  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('writes the entry, the snapshot pointing at it, and journals both in one slot', async () => {
    const extra = jest.fn(async () => undefined);
    const before = await repos.witnessJournal.head();
    const stored = await repos.externalActions.recordTransition(entry(1, 'd1'), snapshot(1), extra);
    expect(stored.digest).toBe('d1');
    expect(extra).toHaveBeenCalledWith(
      expect.objectContaining({ _id: actionId, ledger_head: 'd1' }),
      true,
    );
    expect(await repos.externalActions.findById(actionId)).toMatchObject({
      seq: 1,
      ledger_head: 'd1',
    });

    expect(await repos.witnessJournal.head()).toBe(before + 1);
    const tail = await repos.witnessJournal.after(before);
    if (!tail.complete) throw new Error('journal incomplete');
    expect(tail.entries).toHaveLength(1);
    expect(tail.entries[0].records.map((r) => r.kind)).toEqual(['ledger', 'action']);
  });

  it('a late retry keeps the stored entry and does not take the snapshot back', async () => {
    await repos.externalActions.recordTransition(
      entry(2, 'd2'),
      snapshot(2),
      async () => undefined,
    );
    // The retry of transition 1 computed another digest: the stored one stands, and the
    // extra writes are told it is a retry (they read before writing).
    const extra = jest.fn(async () => undefined);
    const retried = await repos.externalActions.recordTransition(
      entry(1, 'other'),
      snapshot(1),
      extra,
    );
    expect(retried.digest).toBe('d1');
    expect(extra).toHaveBeenCalledWith(expect.objectContaining({ seq: 1 }), false);
    expect(await repos.externalActions.findById(actionId)).toMatchObject({
      seq: 2,
      ledger_head: 'd2',
    });
  });
});
