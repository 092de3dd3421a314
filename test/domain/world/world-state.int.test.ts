import { testSealedRecords } from '../../helpers/sealed-records';
import { createWorldReadCache } from '../../../src/domain/world/world-read-cache';
import { worldState } from '../../../src/domain/world/world.service';
import type { WorldKindQuery } from '../../../src/domain/world/schemas';
import { connectMongo } from '../../../src/store/mongo';
import { createRepos, type Repos } from '../../../src/store';
import type { WorldObject } from '../../../src/store/world-objects.repo';
import { appendedChange } from '../../../src/store/world-history.repo';
import { freshDbName } from '../../helpers/test-app';
import { testMongoUri } from '../../test-env';

const uri = testMongoUri();
const NOW = '2026-01-01T00:00:00.000Z';

const object = (id: string, kind: string): WorldObject => ({
  _id: id,
  kind,
  name: id,
  attributes: { status: 'draft' },
  external_state: {},
  version: 1,
  created_at: NOW,
  updated_at: NOW,
});

/** A first committed external state of an object, as the reconciler projects it. */
const externalState = (replicas: number) => ({
  revision: 1,
  fields: { replicas },
  provenance: {},
  generation: 1,
  observed_generation: 1,
  conditions: [],
  last_event_id: null,
  updated_at: NOW,
});

let seq = 0;
const event = (at: string, objectId: string) => ({
  _id: `evt_${String((seq += 1)).padStart(12, '0')}`,
  kind: 'object.updated',
  object_id: objectId,
  at,
  change: {},
});

/** The state read of `repos` through `cache`. */
async function readState(
  repos: Repos,
  cache: ReturnType<typeof createWorldReadCache>,
  query: WorldKindQuery,
) {
  return worldState({ repos, worldReads: cache }, query);
}

