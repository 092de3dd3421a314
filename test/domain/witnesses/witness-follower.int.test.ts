import { testSealedRecords } from '../../helpers/sealed-records';
import { followWitnesses } from '../../../src/domain/witnesses/witness-follower';
import { WitnessIndex } from '../../../src/domain/witnesses/witness-index';
import { newId } from '../../../src/lib/ids';
import { createRepos } from '../../../src/store';
import { connectMongo } from '../../../src/store/mongo';
import type { WorldTask } from '../../../src/store/world-tasks.repo';
import { freshDbName } from '../../helpers/test-app';
import { testMongoUri } from '../../test-env';

const uri = testMongoUri();

const task = (id: string): WorldTask => ({
  _id: id,
  title: 't',
  state: 'open',
  object_refs: [],
  version: 1,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: '2026-11-25T10:00:00.000Z',
});

describe('witnesses followed between reads', () => {
  it('catch up with the journal on their own while read lately, and let the fold go after', async () => {
    const dbName = freshDbName('witness_follow');
    const [a, b] = await Promise.all([connectMongo(uri, dbName), connectMongo(uri, dbName)]);
    // Turns are run by hand: the interval is longer than the test.
    const witnesses = followWitnesses(
      new WitnessIndex({ repos: createRepos(b.db, testSealedRecords()) }),
      {
        everyMs: 3_600_000,
        warmForMs: 60_000,
      },
    );
    try {
      const writer = createRepos(a.db, testSealedRecords());
      const fold = await witnesses.current();

      // Another process writes; a turn folds it in without anyone reading.
      const id = newId('tsk');
      await writer.worldTasks.project(task(id));
      await witnesses.turn();
      expect(fold.tasks.has(id)).toBe(true);

      // Long after the last read a turn lets the fold go; the next read folds anew.
      await witnesses.turn(Date.now() + 120_000);
      const again = await witnesses.current();
      expect(again).not.toBe(fold);
      expect(again.tasks.has(id)).toBe(true);
    } finally {
      witnesses.stop();
      await a.db.dropDatabase();
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });
});
