import { connectMongo } from '../../src/store/mongo';
import { createWorldRevisionsRepo } from '../../src/store/world-revisions.repo';
import { freshDbName } from '../helpers/test-app';

const uri = process.env['TEST_MONGODB_URI']!;

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
      const stored = await repos[0].collection.find({}).sort({ _id: 1 }).toArray();
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
