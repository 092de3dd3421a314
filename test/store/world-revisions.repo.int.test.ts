import { connectMongo } from '../../src/store/mongo';
import { createWorldReadCache } from '../../src/domain/world/world-read-cache';
import { createWorldRevisionsRepo } from '../../src/store/world-revisions.repo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

describe('world revisions', () => {
  it('count 1, 2, 3, … without gaps when three processes advance at once', async () => {
    const dbName = freshDbName('world_revisions');
    // One connection per "process", as the api instances and the worker have.
    const processes = await Promise.all([1, 2, 3].map(() => connectMongo(uri, dbName)));
    try {
      const repos = processes.map(({ db }) => createWorldRevisionsRepo(db));
      expect(await repos[0].current()).toBe(0);
      expect(await repos[0].changedSince(0)).toBe(false);

      const claimed = await Promise.all(
        repos.flatMap((repo) => Array.from({ length: 10 }, () => repo.advance())),
      );
      const stored = await processes[0].db
        .collection<{ _id: string }>('world_revisions')
        .find({})
        .sort({ _id: 1 })
        .toArray();
      const total = stored.length;
      // Advances asked for at once may share one claim, never skip a number.
      expect(stored.map((r) => Number(r._id))).toEqual(
        Array.from({ length: total }, (_, i) => i + 1),
      );
      expect(Math.max(...claimed)).toBe(total);
      expect(total).toBeGreaterThanOrEqual(3);

      // A process that starts now finds the newest revision from nothing (gallop, bisect).
      const fresh = createWorldRevisionsRepo(processes[0].db);
      expect(await fresh.current()).toBe(total);
      expect(await fresh.changedSince(total)).toBe(false);
      expect(await fresh.changedSince(total - 1)).toBe(true);
      expect(await fresh.advance()).toBe(total + 1);
      expect(await repos[1].current(total)).toBe(total + 1);
    } finally {
      await processes[0].db.dropDatabase();
      for (const { client } of processes) await client.close();
    }
  });

  it("reuses a recent 'unchanged' only within the caller's staleness bound, never for its own writes", async () => {
    const dbName = freshDbName('world_revisions_stale');
    const [a, b] = await Promise.all([connectMongo(uri, dbName), connectMongo(uri, dbName)]);
    try {
      const writer = createWorldRevisionsRepo(a.db);
      const reader = createWorldRevisionsRepo(b.db);
      expect(await writer.advance()).toBe(1);
      expect(await reader.current()).toBe(1);
      const now = Date.now();
      const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
      expect(await reader.changedSince(1, 25)).toBe(false);
      expect(await writer.advance()).toBe(2);
      // The writer knows its own write at once, whatever it accepts.
      expect(await writer.changedSince(1, 25)).toBe(true);
      // Another process may answer from its check of up to 25 ms ago...
      clock.mockReturnValue(now + 25);
      expect(await reader.changedSince(1, 25)).toBe(false);
      // ...not from an older one, and never when it accepts no staleness.
      expect(await reader.changedSince(1)).toBe(true);
      clock.mockReturnValue(now + 26);
      expect(await reader.changedSince(1, 25)).toBe(true);
    } finally {
      jest.restoreAllMocks();
      await a.db.dropDatabase();
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  it('an advance asked for while another runs claims a revision after it', async () => {
    const dbName = freshDbName('world_revisions_queue');
    const { client, db } = await connectMongo(uri, dbName);
    try {
      const repo = createWorldRevisionsRepo(db);
      const first = repo.advance();
      const second = repo.advance();
      const third = repo.advance();
      expect(await first).toBe(1);
      // The later two share the run that starts once the first is done.
      expect(await second).toBe(2);
      expect(await third).toBe(2);
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });
});

// Issue 10, risk 8: a world write whose revision advance failed left every cache stale.
describe('an advance that fails after a world write', () => {
  it('is owed: this process stops trusting its cache, and it is paid once the store heals', async () => {
    const dbName = freshDbName('world_revisions_owed');
    const [writer, reader] = await Promise.all([
      connectMongo(uri, dbName),
      connectMongo(uri, dbName),
    ]);
    let failing = false;
    // The writer's store refuses revision claims while `failing`.
    const flakyDb = new Proxy(writer.db, {
      get(target, property, receiver) {
        if (property !== 'collection') return Reflect.get(target, property, receiver) as unknown;
        return (name: string) =>
          new Proxy(target.collection(name), {
            get(collection, key, inner) {
              if (key === 'insertOne' && failing) {
                return () => Promise.reject(new Error('the store is unreachable'));
              }
              return Reflect.get(collection, key, inner) as unknown;
            },
          });
      },
    });
    try {
      const revisions = createWorldRevisionsRepo(flakyDb);
      const elsewhere = createWorldRevisionsRepo(reader.db);
      let world = 'A';
      const cache = createWorldReadCache(revisions);
      const other = createWorldReadCache(elsewhere);
      const read = (c: typeof cache) => c.read('state', async () => world);
      expect(await read(cache)).toBe('A');
      expect(await read(other)).toBe('A');

      failing = true;
      world = 'B'; // a world write happened …
      // … and its revision could not be claimed: no throw
      await revisions.advance({ objects: ['obj_b'], created: { document: 1 } });
      expect(revisions.owesAdvance()).toBe(true);
      expect(await read(cache)).toBe('B');

      failing = false; // the store heals: the owed advance is claimed in the background
      for (let i = 0; i < 40 && revisions.owesAdvance(); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(revisions.owesAdvance()).toBe(false);
      expect(await read(other)).toBe('B');
      // The owed revision carries the write's change.
      const paid = await elsewhere.current();
      expect((await elsewhere.totalsAt(paid))?.objectCounts).toEqual({ document: 1 });
      expect(await elsewhere.objectsChanged(paid - 1, paid)).toEqual(['obj_b']);
    } finally {
      await reader.db.dropDatabase();
      await writer.client.close();
      await reader.client.close();
    }
  });
});

describe('world revisions carry what their writes changed', () => {
  it('fold the totals exactly when three processes advance at once', async () => {
    const dbName = freshDbName('world_revisions_totals');
    const processes = await Promise.all([1, 2, 3].map(() => connectMongo(uri, dbName)));
    try {
      const repos = processes.map(({ db }) => createWorldRevisionsRepo(db));
      const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
      // Process p creates 10 objects of kind k<p>, each with an event; the newest event is
      // in the middle of process 1's writes, so the head is not simply the last claimed.
      await Promise.all(
        repos.flatMap((repo, p) =>
          Array.from({ length: 10 }, (_, i) =>
            repo.advance({
              objects: [`obj_${p}_${i}`],
              created: { [`k${p}`]: 1 },
              history: [{ id: `evt_${p}_${i}`, at: at(p === 1 && i === 4 ? 59 : i) }],
            }),
          ),
        ),
      );
      const reader = createWorldRevisionsRepo(processes[0].db);
      const current = await reader.current();
      expect(await reader.totalsAt(current)).toEqual({
        objectCounts: { k0: 10, k1: 10, k2: 10 },
        historyHead: { id: 'evt_1_4', at: at(59) },
      });
      const changed = await reader.objectsChanged(0, current);
      expect(changed?.sort()).toEqual(
        [0, 1, 2].flatMap((p) => Array.from({ length: 10 }, (_, i) => `obj_${p}_${i}`)).sort(),
      );
      // A change naming more objects than a revision holds names none: readers recompute.
      await reader.advance({ objects: Array.from({ length: 501 }, (_, i) => `obj_x${i}`) });
      expect(await reader.objectsChanged(current, current + 1)).toBeNull();
      expect(await reader.objectsChanged(current - 1, current)).not.toBeNull();
      // A revision that follows an unfolded one (written before revisions carried totals)
      // carries none.
      await processes[0].db
        .collection<{ _id: string; at: string }>('world_revisions')
        .insertOne({ _id: String(current + 2).padStart(12, '0'), at: at(0) });
      expect(await reader.advance({ created: { k0: 1 } })).toBe(current + 3);
      expect(await reader.totalsAt(current + 1)).not.toBeNull();
      expect(await reader.totalsAt(current + 3)).toBeNull();
      expect(await reader.objectsChanged(current + 1, current + 3)).toBeNull();
    } finally {
      await processes[0].db.dropDatabase();
      for (const { client } of processes) await client.close();
    }
  });
});
