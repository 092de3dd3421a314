import type { CommandStartedEvent, Db, MongoClient } from 'mongodb';
import { eventRecordOf } from '../../src/domain/external-events/external-events.service';
import { createEventFeed, FEED_COLLECTION } from '../../src/store/event-feed';
import {
  decodeHistoryCursor,
  encodeHistoryCursor,
  type HistoryPosition,
} from '../../src/store/event-history';
import {
  createExternalEventsRepo,
  type EventListFilter,
  type ExternalEventRecord,
} from '../../src/store/external-events.repo';
import { connectMongo } from '../../src/store/mongo';
import { createWitnessJournalRepo } from '../../src/store/witness-journal.repo';
import { journaledEvents } from '../../src/store/witness-recorder';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

type Repo = ReturnType<typeof createExternalEventsRepo>;

/** One "api process": its own connection and repository (own feed heads and queue). */
async function openProcesses(dbName: string, count: number) {
  const opened = await Promise.all(
    Array.from({ length: count }, () => connectMongo(uri, dbName, { monitorCommands: true })),
  );
  return opened.map(({ client, db }) => ({
    client,
    db,
    repo: journaledEvents(createExternalEventsRepo(db), createWitnessJournalRepo(db)),
  }));
}

async function closeAll(processes: { client: MongoClient; db: Db }[]): Promise<void> {
  await processes[0].db.dropDatabase();
  for (const { client } of processes) await client.close();
}

let sequence = 0;
/** A record as the ingest route builds it; `family`/`object` vary the filters. */
function record(family: string, object?: string, sourceEventId?: string): ExternalEventRecord {
  sequence += 1;
  return eventRecordOf(
    {
      source_family: family,
      source_event_id: sourceEventId ?? `e-${sequence}`,
      event_type: 'service.status_changed',
      occurred_at: new Date().toISOString(),
      ...(object ? { world_object_ref: object } : {}),
      payload: { seq: sequence },
    },
    new Date().toISOString(),
  );
}

/** Every page of a filter, `limit` at a time; the event ids in order. */
async function readAll(repo: Repo, filter: EventListFilter, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let after: HistoryPosition | undefined;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page = await repo.list(filter, limit, after);
    seen.push(...page.items.map((event) => event.event_id));
    expect(page.items.length).toBeLessThanOrEqual(limit);
    if (!page.next) {
      expect(page.more).toBe(false);
      return seen;
    }
    after = page.next;
  }
  throw new Error('history did not end');
}

const sorted = (ids: string[]) => [...ids].sort();

