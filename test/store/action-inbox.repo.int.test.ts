import { MongoClient } from 'mongodb';
import { createActionInboxRepo } from '../../src/store/action-inbox.repo';
import { newId } from '../../src/lib/ids';
import { inboxEntry } from '../helpers/inbox-entries';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

let client: MongoClient;
const dbName = freshDbName('inbox');
beforeAll(async () => {
  client = await MongoClient.connect(testMongoUri());
});
afterAll(async () => {
  await client.db(dbName).dropDatabase();
  await client.close();
});

const record = inboxEntry;

/** The first page of the inbox, newest arrival first (`limit + 1` rows at most). */
const firstPage = async (inbox: ReturnType<typeof createActionInboxRepo>, limit = 10) =>
  (await inbox.page({}, limit)).map((row) => row.record);

describe('the action inbox', () => {
  it('holds what awaits approval, and a late retry of an older record never revives a departed action', async () => {
    const inbox = createActionInboxRepo(client.db(dbName));
    const [a, b] = [newId('act'), newId('act')];
    await inbox.project(record(a, 1, 'proposed')); // never awaited: nothing written
    await inbox.project(record(a, 2, 'awaiting_approval'));
    await inbox.project(record(b, 2, 'awaiting_approval'));
    expect((await firstPage(inbox)).map((r) => r._id)).toEqual([b, a]);

    await inbox.project(record(a, 3, 'approved'));
    await inbox.project(record(a, 2, 'awaiting_approval')); // a late retry of seq 2
    expect((await firstPage(inbox)).map((r) => r._id)).toEqual([b]);
  });

  it('written fresh (first recording, no read): lists an arrival, and a departure of an action never listed stays unlisted', async () => {
    const db = client.db(dbName);
    const inbox = createActionInboxRepo(db);
    const [listed, never] = [newId('act'), newId('act')];
    await inbox.project(record(listed, 2, 'awaiting_approval'), { fresh: true });
    expect((await firstPage(inbox)).map((r) => r._id)).toContain(listed);
    await inbox.project(record(listed, 3, 'approved'), { fresh: true });
    expect((await firstPage(inbox)).map((r) => r._id)).not.toContain(listed);
    await inbox.project(record(never, 3, 'expired'), { fresh: true });
    expect(await db.collection('action_inbox').countDocuments({ _id: never as never })).toBe(0);
  });

  it('an arrival recorded fresh is written without reading, and keeps its place when it changes while awaiting', async () => {
    const monitored = await MongoClient.connect(testMongoUri(), {
      monitorCommands: true,
    });
    try {
      const inbox = createActionInboxRepo(monitored.db(dbName));
      const [warm, first, second] = [newId('act'), newId('act'), newId('act')];
      // This process learns its chains' heads with its first listing (other tests wrote them).
      await inbox.project(record(warm, 2, 'awaiting_approval'), { fresh: true, arriving: true });
      const commands: string[] = [];
      monitored.on('commandStarted', (event) => commands.push(event.commandName));
      await inbox.project(record(first, 2, 'awaiting_approval'), { fresh: true, arriving: true });
      // The entry, then its listing: nothing read, no findAndModify.
      expect(commands).toEqual(['update', 'insert']);
      await inbox.project(record(second, 2, 'awaiting_approval'), { fresh: true, arriving: true });
      // One approval of two: still awaiting, updated in place, so `first` stays below `second`.
      await inbox.project(record(first, 3, 'awaiting_approval'), { fresh: true });
      const listed = await firstPage(inbox);
      expect(listed.map((r) => r._id).slice(0, 2)).toEqual([second, first]);
      expect(listed.find((r) => r._id === first)?.seq).toBe(3);
    } finally {
      await monitored.close();
    }
  });

  it('forgets departures after an hour', async () => {
    const db = client.db(dbName);
    const inbox = createActionInboxRepo(db);
    const id = newId('act');
    await inbox.project(record(id, 2, 'awaiting_approval'));
    await inbox.project(record(id, 3, 'rejected'));
    const departures = db.collection('action_inbox_departures');
    expect(await departures.countDocuments({ _id: id as never })).toBe(1);
    await inbox.pruneDepartures(Date.now() + 2 * 60 * 60_000);
    expect(await departures.countDocuments({ _id: id as never })).toBe(0);
  });

  it('keeps departures out of the collection a page reads, fresh or not', async () => {
    const db = client.db(dbName);
    const inbox = createActionInboxRepo(db);
    const [fresh, retried] = [newId('act'), newId('act')];
    await inbox.project(record(fresh, 2, 'awaiting_approval'), { fresh: true });
    await inbox.project(record(fresh, 3, 'approved'), { fresh: true });
    await inbox.project(record(retried, 2, 'awaiting_approval'));
    await inbox.project(record(retried, 3, 'expired'));
    const listed = db.collection('action_inbox');
    expect(await listed.countDocuments({ _id: { $in: [fresh, retried] } as never })).toBe(0);
    // A late retry of the awaiting record, after the fresh departure, is refused too.
    await inbox.project(record(fresh, 2, 'awaiting_approval'));
    expect((await firstPage(inbox)).map((r) => r._id)).not.toContain(fresh);
  });
});
