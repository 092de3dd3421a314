import { hostname } from 'node:os';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';

export interface CreateWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Everything activities need except the worker identity. */
  activityDeps: Omit<ActivityDeps, 'workerIdentity'>;
  /** A pre-built workflow bundle (tests build it once); otherwise bundled from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  connection?: NativeConnection;
  identity?: string;
}

/** The one place a worker is assembled, for the worker process and the tests alike. */
export async function createWorker(
  options: CreateWorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection =
    options.connection ?? (await NativeConnection.connect({ address: options.address }));
  const identity = options.identity ?? `${process.pid}@${hostname()}`;
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    identity,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities({ ...options.activityDeps, workerIdentity: identity }),
  });
  return { worker, connection };
}
