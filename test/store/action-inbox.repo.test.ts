import { MongoClient } from 'mongodb';
import { createActionInboxRepo } from '../../src/store/action-inbox.repo';
import type { ActionListEntry } from '../../src/store/external-actions.repo';
import { newId } from '../../src/lib/ids';
import { freshDbName } from '../helpers/test-app';

let client: MongoClient;
const dbName = freshDbName('inbox');
beforeAll(async () => {
  client = await MongoClient.connect(process.env['TEST_MONGODB_URI']!);
});
afterAll(async () => {
  await client.db(dbName).dropDatabase();
  await client.close();
});

const record = (id: string, seq: number, status: ActionListEntry['status']) =>
  ({
    _id: id,
    seq,
    status,
    action_kind: 'notify',
    shared_context_id: null,
    proposed_by: { principal_id: 'prn_01JZZZZZZZZZZZZZZZZZZZZZZZ', key_id: 'a1b2c3d4e5f6' },
    approved_by: [],
    eligible: ['*'],
    updated_at: new Date().toISOString(),
  }) as unknown as ActionListEntry;

describe('the action inbox', () => {
  it('holds what awaits approval, and a late retry of an older record never revives a departed action', async () => {
    const inbox = createActionInboxRepo(client.db(dbName));
    const [a, b] = [newId('act'), newId('act')];
    await inbox.project(record(a, 1, 'proposed')); // never awaited: nothing written
    await inbox.project(record(a, 2, 'awaiting_approval'));
    await inbox.project(record(b, 2, 'awaiting_approval'));
    expect((await inbox.list({}, 10)).map((r) => r._id)).toEqual([b, a]);

    await inbox.project(record(a, 3, 'approved'));
    await inbox.project(record(a, 2, 'awaiting_approval')); // a late retry of seq 2
    expect((await inbox.list({}, 10)).map((r) => r._id)).toEqual([b]);
  });

  it('forgets departures after an hour', async () => {
    const db = client.db(dbName);
    const inbox = createActionInboxRepo(db);
    const id = newId('act');
    await inbox.project(record(id, 2, 'awaiting_approval'));
    await inbox.project(record(id, 3, 'rejected'));
    expect(await db.collection('action_inbox').countDocuments({ _id: id as never })).toBe(1);
    await inbox.pruneDepartures(Date.now() + 2 * 60 * 60_000);
    expect(await db.collection('action_inbox').countDocuments({ _id: id as never })).toBe(0);
  });
});
