import type { CommandStartedEvent, Db, MongoClient } from 'mongodb';
import { newId } from '../../src/lib/ids';
import {
  createActionInboxRepo,
  decodeInboxCursor,
  encodeInboxCursor,
  type InboxPosition,
} from '../../src/store/action-inbox.repo';
import type { ActionListEntry, ActionListFilter } from '../../src/store/external-actions.repo';
import { ARRIVALS_COLLECTION } from '../../src/store/inbox-arrivals';
import { connectMongo } from '../../src/store/mongo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();
type Repo = ReturnType<typeof createActionInboxRepo>;

let client: MongoClient;
let db: Db;
const commands: CommandStartedEvent[] = [];
beforeAll(async () => {
  ({ client, db } = await connectMongo(uri, freshDbName('inbox_arrivals'), {
    monitorCommands: true,
  }));
  client.on('commandStarted', (event) => commands.push(event));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** A fresh database's inbox. */
async function freshInbox(): Promise<{ inbox: Repo; db: Db }> {
  const own = client.db(freshDbName('inbox_arrivals'));
  return { inbox: createActionInboxRepo(own), db: own };
}

const PROPOSER = 'prn_01JZZZZZZZZZZZZZZZZZZZZZZZ';
function entry(
  id: string,
  seq: number,
  status: ActionListEntry['status'],
  more: Partial<ActionListEntry> = {},
): ActionListEntry {
  return {
    _id: id,
    seq,
    status,
    action_kind: 'notify',
    shared_context_id: null,
    proposed_by: { principal_id: PROPOSER, key_id: 'a1b2c3d4e5f6' },
    approved_by: [],
    eligible: ['*'],
    updated_at: new Date().toISOString(),
    ...more,
  } as unknown as ActionListEntry;
}

/** Every page of `filter`, `limit` at a time, running `between` after each page. */
async function readAll(
  inbox: Repo,
  filter: ActionListFilter,
  limit: number,
  between: (page: number) => Promise<void> = async () => {},
): Promise<string[]> {
  const seen: string[] = [];
  let after: InboxPosition | undefined;
  for (let page = 0; page < 1000; page += 1) {
    const rows = await inbox.page(filter, limit, after);
    seen.push(...rows.slice(0, limit).map((row) => row.record._id));
    if (rows.length <= limit) return seen;
    // Through the cursor codec, as the api does.
    after = decodeInboxCursor(encodeInboxCursor(rows[limit - 1].next), filter);
    await between(page);
  }
  throw new Error('paging did not end');
}

describe('the inbox arrivals feed', () => {
  it('pages never skip or repeat across departures and arrivals between pages; reads by `_id` only', async () => {
    const { inbox, db: own } = await freshInbox();
    const ids = Array.from({ length: 40 }, () => newId('act'));
    for (const id of ids.slice(0, 20)) {
      await inbox.project(entry(id, 2, 'awaiting_approval'), { fresh: true });
    }
    // Twenty at once: their listings share slots, as concurrent workflows' do.
    await Promise.all(
      ids.slice(20).map((id) => inbox.project(entry(id, 2, 'awaiting_approval'), { fresh: true })),
    );
    // An update while awaiting (an approval of two) keeps the action where it arrived.
    await inbox.project(entry(ids[3], 3, 'awaiting_approval', { approved_by: ['prn_x'] }));
    const departed = new Set<string>();
    const arrived: string[] = [];
    commands.length = 0;
    const seen = await readAll(inbox, {}, 3, async (page) => {
      // Between pages: one seen and one not yet seen leave, a new one arrives.
      for (const id of [ids[39 - page * 3], ids[page]]) {
        if (departed.has(id)) continue;
        departed.add(id);
        await inbox.project(entry(id, 4, 'approved'), { fresh: true });
      }
      const late = newId('act');
      arrived.push(late);
      await inbox.project(entry(late, 2, 'awaiting_approval'), { fresh: true });
    });
    expect(new Set(seen).size).toBe(seen.length); // never repeats
    for (const id of ids) {
      // Never skips one that stayed; one that left before its turn is not listed after.
      if (!departed.has(id)) expect(seen).toContain(id);
    }
    for (const id of arrived) expect(seen).not.toContain(id); // arrivals go above the cursor
    // Newest arrival first: the sequential arrivals in reverse.
    const sequential = seen.filter((id) => ids.slice(0, 20).includes(id));
    expect(sequential).toEqual([...sequential].sort().reverse());
    // A first page now: the newest arrivals on top.
    expect((await inbox.page({}, 2)).map((row) => row.record._id)).toEqual(
      arrived.slice(-3).reverse(),
    );

    const reads = commands.filter((c) => c.commandName === 'find');
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(Object.keys(read.command['filter'] as object)).toEqual(['_id']);
      expect(typeof (read.command['filter'] as { _id: unknown })._id).toBe('string');
      expect(read.command['sort']).toBeUndefined();
    }
    expect(commands.filter((c) => ['aggregate', 'count'].includes(c.commandName))).toEqual([]);
    await own.dropDatabase();
  });

  it('filters by context, proposer, kind and awaiting-me as the scan did', async () => {
    const { inbox, db: own } = await freshInbox();
    const bob = 'prn_01JBOBBBBBBBBBBBBBBBBBBBBB';
    const made: ActionListEntry[] = [];
    for (let i = 0; i < 30; i += 1) {
      const made1 = entry(newId('act'), 2, 'awaiting_approval', {
        shared_context_id: i % 3 === 0 ? 'ctx-a' : 'ctx-b',
        action_kind: (i % 2 === 0 ? 'notify' : 'world.update_object') as never,
        proposed_by: { principal_id: i % 5 === 0 ? bob : PROPOSER, key_id: 'a1b2c3d4e5f6' },
        eligible: i % 4 === 0 ? ['role:operator'] : ['*'],
        approved_by: i % 7 === 0 ? [bob] : [],
      });
      made.push(made1);
      await inbox.project(made1, { fresh: true });
    }
    const gone = made.filter((_, i) => i % 6 === 1);
    for (const row of gone) await inbox.project({ ...row, seq: 3, status: 'rejected' });
    const awaiting = made.filter((row) => !gone.includes(row)).reverse();
    const expectIds = (keep: (row: ActionListEntry) => boolean) =>
      awaiting.filter(keep).map((row) => row._id);
    const cases: [ActionListFilter, (row: ActionListEntry) => boolean][] = [
      [{ shared_context_id: 'ctx-a' }, (row) => row.shared_context_id === 'ctx-a'],
      [{ proposed_by: bob }, (row) => row.proposed_by.principal_id === bob],
      [{ action_kind: 'notify' }, (row) => row.action_kind === 'notify'],
      [
        { shared_context_id: 'ctx-b', action_kind: 'world.update_object' },
        (row) => row.shared_context_id === 'ctx-b' && row.action_kind === 'world.update_object',
      ],
      [
        { awaiting: { principal_id: bob, role: 'member' } },
        (row) =>
          row.proposed_by.principal_id !== bob &&
          !row.approved_by!.includes(bob) &&
          row.eligible!.includes('*'),
      ],
      [{ shared_context_id: 'ctx-none' }, () => false],
    ];
    for (const [filter, keep] of cases) {
      expect(await readAll(inbox, filter, 4)).toEqual(expectIds(keep));
    }
    await own.dropDatabase();
  });

  it('a late retry never revives; a retry lists a half-done arrival once and finishes a half-done departure', async () => {
    const { inbox, db: own } = await freshInbox();
    const listed = own.collection<{ _id: string }>('action_inbox');
    const [left, half, stuck] = [newId('act'), newId('act'), newId('act')];
    await inbox.project(entry(left, 2, 'awaiting_approval'), { fresh: true });
    await inbox.project(entry(left, 3, 'expired'), { fresh: true });
    await inbox.project(entry(left, 2, 'awaiting_approval')); // a late retry of seq 2
    expect(await readAll(inbox, {}, 5)).not.toContain(left);

    // An arrival whose writer died after the entry's write, before its listing.
    await listed.insertOne({
      ...entry(half, 2, 'awaiting_approval'),
      arrival: 'deadbeef',
    } as never);
    expect(await readAll(inbox, {}, 5)).not.toContain(half);
    await inbox.project(entry(half, 2, 'awaiting_approval'), { arriving: true }); // its retry
    await inbox.project(entry(half, 2, 'awaiting_approval'), { arriving: true }); // and another
    expect((await readAll(inbox, {}, 1)).filter((id) => id === half)).toEqual([half]);

    // A departure whose writer died after remembering it, before removing the entry.
    await inbox.project(entry(stuck, 2, 'awaiting_approval'), { fresh: true });
    await own.collection('action_inbox_departures').insertOne({
      _id: stuck,
      seq: 3,
      status: 'rejected',
      updated_at: new Date().toISOString(),
    } as never);
    await inbox.project(entry(stuck, 3, 'rejected')); // its retry
    expect(await listed.countDocuments({ _id: stuck })).toBe(0);
    expect(await readAll(inbox, {}, 5)).toEqual([half]);
    await own.dropDatabase();
  });

  it('marks runs of slots whose actions all left, so a later page passes them in one read', async () => {
    const { inbox, db: own } = await freshInbox();
    const old = newId('act');
    await inbox.project(entry(old, 2, 'awaiting_approval'), { fresh: true });
    const quick = Array.from({ length: 30 }, () => newId('act'));
    for (const id of quick) await inbox.project(entry(id, 2, 'awaiting_approval'), { fresh: true });
    const recent = newId('act');
    await inbox.project(entry(recent, 2, 'awaiting_approval'), { fresh: true });
    for (const id of quick) await inbox.project(entry(id, 3, 'approved'), { fresh: true });

    const slotReads = async (read: () => Promise<unknown>) => {
      commands.length = 0;
      await read();
      return commands.filter(
        (c) => c.commandName === 'find' && c.command['find'] === ARRIVALS_COLLECTION,
      ).length;
    };
    const first = await slotReads(async () =>
      expect(await readAll(inbox, {}, 10)).toEqual([recent, old]),
    );
    expect(first).toBeGreaterThanOrEqual(32); // every slot once
    const second = await slotReads(async () =>
      expect(await readAll(inbox, {}, 10)).toEqual([recent, old]),
    );
    expect(second).toBeLessThanOrEqual(5); // head probes, `recent`, the mark, `old`, the end
    // New arrivals and departures above the marked run: still exact.
    const next = newId('act');
    await inbox.project(entry(next, 2, 'awaiting_approval'), { fresh: true });
    await inbox.project(entry(recent, 3, 'rejected'), { fresh: true });
    expect(await readAll(inbox, {}, 1)).toEqual([next, old]);
    await inbox.project(entry(old, 3, 'expired'), { fresh: true });
    expect(await readAll(inbox, {}, 1)).toEqual([next]);
    await own.dropDatabase();
  });

  it('cursors: a place in the chain the filter walks; anything else is a 422', () => {
    const place: InboxPosition = { chain: 'all', slot: 1, index: 0 };
    expect(decodeInboxCursor(encodeInboxCursor(place), {})).toEqual(place);
    expect(() =>
      decodeInboxCursor(encodeInboxCursor(place), { shared_context_id: 'ctx-a' }),
    ).toThrow();
    // An action id, the cursor of every other action list, is not a place in a chain.
    expect(() => decodeInboxCursor(newId('act'), {})).toThrow();
  });
});
