import { testSealedRecords } from '../helpers/sealed-records';
import type { Db, MongoClient } from 'mongodb';
import { eventRecordOf } from '../../src/domain/external-events/external-events.service';
import { createRepos } from '../../src/store';
import type { ExternalEventRecord } from '../../src/store/external-events.repo';
import { connectMongo } from '../../src/store/mongo';
import type { JournalChange } from '../../src/store/witness-journal.repo';
import type { WorldTask } from '../../src/store/world-tasks.repo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

let client: MongoClient;
let db: Db;
beforeAll(async () => {
  ({ client, db } = await connectMongo(uri, freshDbName('witness_recorder')));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

const event = (id: string): ExternalEventRecord =>
  eventRecordOf(
    {
      source_family: 'fam',
      source_event_id: id,
      event_type: 'service.status_changed',
      occurred_at: new Date().toISOString(),
      payload: {},
    },
    new Date().toISOString(),
  );

/** The changes of every kept slot, in order. */
async function journaled(repos: ReturnType<typeof createRepos>): Promise<JournalChange[][]> {
  return (await repos.witnessJournal.kept()).entries.map((entry) => entry.records);
}

describe('witness recorder: each stored change journaled once, after its write', () => {
  it('journals what the repositories stored, and nothing for a claim refused', async () => {
    const repos = createRepos(db, testSealedRecords());
    const task: WorldTask = {
      _id: 'tsk_1',
      title: 'check',
      state: 'open',
      object_refs: [],
      version: 1,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    };
    await repos.worldTasks.project(task);
    const first = event('e-1');
    expect(await repos.externalEvents.claim(first)).toBe(true);
    expect(await repos.externalEvents.claim(event('e-1'))).toBe(false);
    const slots = await journaled(repos);
    expect(slots).toHaveLength(2);
    expect(slots[0]).toEqual([{ kind: 'task', record: task }]);
    expect(slots[1]).toEqual([
      { kind: 'event', record: expect.objectContaining({ event_id: first.event_id }) },
    ]);
    expect(slots[1][0].record).not.toHaveProperty('payload');
  });

  it("claimMany appends inside the caller's gate, the created events only", async () => {
    const repos = createRepos(client.db(freshDbName('witness_recorder_gate')), testSealedRecords());
    await repos.externalEvents.claim(event('dup'));
    let inGate = 0;
    const headsInGate: number[] = [];
    const results = await repos.externalEvents.claimMany(
      [event('new-1'), event('dup'), event('new-2')],
      async (write) => {
        inGate += 1;
        const answer = await write();
        // The journal holds the batch's slot before the gate lets the write go.
        headsInGate.push(await repos.witnessJournal.head());
        inGate -= 1;
        return answer;
      },
    );
    expect(results.map((result) => result.status)).toEqual(['created', 'duplicate', 'created']);
    expect(inGate).toBe(0);
    expect(headsInGate).toEqual([2]);
    const slots = await journaled(repos);
    expect(
      slots[1].map((change) => (change.record as ExternalEventRecord).source_event_id),
    ).toEqual(['new-1', 'new-2']);
  });
});
