import type { Db, MongoClient } from 'mongodb';
import { eventRecordOf } from '../../src/domain/external-events/external-events.service';
import { newId } from '../../src/lib/ids';
import { createEventFeed } from '../../src/store/event-feed';
import { createEventHistory } from '../../src/store/event-history';
import type { ExternalEventRecord } from '../../src/store/external-events.repo';
import { createInboxArrivals, type InboxEntry } from '../../src/store/inbox-arrivals';
import { connectMongo } from '../../src/store/mongo';
import { byIdReader, readsByIdOf, type ReadsById } from '../../src/store/reads-by-id';
import { inboxEntry } from '../helpers/inbox-entries';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();
const PAGE = 20;

let client: MongoClient;
let db: Db;
let sent = 0;
beforeAll(async () => {
  ({ client, db } = await connectMongo(uri, freshDbName('reads_by_id'), {
    onCommand: () => (sent += 1),
  }));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** Commands `read` sends, counted by the api's own command counter (`command-counter.ts`). */
async function commandsOf(read: () => Promise<unknown>): Promise<number> {
  const before = sent;
  await read();
  return sent - before;
}

function event(i: number): ExternalEventRecord {
  return eventRecordOf(
    {
      source_family: 'fam',
      source_event_id: `e-${i}`,
      event_type: 'service.status_changed',
      occurred_at: new Date().toISOString(),
      payload: { i },
    },
    new Date().toISOString(),
  );
}

describe('reads by `_id`: one findOne per entry on FerretDB, one find per page on MongoDB', () => {
  it('knows FerretDB by its buildInfo, and a reader asks only before its first read', async () => {
    expect(await readsByIdOf(db)).toBe('each');
    const read = byIdReader(db);
    const col = db.collection<{ _id: string }>('asked_once');
    expect(await commandsOf(() => read(col, ['a']))).toBe(2); // buildInfo, then one findOne
    expect(await commandsOf(() => read(col, ['a']))).toBe(1);
  });

  it.each<ReadsById>(['each', 'together'])(
    '%s: the documents in the order asked, null where none is',
    async (reads) => {
      const col = db.collection<{ _id: string; n: number }>(`things_${reads}`);
      await col.insertMany([1, 2, 3].map((n) => ({ _id: `t${n}`, n })));
      const read = byIdReader(db, reads);
      expect((await read(col, ['t3', 'nope', 't1', 't3'])).map((doc) => doc?.n ?? null)).toEqual([
        3,
        null,
        1,
        3,
      ]);
      expect(await read(col, [])).toEqual([]);
    },
  );

  it('an events history page: one read of its entries on the MongoDB path', async () => {
    const events = db.collection<ExternalEventRecord>('external_events');
    const feed = createEventFeed(db);
    const records = Array.from({ length: 50 }, (_, i) => event(i));
    await feed.record(records);
    await events.insertMany(records);
    const pageCommands = async (reads: ReadsById) => {
      const first = await createEventHistory({ events, feed, readByIds: byIdReader(db) }).list(
        {},
        PAGE,
      );
      // Another process's page: nothing of the first kept.
      const history = createEventHistory({ events, feed, readByIds: byIdReader(db, reads) });
      return commandsOf(() => history.list({}, PAGE, first.next));
    };
    // The cursor's slot (it holds them all), then the page's 21 entries (`limit + 1`) one by
    // one or at once.
    expect(await pageCommands('each')).toBe(1 + PAGE + 1);
    expect(await pageCommands('together')).toBe(1 + 1);
  });

  it('an inbox page: one read of its entries on the MongoDB path', async () => {
    const inbox = db.collection<InboxEntry>('action_inbox');
    const writer = createInboxArrivals(db, inbox, byIdReader(db));
    for (let i = 0; i < 50; i += 1)
      await writer.arrive(inboxEntry(newId('act'), 2, 'awaiting_approval'));
    const pageCommands = async (reads: ReadsById) => {
      const first = await createInboxArrivals(db, inbox, byIdReader(db)).rows({}, PAGE);
      // Another process's page: nothing of the first kept (`inbox-entry-cache.ts`).
      const arrivals = createInboxArrivals(db, inbox, byIdReader(db, reads));
      return commandsOf(() => arrivals.rows({}, PAGE, first[PAGE - 1].next));
    };
    // The changes feed's head, then, each arrival its own slot, the cursor's and the page's
    // 21, then the 21 entries one by one or at once.
    expect(await pageCommands('each')).toBe(1 + 1 + PAGE + 1 + PAGE + 1);
    expect(await pageCommands('together')).toBe(1 + 1 + PAGE + 1 + 1);
  });
});
