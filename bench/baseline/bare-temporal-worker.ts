import { NativeConnection, Worker } from '@temporalio/worker';
import { MongoClient } from 'mongodb';

/** The baseline's one activity: the same kind of effect as a `notify` action (one insert). */
function createBareActivities(client: MongoClient) {
  const outbox = client.db().collection<{ _id: string; at: string }>('bare_outbox');
  return {
    async applyEffect(id: string): Promise<string> {
      await outbox.updateOne(
        { _id: id },
        { $setOnInsert: { at: new Date().toISOString() } },
        { upsert: true },
      );
      return id;
    },
  };
}
export type BareActivities = ReturnType<typeof createBareActivities>;

async function main(): Promise<void> {
  const client = await MongoClient.connect(process.env['MONGODB_URI']!);
  const connection = await NativeConnection.connect({ address: process.env['TEMPORAL_ADDRESS']! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env['TEMPORAL_TASK_QUEUE']!,
    workflowsPath: require.resolve('./bare-action.workflow'),
    activities: createBareActivities(client),
  });
  console.log('bare worker polling');
  await worker.run();
  await connection.close();
  await client.close();
}

void main();