describe('events history (the feed)', () => {
  it('writes one feed insert per ingest call; reads a page by `_id` alone: no other filter, no sort, no count', async () => {
    const processes = await openProcesses(freshDbName('events_history_ids'), 1);
    const { client, repo } = processes[0];
    try {
      const commands: CommandStartedEvent[] = [];
      const listen = (event: CommandStartedEvent) => commands.push(event);
      client.on('commandStarted', listen);
      for (let call = 0; call < 6; call += 1) {
        await repo.claimMany(
          Array.from({ length: 20 }, (_, i) => record(`fam${i % 2}`, `obj-${i % 3}`)),
        );
      }
      // The feed costs one insert per ingest call (six chains' slots), and no read.
      const feedCommands = commands.filter(({ command }) =>
        Object.values(command).includes(FEED_COLLECTION),
      );
      expect(feedCommands.map(({ commandName }) => commandName)).toEqual(Array(6).fill('insert'));
      expect(feedCommands.map(({ command }) => (command.documents as unknown[]).length)).toEqual(
        Array(6).fill(6),
      );
      // The first read asks the server how it reads by `_id` (once per client).
      await repo.list({}, 1);
      commands.length = 0;
      const first = await repo.list({}, 25);
      await repo.list({}, 25, first.next);
      await repo.list({ source_family: 'fam1' }, 10);
      await repo.list({ world_object_ref: 'obj-2' }, 10);
      await repo.list({ source_family: 'fam0', world_object_ref: 'obj-1' }, 5);
      client.off('commandStarted', listen);

      expect(commands.length).toBeGreaterThan(0);
      for (const { commandName, command } of commands) {
        expect(commandName).toBe('find');
        expect(Object.keys(command.filter as object)).toEqual(['_id']);
        expect(typeof (command.filter as { _id: unknown })._id).toBe('string');
        expect(command.sort).toBeUndefined();
      }
    } finally {
      await closeAll(processes);
    }
  });

  it('pages never skip or repeat an event across ingests from several processes, duplicates listed once', async () => {
    const processes = await openProcesses(freshDbName('events_history_paging'), 3);
    try {
      const created: ExternalEventRecord[] = [];
      // Each process ingests 8 calls of 7 events at once; every third call repeats an event
      // ingested before (a duplicate: its key is taken, its new event id never stored).
      await Promise.all(
        processes.map(async ({ repo }, p) => {
          let previous: ExternalEventRecord[] = [];
          for (let call = 0; call < 8; call += 1) {
            const records = Array.from({ length: 7 }, (_, i) =>
              record(`fam${p}`, i % 2 === 0 ? `obj-${i % 4}` : undefined),
            );
            if (call % 3 === 2) {
              records.push(record(`fam${p}`, undefined, previous[0].source_event_id));
            }
            previous = records;
            const results = await repo.claimMany(records);
            records.forEach((r, i) => {
              if (results[i].status === 'created') created.push(r);
            });
          }
        }),
      );
      const reader = processes[0].repo;
      const all = await readAll(reader, {}, 9);
      expect(all.length).toBe(created.length);
      expect(sorted(all)).toEqual(sorted(created.map((r) => r.event_id)));

      // A fresh process (no heads remembered) reads the same; one process's own events come
      // newest recorded first, which for one process is newest id first.
      const [late] = await openProcesses(processes[0].db.databaseName, 1);
      try {
        expect(await readAll(late.repo, {}, 50)).toEqual(all);
      } finally {
        await late.client.close();
      }
      const family = await readAll(reader, { source_family: 'fam1' }, 4);
      const familyIds = created.filter((r) => r.source_family === 'fam1').map((r) => r.event_id);
      expect(family).toEqual([...familyIds].reverse());
      for (const filter of [
        { world_object_ref: 'obj-2' },
        { source_family: 'fam2', world_object_ref: 'obj-0' },
      ] as EventListFilter[]) {
        const expected = created.filter(
          (r) =>
            r.world_object_ref === filter.world_object_ref &&
            (!filter.source_family || r.source_family === filter.source_family),
        );
        const listed = await readAll(reader, filter, 3);
        expect(sorted(listed)).toEqual(sorted(expected.map((r) => r.event_id)));
        // Each chain is claimed on its own: one process's events keep their recorded order.
        for (const family of ['fam0', 'fam1', 'fam2']) {
          const own = expected.filter((r) => r.source_family === family).map((r) => r.event_id);
          expect(listed.filter((id) => own.includes(id))).toEqual([...own].reverse());
        }
      }

      // Paging while others ingest: what existed when paging began is listed exactly once.
      const seen: string[] = [];
      let page = await reader.list({}, 10);
      seen.push(...page.items.map((r) => r.event_id));
      while (page.next) {
        await processes[1].repo.claimMany([record('fam1'), record('fam2', 'obj-1')]);
        page = await reader.list({}, 10, page.next);
        seen.push(...page.items.map((r) => r.event_id));
      }
      expect(seen).toEqual(all);
    } finally {
      await closeAll(processes);
    }
  });

  it('skips a feed entry whose event was never written; the retry lists it once', async () => {
    const processes = await openProcesses(freshDbName('events_history_orphan'), 1);
    const { db, repo } = processes[0];
    try {
      const before = record('fam');
      await repo.claimMany([before]);
      // An ingest that died after its feed entries, before its events.
      const lost = record('fam', 'obj-1', 'lost-1');
      await createEventFeed(db).record([lost]);
      expect((await repo.list({}, 10)).items.map((r) => r.event_id)).toEqual([before.event_id]);
      expect((await repo.list({ world_object_ref: 'obj-1' }, 10)).items).toEqual([]);

      // Its retry mints a new event id and lists it again: one event, listed once.
      const retry = record('fam', 'obj-1', 'lost-1');
      expect(await repo.claimMany([retry])).toEqual([{ status: 'created' }]);
      const again = record('fam', 'obj-1', 'lost-1');
      expect(await repo.claim(again)).toBe(false);
      expect(await readAll(repo, {}, 1)).toEqual([retry.event_id, before.event_id]);
      expect(await readAll(repo, { world_object_ref: 'obj-1' }, 1)).toEqual([retry.event_id]);
    } finally {
      await closeAll(processes);
    }
  });

  it('a page of events this process read before reads only the chain head; an event written after its listing is read again until it is there', async () => {
    const processes = await openProcesses(freshDbName('events_history_kept'), 1);
    const { client, db, repo } = processes[0];
    try {
      const events = Array.from({ length: 5 }, () => record('fam', 'obj-k'));
      await repo.claimMany(events);
      // An ingest between its feed entry and its event.
      const late = record('fam', 'obj-k');
      await createEventFeed(db).record([late]);
      expect((await repo.list({}, 10)).items).toHaveLength(5);
      const at = new Date().toISOString();
      await repo.recordReconciliations([
        {
          _id: events[0].event_id,
          event_key: events[0]._id,
          outcome: 'applied',
          generation: 1,
          revision: 1,
          reconciled_at: at,
        },
      ]);
      const ids = events.map((event) => event.event_id);
      expect([...(await repo.outcomesOf(ids)).keys()]).toEqual([events[0].event_id]);

      const commands: string[] = [];
      const listen = ({ commandName, command }: CommandStartedEvent) =>
        commands.push(`${commandName} ${String(command[commandName])}`);
      client.on('commandStarted', listen);
      expect((await repo.list({}, 10)).items).toHaveLength(5);
      expect(commands).toEqual([`find ${FEED_COLLECTION}`, 'find external_events']); // head, `late`
      commands.length = 0;
      // The outcomes not written yet are read again; the written one is kept.
      expect([...(await repo.outcomesOf(ids)).keys()]).toEqual([events[0].event_id]);
      expect(commands).toEqual(Array(4).fill('find external_reconciliations'));
      client.off('commandStarted', listen);

      await db.collection<ExternalEventRecord>('external_events').insertOne(late);
      const newestFirst = [late, ...[...events].reverse()].map((event) => event.event_id);
      expect((await repo.list({}, 10)).items.map((event) => event.event_id)).toEqual(newestFirst);
    } finally {
      await closeAll(processes);
    }
  });

  it('cursors: a feed position of the filter chain; anything else is a 422', () => {
    const feed: HistoryPosition = { chain: 'object', slot: -2, index: 7 };
    const cursor = encodeHistoryCursor(feed);
    expect(decodeHistoryCursor(cursor, { world_object_ref: 'obj-1' })).toEqual(feed);
    expect(() => decodeHistoryCursor(cursor, { source_family: 'fam' })).toThrow();
    expect(() => decodeHistoryCursor(cursor, {})).toThrow();
    for (const forged of [
      'evt_01M89HKV9PJXR3R5XTMRETNX26',
      'all~1.5~0',
      'all~1~-1',
      'all~a~0',
      'nope~1~0',
      'x',
      // A cursor from before the text formats (base64url JSON).
      Buffer.from(JSON.stringify(['all', 1, 0])).toString('base64url'),
    ]) {
      expect(() => decodeHistoryCursor(forged, {})).toThrow();
    }
  });
});