describe('world state brought forward by world revisions', () => {
  it('answers exactly as a fresh computation after writes, without listing, counting or scanning history', async () => {
    const dbName = freshDbName('world_state_fold');
    const { client, db } = await connectMongo(uri, dbName);
    try {
      const repos = createRepos(db, testSealedRecords());
      for (let i = 0; i < 8; i += 1) {
        await repos.worldObjects.insert(object(`obj_0000000000${10 + i * 2}`, i % 2 ? 'b' : 'a'));
      }
      await repos.worldHistory.appendOnce(event('2026-01-01T00:00:01.000Z', 'obj_000000000010'));
      const cache = createWorldReadCache(repos.worldRevisions);
      const queries: WorldKindQuery[] = [{}, { kind: 'a' }, { limit: 2 }, { kind: 'b', limit: 1 }];
      const first = await readState(repos, cache, { limit: 2 });
      const cursor = first.next_cursor!;
      queries.push({ limit: 2, cursor }, { kind: 'a', limit: 2, cursor });
      for (const query of queries) await readState(repos, cache, query);

      const list = jest.spyOn(repos.worldObjects, 'list');
      const count = jest.spyOn(repos.worldObjects, 'count');
      const head = jest.spyOn(repos.worldHistory, 'head');
      // Writes of every kind the state shows: an object that sorts first, one in the
      // middle of a full page, one after every page, a patch of an object on the pages,
      // an external state projected, history (one event older than the head, one newer).
      await repos.worldObjects.insert(object('obj_000000000001', 'b'));
      await repos.worldObjects.insertOnce(object('obj_000000000013', 'a'));
      expect(await repos.worldObjects.insertOnce(object('obj_000000000013', 'a'))).toBe(false);
      await repos.worldObjects.insert(object('obj_000000000099', 'a'));
      expect(
        await repos.worldObjects.patchAtVersion(
          'obj_000000000012',
          1,
          { status: 'live' },
          'act_1',
          NOW,
        ),
      ).toBe(true);
      await repos.worldExternalState.project('obj_000000000014', externalState(3));
      await repos.worldHistory.appendOnce(event('2026-01-01T00:00:00.500Z', 'obj_000000000010'));
      const newest = event('2026-01-01T00:00:02.000Z', 'obj_000000000016');
      // As the reconciler writes: the history event without its own advance, then the
      // projection by _id, whose one advance passes the event on.
      await repos.worldHistory.appendOnce(newest, { advance: false });
      await repos.worldExternalState.projectById(
        'obj_000000000016',
        externalState(1),
        appendedChange(newest),
      );

      const brought = [];
      for (const query of queries) brought.push(await readState(repos, cache, query));
      expect(list).not.toHaveBeenCalled();
      expect(count).not.toHaveBeenCalled();
      expect(head).not.toHaveBeenCalled();
      list.mockRestore();
      count.mockRestore();
      head.mockRestore();

      // A process with nothing cached computes from the collections: the same answers.
      const fresh = createWorldReadCache(createRepos(db, testSealedRecords()).worldRevisions);
      for (const [i, query] of queries.entries()) {
        expect(brought[i]).toEqual(await readState(repos, fresh, query));
      }
      // … and the totals are the collections' own.
      for (const [i, query] of queries.entries()) {
        expect(brought[i].world_state.object_count).toBe(
          await repos.worldObjects.count({ kind: query.kind }),
        );
        expect(brought[i].world_state.history_head).toBe(await repos.worldHistory.head());
      }
      const all = brought[0].world_state;
      expect(all.object_count).toBe(11);
      expect(all.history_head).toBe(newest._id);
      expect(all.objects.map((o) => o.object_id).slice(0, 3)).toEqual([
        'obj_000000000001',
        'obj_000000000010',
        'obj_000000000012',
      ]);
      expect(brought[1].world_state.object_count).toBe(6);
      expect(brought[2].world_state.objects.map((o) => o.object_id)).toEqual([
        'obj_000000000001',
        'obj_000000000010',
      ]);
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });

  it('brings a large world forward over more revisions than a small one (computing costs more)', async () => {
    const dbName = freshDbName('world_state_large_gap');
    const { client, db } = await connectMongo(uri, dbName);
    try {
      const repos = createRepos(db, testSealedRecords());
      // 2,048 objects written at once, as a seed does: one advance reports them.
      const ids = Array.from({ length: 2048 }, (_, i) => `obj_${String(i).padStart(12, '0')}`);
      await db
        .collection<WorldObject>('world_objects')
        .insertMany(ids.map((id) => object(id, 'a')));
      await repos.worldRevisions.advance({ created: { a: ids.length } });
      const cache = createWorldReadCache(repos.worldRevisions);
      await readState(repos, cache, {});
      // 100 revisions (past the 64 a small world folds), each from a process of its own.
      for (let i = 0; i < 100; i += 1) {
        await createRepos(db, testSealedRecords()).worldObjects.insert(
          object(`obj_1${String(i).padStart(11, '0')}`, 'b'),
        );
      }
      const list = jest.spyOn(repos.worldObjects, 'list');
      const state = await readState(repos, cache, {});
      expect(list).not.toHaveBeenCalled();
      list.mockRestore();
      expect(state.world_state.object_count).toBe(2148);
      expect(state.world_state.objects.map((o) => o.object_id)).toEqual(ids.slice(0, 50));
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });

  it('a process with a cold cache brings the page another process stored forward', async () => {
    const dbName = freshDbName('world_state_cold');
    const { client, db } = await connectMongo(uri, dbName);
    try {
      const first = createRepos(db, testSealedRecords());
      for (let i = 0; i < 60; i += 1) {
        await first.worldObjects.insert(object(`obj_${String(i).padStart(12, '0')}`, 'a'));
      }
      const computed = await readState(first, createWorldReadCache(first.worldRevisions), {});
      // Another process, cold: the stored page, nothing listed or counted.
      const second = createRepos(db, testSealedRecords());
      const listed = jest.spyOn(second.worldObjects, 'list');
      const counted = jest.spyOn(second.worldObjects, 'count');
      const cold = await readState(second, createWorldReadCache(second.worldRevisions), {});
      expect(cold).toEqual(computed);
      // After a write (a new object that sorts into the page), a third process brings the
      // stored page forward: the same answer as computing it.
      await first.worldObjects.insert(object('obj_000000000005x', 'b'));
      const third = createRepos(db, testSealedRecords());
      const thirdListed = jest.spyOn(third.worldObjects, 'list');
      const brought = await readState(third, createWorldReadCache(third.worldRevisions), {});
      expect(listed).not.toHaveBeenCalled();
      expect(counted).not.toHaveBeenCalled();
      expect(thirdListed).not.toHaveBeenCalled();
      const fresh = createRepos(db, testSealedRecords());
      await db.collection('world_state_pages').deleteMany({});
      const recomputed = await readState(fresh, createWorldReadCache(fresh.worldRevisions), {});
      expect(brought).toEqual(recomputed);
      expect(brought.world_state.object_count).toBe(61);
      expect(brought.world_state.objects.map((o) => o.object_id)).toContain('obj_000000000005x');
      // A page with a cursor is not stored.
      await readState(fresh, createWorldReadCache(fresh.worldRevisions), {
        cursor: computed.next_cursor!,
      });
      expect(await db.collection('world_state_pages').countDocuments()).toBe(1);
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });

  it('computes from the collections again after more revisions than it folds', async () => {
    const dbName = freshDbName('world_state_gap');
    const { client, db } = await connectMongo(uri, dbName);
    try {
      const repos = createRepos(db, testSealedRecords());
      await repos.worldObjects.insert(object('obj_000000000010', 'a'));
      const cache = createWorldReadCache(repos.worldRevisions);
      await readState(repos, cache, {});
      // 70 revisions, each from a process of its own (no sharing of claims).
      for (let i = 0; i < 70; i += 1) {
        await createRepos(db, testSealedRecords()).worldObjects.insert(
          object(`obj_0000000001${10 + i}`, 'b'),
        );
      }
      const list = jest.spyOn(repos.worldObjects, 'list');
      const state = await readState(repos, cache, {});
      expect(list).toHaveBeenCalledTimes(1);
      list.mockRestore();
      expect(state.world_state.object_count).toBe(71);
      expect(state.world_state.objects).toHaveLength(50);
      expect(state.next_cursor).not.toBeNull();
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });
});
