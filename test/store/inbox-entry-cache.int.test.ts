import type { CommandStartedEvent, Db, MongoClient } from 'mongodb';
import { newId } from '../../src/lib/ids';
import { createActionInboxRepo } from '../../src/store/action-inbox.repo';
import type { ActionListEntry, ActionListFilter } from '../../src/store/external-actions.repo';
import type { InboxEntry } from '../../src/store/inbox-arrivals';
import {
  CHANGES_CHAIN,
  CHANGES_COLLECTION,
  createInboxEntryCache,
} from '../../src/store/inbox-entry-cache';
import { connectMongo } from '../../src/store/mongo';
import { byIdReader, type ByIdReader } from '../../src/store/reads-by-id';
import { createSlotFeed, type FeedSlot } from '../../src/store/slot-feed';
import { inboxEntry } from '../helpers/inbox-entries';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

type Repo = ReturnType<typeof createActionInboxRepo>;

let client: MongoClient;
const commands: CommandStartedEvent[] = [];
beforeAll(async () => {
  ({ client } = await connectMongo(testMongoUri(), freshDbName('inbox_cache'), {
    monitorCommands: true,
  }));
  client.on('commandStarted', (event) => commands.push(event));
});
afterAll(async () => {
  await client.close();
});

/** A fresh database, and two inboxes on it as two processes (api and worker) have. */
function twoProcesses(): { db: Db; writer: Repo; reader: Repo } {
  const db = client.db(freshDbName('inbox_cache'));
  return { db, writer: createActionInboxRepo(db), reader: createActionInboxRepo(db) };
}

const ids = async (inbox: Repo, filter: ActionListFilter = {}, limit = 50) =>
  (await inbox.page(filter, limit)).map((row) => row.record._id);

const BOB = 'prn_01JBBBBBBBBBBBBBBBBBBBBBBB';
const approvedByBob = (id: string, seq: number): ActionListEntry => ({
  ...inboxEntry(id, seq, 'awaiting_approval'),
  approved_by: [BOB],
});

