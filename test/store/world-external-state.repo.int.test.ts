import type { Db, MongoClient } from 'mongodb';
import { newId } from '../../src/lib/ids';
import { connectMongo } from '../../src/store/mongo';
import {
  createWorldExternalStateRepo,
  revisionRecord,
  type ExternalState,
  type WorldExternalStateRepo,
} from '../../src/store/world-external-state.repo';
import {
  createWorldHistoryRepo,
  type WorldHistoryEvent,
  type WorldHistoryRepo,
} from '../../src/store/world-history.repo';
import {
  createWorldRevisionsRepo,
  type WorldRevisionsRepo,
} from '../../src/store/world-revisions.repo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

let client: MongoClient;
let db: Db;
/** Commands sent, as `<command> <collection>`. */
let sent: string[] = [];
beforeAll(async () => {
  ({ client, db } = await connectMongo(uri, freshDbName('world_external_state'), {
    traceCommand: ({ name, collection }) => {
      sent.push(`${name} ${collection ?? ''}`.trim());
      return undefined;
    },
  }));
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** Commands `write` sends, by `<command> <collection>`. */
async function commandsOf(write: () => Promise<unknown>): Promise<Record<string, number>> {
  sent = [];
  await write();
  const counts: Record<string, number> = {};
  for (const command of sent) counts[command] = (counts[command] ?? 0) + 1;
  return counts;
}

const state = (revision: number, fields: Record<string, unknown> = {}): ExternalState => ({
  revision,
  fields,
  provenance: {},
  generation: revision,
  observed_generation: revision,
  conditions: [],
  last_event_id: null,
  updated_at: new Date().toISOString(),
});

const historyOf = (objectId: string): WorldHistoryEvent => ({
  _id: newId('evt'),
  kind: 'object.external_state_changed',
  object_id: objectId,
  at: new Date().toISOString(),
  change: {},
});

describe('the external state chain written in bulk (one command per collection)', () => {
  let revisions: WorldRevisionsRepo;
  let repo: WorldExternalStateRepo;
  let history: WorldHistoryRepo;
  beforeAll(() => {
    revisions = createWorldRevisionsRepo(db);
    repo = createWorldExternalStateRepo(db, revisions);
    history = createWorldHistoryRepo(db, revisions);
  });

  it('an unordered insert of revisions: a taken revision refuses only itself, the others commit', async () => {
    const ids = Array.from({ length: 5 }, () => newId('obj'));
    const record = (i: number, tag: string) =>
      revisionRecord(ids[i], state(1, { tag }), historyOf(ids[i]), new Date().toISOString());
    // Revisions 1 of objects 1 and 3 are committed by another writer first.
    expect(await repo.claimRevisions([record(1, 'other'), record(3, 'other')])).toEqual([
      true,
      true,
    ]);
    let won: boolean[] = [];
    expect(
      await commandsOf(async () => {
        won = await repo.claimRevisions(ids.map((_, i) => record(i, 'mine')));
      }),
    ).toEqual({ 'insert world_external_state_revisions': 1 });
    expect(won).toEqual([true, false, true, false, true]);
    const stored = await repo.findRevisions(ids.map((id) => [id, 1] as const));
    expect(stored.map((r) => r?.state.fields['tag'])).toEqual([
      'mine',
      'other',
      'mine',
      'other',
      'mine',
    ]);
    // Sent again whole (a retried batch): every revision is taken, nothing is written twice.
    expect(await repo.claimRevisions(ids.map((_, i) => record(i, 'again')))).toEqual(
      ids.map(() => false),
    );
    expect(
      await db
        .collection('world_external_state_revisions')
        .countDocuments({ object_id: { $in: ids } }),
    ).toBe(5);
    expect(await repo.claimRevisions([])).toEqual([]);
  });

  it('history events appended in one insert, once each however often they are sent', async () => {
    const objectId = newId('obj');
    const events = Array.from({ length: 4 }, () => historyOf(objectId));
    await history.appendManyOnce(events.slice(1, 3));
    expect(await commandsOf(() => history.appendManyOnce(events))).toEqual({
      'insert world_history': 1,
    });
    await history.appendManyOnce([...events, ...events]);
    const stored = await db
      .collection<WorldHistoryEvent>('world_history')
      .find({ object_id: objectId })
      .toArray();
    expect(stored.map((e) => e._id).sort()).toEqual(events.map((e) => e._id).sort());
  });

  it('projections of many objects in one update and one world revision', async () => {
    const now = new Date().toISOString();
    const ids = Array.from({ length: 6 }, () => newId('obj'));
    await db.collection('world_objects').insertMany(
      ids.map((_id) => ({
        _id,
        kind: 'service',
        name: _id,
        attributes: { keep: true },
        external_state: {},
        version: 1,
        created_at: now,
        updated_at: now,
      })) as never[],
    );
    const before = await revisions.current();
    expect(
      await commandsOf(() =>
        repo.projectManyById(ids.map((id, i) => [id, state(i + 1, { i })] as const)),
      ),
    ).toMatchObject({ 'update world_objects': 1, 'insert world_revisions': 1 });
    expect(await revisions.current()).toBe(before + 1);
    expect(await revisions.objectsChanged(before, before + 1)).toEqual(ids);
    const objects = await repo.findObjects([...ids, 'obj_missing']);
    expect(objects.map((o) => o?.external_state?.revision ?? null)).toEqual([
      1,
      2,
      3,
      4,
      5,
      6,
      null,
    ]);
    const full = await db.collection('world_objects').findOne({ _id: ids[0] } as never);
    expect(full).toMatchObject({ attributes: { keep: true }, version: 1 });
  });

  it('projections of more objects than FerretDB answers in one update: a command per 50', async () => {
    const now = new Date().toISOString();
    const ids = Array.from({ length: 120 }, () => newId('obj'));
    await db.collection('world_objects').insertMany(
      ids.map((_id) => ({
        _id,
        kind: 'service',
        name: _id,
        version: 1,
        created_at: now,
      })) as never[],
    );
    const states = ids.map((id) => [id, state(2, { id })] as const);
    expect(await commandsOf(() => repo.projectManyById(states))).toMatchObject({
      'update world_objects': 3,
      'insert world_revisions': 1,
    });
    const objects = await repo.findObjects(ids);
    expect(objects.map((o) => o?.external_state?.fields?.['id'])).toEqual(ids);
  });
});
