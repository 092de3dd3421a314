import { testSealedRecords } from '../../helpers/sealed-records';
import type { Db, MongoClient } from 'mongodb';
import pino from 'pino';
import { ingestBatch } from '../../../src/domain/external-events/external-events.service';
import { createReconciler } from '../../../src/domain/external-events/reconciler';
import { newId } from '../../../src/lib/ids';
import { createRepos, ensureIndexes, type Repos } from '../../../src/store';
import { connectMongo } from '../../../src/store/mongo';
import { readsByIdOf } from '../../../src/store/reads-by-id';
import { storedIn } from '../../helpers/collections';
import { freshDbName } from '../../helpers/test-app';
import { testMongoUri } from '../../test-env';

const OBJECTS = 20;
const BATCH = 500;
const quiet = pino({ level: 'silent' });

let client: MongoClient;
let db: Db;
let repos: Repos;
/** Commands sent, as `<command> <collection>`. */
let sent: string[] = [];
beforeAll(async () => {
  ({ client, db } = await connectMongo(testMongoUri(), freshDbName('ingest_batch'), {
    traceCommand: ({ name, collection }) => {
      sent.push(`${name} ${collection ?? ''}`.trim());
      return undefined;
    },
  }));
  await ensureIndexes(db);
  repos = createRepos(db, testSealedRecords());
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** Commands `work` sends, by `<command> <collection>`. */
async function commandsOf(work: () => Promise<unknown>): Promise<Record<string, number>> {
  sent = [];
  await work();
  const counts: Record<string, number> = {};
  for (const command of sent) counts[command] = (counts[command] ?? 0) + 1;
  return counts;
}

/** What one api process holds: its repositories and its reconciler. */
const processOf = (over: Repos = repos) => ({
  repos: over,
  reconciler: createReconciler({ repos: over, logger: quiet }),
});

async function worldObjects(n = OBJECTS): Promise<string[]> {
  const now = new Date().toISOString();
  const ids = Array.from({ length: n }, () => newId('obj'));
  for (const _id of ids) {
    await repos.worldObjects.insert({
      _id,
      kind: 'service',
      name: _id,
      attributes: {},
      external_state: {},
      version: 1,
      created_at: now,
      updated_at: now,
    });
  }
  return ids;
}

const STATUSES = ['up', 'degraded', 'down'];
/** 500 events about `ids` in turn, later in time as `round` grows (the events bench's batch). */
const batchOf = (ids: string[], tag: string, round = 0) => ({
  events: Array.from({ length: BATCH }, (_, i) => ({
    source_family: 'monitoring',
    source_event_id: `${tag}-${i}`,
    event_type: 'service.status_changed',
    occurred_at: new Date(Date.UTC(2025, 2, 1) + (round * BATCH + i) * 1000).toISOString(),
    world_object_ref: ids[i % ids.length],
    payload: { status: STATUSES[(i + round) % 3], seq: i },
  })),
});

/**
 * What the store holds of `ids`: per object, the projection's revision and fields, its
 * chain's revisions and its history events; each must be exactly one per committed change.
 */
async function storedOf(ids: string[]) {
  const stored = storedIn(db);
  return Promise.all(
    ids.map(async (id) => {
      const object = await stored.worldObjects.findOne({ _id: id });
      const chain = await stored.externalStateRevisions.find({ object_id: id }).toArray();
      const history = await stored.worldHistory.find({ object_id: id }).toArray();
      const state = object!.external_state as { revision: number; fields: unknown };
      return {
        revision: state.revision,
        fields: state.fields,
        chain: chain.map((r) => r.revision).sort((a, b) => a - b),
        history: history.map((h) => h._id).sort(),
        chainHistory: chain.map((r) => r.history._id).sort(),
      };
    }),
  );
}

/** Every object's chain is 1..revision, projected at its newest, one history event each. */
function expectOneOfEverything(states: Awaited<ReturnType<typeof storedOf>>) {
  for (const state of states) {
    expect(state.chain).toEqual(Array.from({ length: state.revision }, (_, i) => i + 1));
    expect(state.history).toEqual(state.chainHistory);
  }
}

async function expectOneOutputPerEvent(tag: string) {
  const events = await storedIn(db)
    .externalEvents.find({ source_event_id: { $regex: `^${tag}-[0-9]+$` } })
    .toArray();
  expect(events.length).toBe(BATCH);
  const outputs = await db
    .collection('external_reconciliations')
    .countDocuments({ _id: { $in: events.map((e) => e.event_id) } } as never);
  expect(outputs).toBe(BATCH);
}

/** The writes of one batch of new events about objects whose state this process holds. */
const BATCH_WRITES = {
  // The events: the feed slots, the claims, the witness journal of both, the outputs.
  'insert external_event_feed': 1,
  'insert external_events': 1,
  'insert witness_payloads': 2,
  'insert witness_slots': 2,
  'insert external_reconciliations': 1,
  // The reconciliation of all 20 objects: one write per collection.
  'insert world_external_state_revisions': 1,
  'insert world_history': 1,
  'update world_objects': 1,
  'insert world_revisions': 1,
};

describe('an ingest batch: one write per collection for all its objects', () => {
  it('500 events about 20 objects: one write per collection, one read by `_id` per object', async () => {
    // Reads by `_id` are one `find` each on FerretDB (its `$in` decodes the whole
    // collection), one `find` with `$in` on MongoDB (`reads-by-id.ts`).
    const each = (await readsByIdOf(db)) === 'each';
    const reads = (n: number) => (each ? n : 1);
    const ingest = processOf();
    // What a process reads once, whatever it ingests (its journal's head, the server's kind).
    await ingestBatch(ingest, batchOf(await worldObjects(), `other-${newId('evt')}`, 0));
    const ids = await worldObjects();
    // Objects the process holds no state of: it reads them and looks past their projections.
    expect(await commandsOf(() => ingestBatch(ingest, batchOf(ids, `first-${ids[0]}`, 0)))).toEqual(
      {
        ...BATCH_WRITES,
        'find world_objects': reads(OBJECTS),
        // Past the projections before the merge, and past the new revisions after the commit.
        'find world_external_state_revisions': 2 * reads(OBJECTS),
      },
    );
    // From then on it reads only the revision after the one it committed: another process
    // may have committed one and projected it under this process's projection.
    for (const round of [1, 2]) {
      expect(
        await commandsOf(() => ingestBatch(ingest, batchOf(ids, `r${round}-${ids[0]}`, round))),
      ).toEqual({ ...BATCH_WRITES, 'find world_external_state_revisions': reads(OBJECTS) });
    }
    const states = await storedOf(ids);
    expectOneOfEverything(states);
    expect(states.map((s) => s.revision)).toEqual(ids.map(() => 3));
  });
});

/** Repositories whose `step` dies (a process stopping there) the first time it is called. */
function dyingAt(step: 'claims' | 'history' | 'projections' | 'outputs'): Repos {
  const die = async (): Promise<never> => {
    throw new Error(`died before the ${step}`);
  };
  if (step === 'claims') {
    return { ...repos, worldExternalState: { ...repos.worldExternalState, claimRevisions: die } };
  }
  if (step === 'history') {
    return { ...repos, worldHistory: { ...repos.worldHistory, appendManyOnce: die } };
  }
  if (step === 'projections') {
    return {
      ...repos,
      worldExternalState: { ...repos.worldExternalState, projectManyById: die },
    };
  }
  return { ...repos, externalEvents: { ...repos.externalEvents, recordReconciliations: die } };
}

describe('a batch sent again leaves exactly one of everything', () => {
  it.each(['claims', 'history', 'projections', 'outputs'] as const)(
    'retried after its process died before the %s',
    async (step) => {
      // The same events once, whole, about other objects: what the store must end with.
      const reference = await worldObjects();
      await ingestBatch(processOf(), batchOf(reference, `ref-${reference[0]}`, 1));
      const expected = (await storedOf(reference)).map((s) => s.fields);

      const ids = await worldObjects();
      const tag = `died-${ids[0]}`;
      // Two batches before, so the objects have a state and a chain to extend.
      const ingest = processOf();
      await ingestBatch(ingest, batchOf(ids, `${tag}-before`, 0));
      await expect(ingestBatch(processOf(dyingAt(step)), batchOf(ids, tag, 1))).rejects.toThrow(
        `died before the ${step}`,
      );
      // Sent again to the process that held the objects' state, then once more to a new one.
      const again = await ingestBatch(ingest, batchOf(ids, tag, 1));
      expect(again).toMatchObject({ created: 0, duplicates: BATCH, rejected: 0 });
      const third = await ingestBatch(processOf(), batchOf(ids, tag, 1));
      expect(third).toMatchObject({ created: 0, duplicates: BATCH, rejected: 0 });
      expect(third.results.map((r) => r.reconciliation)).toEqual(
        again.results.map((r) => r.reconciliation),
      );

      const states = await storedOf(ids);
      expectOneOfEverything(states);
      expect(states.map((s) => s.fields)).toEqual(expected);
      // One revision per batch: the one that died committed once (its retries found its
      // revision, or committed it when it had died before its claims), its retries nothing more.
      expect(states.map((s) => s.revision)).toEqual(ids.map(() => 2));
      await expectOneOutputPerEvent(tag);
    },
  );

  it('sent twice at once, to two processes: one event, one output, one history event per revision', async () => {
    const ids = await worldObjects();
    const tag = `twice-${ids[0]}`;
    const [a, b] = [processOf(), processOf()];
    await ingestBatch(a, batchOf(ids, `${tag}-before`, 0));
    await ingestBatch(b, batchOf(ids, `${tag}-b-before`, 0));
    const answers = await Promise.all([
      ingestBatch(a, batchOf(ids, tag, 1)),
      ingestBatch(b, batchOf(ids, tag, 1)),
    ]);
    expect(answers.map((r) => r.created + r.duplicates)).toEqual([BATCH, BATCH]);
    expect(answers[0].created + answers[1].created).toBe(BATCH);
    const states = await storedOf(ids);
    expectOneOfEverything(states);
    for (const state of states) expect(state.fields).toMatchObject({ seq: expect.any(Number) });
    await expectOneOutputPerEvent(tag);
  });
});
