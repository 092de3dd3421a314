import { hookedConnectionType } from '../../src/store/command-counter';
import type { SentCommand } from '../../src/store/command-counter';
import { connectMongo, reportByEvents } from '../../src/store/mongo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const uri = testMongoUri();

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
    const onCommand = () => undefined;
    expect(hookedConnectionType({ onCommand })).toBeDefined();
    expect(hookedConnectionType({ onCommand }, {})).toBeUndefined();
    expect(hookedConnectionType({ onCommand }, class {})).toBeUndefined();
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

  it('hands each command to the command tracer and tells it how the command settled', async () => {
    const dbName = freshDbName('command_tracer');
    const sent: SentCommand[] = [];
    const settled: { name: string; error: unknown }[] = [];
    const traceCommand = (command: SentCommand) => {
      sent.push(command);
      return (error?: unknown) => settled.push({ name: command.name, error });
    };
    const { client, db } = await connectMongo(uri, dbName, { traceCommand });
    try {
      // No driver command events: the spans cost no second parse of every reply.
      expect(client.options.monitorCommands).toBe(false);
      expect(client.listenerCount('commandStarted')).toBe(0);
      const col = db.collection<{ _id: string }>('things');
      sent.length = 0;
      await col.insertOne({ _id: 'a' });
      await expect(col.insertOne({ _id: 'a' })).rejects.toThrow(/duplicate key/i);
      await col.findOne({ _id: 'a' });
      const port = new URL(uri).port;
      expect(sent).toEqual([
        {
          name: 'insert',
          databaseName: dbName,
          collection: 'things',
          address: `127.0.0.1:${port}`,
        },
        {
          name: 'insert',
          databaseName: dbName,
          collection: 'things',
          address: `127.0.0.1:${port}`,
        },
        { name: 'find', databaseName: dbName, collection: 'things', address: `127.0.0.1:${port}` },
      ]);
      // A duplicate key is a write error in the reply, not a failed command.
      expect(settled).toEqual([
        { name: 'insert', error: undefined },
        { name: 'insert', error: undefined },
        { name: 'find', error: undefined },
      ]);
      await expect(db.command({ noSuchCommand: 1 })).rejects.toThrow();
      expect(settled[3]).toMatchObject({ name: 'noSuchCommand', error: expect.any(Error) });
    } finally {
      await client.close();
    }
  });

  it('feeds the same hooks from the driver events when it must fall back to them', async () => {
    const dbName = freshDbName('command_events_fallback');
    const { client, db } = await connectMongo(uri, dbName, { monitorCommands: true });
    try {
      const names: string[] = [];
      const outcomes: unknown[] = [];
      reportByEvents(client, {
        onCommand: (name) => names.push(name),
        traceCommand: (command) =>
          command.collection === 'things' ? (error) => outcomes.push(error ?? 'ok') : undefined,
      });
      await db.collection('things').findOne({ _id: 'x' } as never);
      await expect(db.command({ noSuchCommand: 1 })).rejects.toThrow();
      await expect(
        db
          .collection('things')
          .aggregate([{ $noSuchStage: {} }])
          .toArray(),
      ).rejects.toThrow();
      expect(names).toEqual(['find', 'noSuchCommand', 'aggregate']);
      expect(outcomes).toHaveLength(2);
      expect(outcomes[0]).toBe('ok');
      expect(outcomes[1]).toBeInstanceOf(Error);
    } finally {
      await client.close();
    }
  });
});
