import { testSealedRecords } from '../helpers/sealed-records';
import type { Db, Document, MongoClient } from 'mongodb';
import { connectMongo } from '../../src/store/mongo';
import { createExternalActionsRepo } from '../../src/store/external-actions.repo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

// The reset-run watcher asks, every service-monitor tick that finds running action
// workflows, which of their actions have ended (`withStatusIn`). FerretDB serves `{_id: x}`
// from its index but decodes the whole table for `_id: {$in: [...]}`: asked that way, each
// tick read every action ever stored (seconds of the database's CPU at 10,000 actions).

let client: MongoClient;
let db: Db;
const finds: Document[] = [];
beforeAll(async () => {
  ({ client, db } = await connectMongo(testMongoUri(), freshDbName('actions_repo'), {
    monitorCommands: true,
  }));
  client.on('commandStarted', (event) => {
    if (event.commandName === 'find') finds.push(event.command);
  });
});
afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

describe('the actions whose projection holds a status', () => {
  it('answers them, reading by `_id` and never with `$in` on FerretDB', async () => {
    const actions = db.collection<{ _id: string; status: string }>('external_actions');
    await actions.insertMany([
      { _id: 'act_a', status: 'executed' },
      { _id: 'act_b', status: 'awaiting_approval' },
      { _id: 'act_c', status: 'rejected' },
    ]);
    const repo = createExternalActionsRepo(db, testSealedRecords());
    finds.length = 0;
    const ended = await repo.withStatusIn(
      ['act_a', 'act_b', 'act_c', 'act_missing'],
      ['executed', 'rejected'],
    );
    expect([...ended].sort()).toEqual(['act_a', 'act_c']);
    const actionFinds = finds.filter((command) => command['find'] === 'external_actions');
    expect(actionFinds.length).toBeGreaterThan(0);
    expect(JSON.stringify(actionFinds)).not.toContain('$in');
  });
});
