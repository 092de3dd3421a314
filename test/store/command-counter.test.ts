import { countingConnectionType } from '../../src/store/command-counter';
import { connectMongo } from '../../src/store/mongo';
import { freshDbName } from '../helpers/test-app';

const uri = process.env['TEST_MONGODB_URI']!;

describe('command counting (the per-command metric)', () => {
  it('counts every command a client sends by name, without the driver reparsing replies', async () => {
    const counted = new Map<string, number>();
    const { client, db } = await connectMongo(uri, freshDbName('command_counter'), {
      onCommand: (name) => counted.set(name, (counted.get(name) ?? 0) + 1),
    });
    try {
      // The driver's command events (and the second parse of every reply they cost) are off.
      expect(client.options.monitorCommands).toBe(false);
      let events = 0;
      client.on('commandSucceeded', () => (events += 1));
      const counts = () => Object.fromEntries(counted);
      const before = counts();
      const col = db.collection<{ _id: string; n: number }>('things');
      await col.insertOne({ _id: 'a', n: 1 });
      await col.insertMany([
        { _id: 'b', n: 2 },
        { _id: 'c', n: 3 },
      ]);
      await col.findOne({ _id: 'a' });
      await col.find({}).toArray();
      await col.updateOne({ _id: 'b' }, { $set: { n: 4 } });
      await db.admin().ping();
      const sent = Object.fromEntries(
        Object.entries(counts()).map(([name, n]) => [name, n - (before[name] ?? 0)]),
      );
      expect(sent).toEqual({ insert: 2, find: 2, update: 1, ping: 1 });
      expect(events).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('falls back to the driver events when the driver has no connection class to extend', () => {
    expect(countingConnectionType(() => undefined)).toBeDefined();
    expect(countingConnectionType(() => undefined, {})).toBeUndefined();
    expect(countingConnectionType(() => undefined, class {})).toBeUndefined();
  });

  it('leaves the driver events on for a client that asks for them', async () => {
    const { client, db } = await connectMongo(uri, freshDbName('command_events'), {
      monitorCommands: true,
    });
    try {
      const names: string[] = [];
      client.on('commandStarted', (event) => names.push(event.commandName));
      await db.collection('things').findOne({ _id: 'x' } as never);
      expect(names).toEqual(['find']);
    } finally {
      await client.close();
    }
  });
});