describe('inbox entries a process keeps between pages', () => {
  it('a page of entries read before reads only the heads, and shows every change another process made since', async () => {
    const { db, writer, reader } = twoProcesses();
    const [stays, approved, halfApproved, rearrives] = [1, 2, 3, 4].map(() => newId('act'));
    for (const id of [stays, approved, halfApproved, rearrives]) {
      await writer.project(inboxEntry(id, 2, 'awaiting_approval'), { fresh: true, arriving: true });
    }
    const bobsInbox = { awaiting: { principal_id: BOB, role: 'member' } };
    expect(await ids(reader)).toEqual([rearrives, halfApproved, approved, stays]);
    expect(await ids(reader, bobsInbox)).toEqual([rearrives, halfApproved, approved, stays]);

    commands.length = 0;
    expect(await ids(reader)).toEqual([rearrives, halfApproved, approved, stays]);
    const read = commands.map((c) => `${c.commandName} ${String(c.command[c.commandName])}`);
    // The arrivals chain's head and its slots, the changes feed's head: no entry read again.
    expect(read).not.toContain('find action_inbox');
    expect(read).toContain(`find ${CHANGES_COLLECTION}`);

    await writer.project(inboxEntry(approved, 3, 'approved'), { fresh: true });
    await writer.project(approvedByBob(halfApproved, 3), { fresh: true });
    // A retry arriving again: its entry is written under a new arrival, listed again.
    await writer.project(inboxEntry(rearrives, 2, 'awaiting_approval'), { arriving: true });
    expect(await ids(reader)).toEqual([rearrives, halfApproved, stays]);
    expect(await ids(reader, bobsInbox)).toEqual([rearrives, stays]);
    const shown = (await reader.page({}, 50)).find((row) => row.record._id === halfApproved);
    expect(shown?.record.seq).toBe(3);
    await db.dropDatabase();
  });

  it('a write whose writer died before listing the change is shown once its retry lists it', async () => {
    const { db, writer, reader } = twoProcesses();
    const [updated, departed] = [newId('act'), newId('act')];
    for (const id of [updated, departed]) {
      await writer.project(inboxEntry(id, 2, 'awaiting_approval'), { fresh: true, arriving: true });
    }
    expect(await ids(reader)).toEqual([departed, updated]);
    // Each first attempt wrote the inbox and died before the changes feed.
    const entries = db.collection<InboxEntry>('action_inbox');
    await entries.updateOne({ _id: updated }, { $set: { seq: 3, approved_by: [BOB] } });
    await db.collection('action_inbox_departures').insertOne({
      _id: departed,
      seq: 3,
      status: 'rejected',
      updated_at: new Date().toISOString(),
    } as never);
    await entries.deleteOne({ _id: departed });
    await writer.project(approvedByBob(updated, 3)); // the retries
    await writer.project(inboxEntry(departed, 3, 'rejected'));
    const rows = await reader.page({}, 50);
    expect(rows.map((row) => row.record._id)).toEqual([updated]);
    expect(rows[0].record.seq).toBe(3);
    await db.dropDatabase();
  });

  it('a process far behind the changes feed forgets what it kept', async () => {
    const { db, writer, reader } = twoProcesses();
    const others = Array.from({ length: 20 }, () => newId('act'));
    const leaves = newId('act');
    for (const id of [leaves, ...others]) {
      await writer.project(inboxEntry(id, 2, 'awaiting_approval'), { fresh: true, arriving: true });
    }
    expect(await ids(reader)).toContain(leaves);
    // More changes than a page catches up on, one slot each, the departure among them.
    await writer.project(inboxEntry(leaves, 3, 'expired'), { fresh: true });
    for (const id of others) await writer.project(inboxEntry(id, 3, 'awaiting_approval'));
    const after = await ids(reader);
    expect(after).not.toContain(leaves);
    expect(after).toHaveLength(others.length);
    await db.dropDatabase();
  });

  it('a process keeps the slots it read: it marks a run of departed arrivals once, then pages past it reading only the heads', async () => {
    const { db, writer, reader } = twoProcesses();
    const old = newId('act');
    const quick = Array.from({ length: 10 }, () => newId('act'));
    const recent = newId('act');
    for (const id of [old, ...quick, recent]) {
      await writer.project(inboxEntry(id, 2, 'awaiting_approval'), { fresh: true, arriving: true });
    }
    for (const id of quick) await writer.project(inboxEntry(id, 3, 'approved'), { fresh: true });
    expect(await ids(reader)).toEqual([recent, old]);
    for (let page = 0; page < 2; page += 1) {
      commands.length = 0;
      expect(await ids(reader)).toEqual([recent, old]);
      const sent = commands.map((c) => `${c.commandName} ${String(c.command[c.commandName])}`);
      // The arrivals chain's head and the changes feed's: no slot, no entry, no mark.
      expect(sent.sort()).toEqual(['find action_inbox_arrivals', `find ${CHANGES_COLLECTION}`]);
    }
    await db.dropDatabase();
  });

  it('an entry read while another page caught up on its change is not kept', async () => {
    const db = client.db(freshDbName('inbox_cache'));
    const inbox = db.collection<InboxEntry>('action_inbox');
    const changes = createSlotFeed(db.collection<FeedSlot>(CHANGES_COLLECTION));
    const id = newId('act');
    await inbox.insertOne({ ...inboxEntry(id, 2, 'awaiting_approval'), arrival: 'first' });
    const listing = { tag: 'first', key: id };
    // A read that, while `holding`, says it has read, then waits to be let go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let readDone!: () => void;
    const hasRead = new Promise<void>((resolve) => (readDone = resolve));
    let holding = false;
    const direct = byIdReader(db);
    const slowReader: ByIdReader = async (col, keys) => {
      const rows = await direct(col, keys);
      if (holding) {
        readDone();
        await held;
      }
      return rows;
    };
    const cache = createInboxEntryCache(changes, inbox, slowReader);

    const at = await cache.catchUp();
    holding = true;
    const slowPage = cache.read([listing], at);
    await hasRead;
    holding = false;
    // While it waits: the entry changes (approved by a second approver), the change is
    // listed, and another page catches up.
    await inbox.updateOne({ _id: id }, { $set: { seq: 3 } });
    await changes.record([{ chains: [CHANGES_CHAIN], entry: { tag: '3', key: id } }]);
    await cache.catchUp();
    release();
    expect((await slowPage)[0]?.seq).toBe(2); // what it read, for its own page
    const later = await cache.read([listing], await cache.catchUp());
    expect(later[0]?.seq).toBe(3);
    await db.dropDatabase();
  });
});
