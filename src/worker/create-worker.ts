import { hostname } from 'node:os';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';

export interface CreateWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** A pre-built workflow bundle (tests build it once); otherwise bundled from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  connection?: NativeConnection;
}

/** The one place a worker is assembled, for the worker process and the tests alike. */
export async function createWorker(
  options: CreateWorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection =
    options.connection ?? (await NativeConnection.connect({ address: options.address }));
  const identity = `${process.pid}@${hostname()}`;
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    identity,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities({ workerIdentity: identity }),
  });
  return { worker, connection };
}
