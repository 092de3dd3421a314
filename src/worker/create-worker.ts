import { hostname } from 'node:os';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import type { ChunkInput } from '../activities/substrates.activities';
import { createStepper } from '../domain/substrates/stepper';
import { createDeliveryStarter } from '../temporal/delivery-starter';
import { connectTemporal } from '../temporal/connect';
import { temporalClientTracing } from '../temporal/tracing';
import type { Tracing } from '../observability/tracing';
import { workerTracingOptions } from './tracing';
import {
  WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOW_PRELOAD_MODULES,
  WORKFLOWS_PATH,
} from './workflow-bundle';
import { computeTaskQueueOf } from '../workflows/shared.contract';

export interface CreateWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Everything activities need except what the worker makes: identity, delivery starts. */
  activityDeps: Omit<ActivityDeps, 'workerIdentity' | 'startDelivery' | 'chunkStepper'>;
  /** A pre-built workflow bundle (tests build it once); otherwise bundled from source. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  connection?: NativeConnection;
  identity?: string;
  /**
   * Also serve the compute task queue (`<taskQueue>-compute`: deployment chunks), default
   * true. A deployment needs some worker on it; scale compute workers apart by running
   * more processes (docs/substrates.md).
   */
  compute?: boolean;
  /**
   * Chunks this process runs at once on the compute task queue (`COMPUTE_CONCURRENT_CHUNKS`,
   * default 1). Chunks are CPU-bound and share the event loop with the approval workflows'
   * activities: keep it below the cores of the machine.
   */
  computeConcurrentChunks?: number;
  /** Where delivery workflows' details link back to (`PUBLIC_BASE_URL`); none: paths only. */
  publicBaseUrl?: string;
  /** Started tracing (`OTEL_*`): activity spans, the workflows' span sink, traced starts. */
  tracing?: Pick<Tracing, 'spanProcessor' | 'resource'>;
}

export interface CreatedWorkers {
  /** Workflows and every activity on the task queue. */
  worker: Worker;
  /** Engine chunks on the compute task queue, when asked for. */
  computeWorker: Worker | undefined;
  connection: NativeConnection;
  /** Runs every worker until all stop (SIGINT/SIGTERM stop them; so does `shutdown`). */
  run(): Promise<void>;
  shutdown(): void;
}

/** The one place a worker is assembled, for the worker process and the tests alike. */
export async function createWorker(options: CreateWorkerOptions): Promise<CreatedWorkers> {
  const connection =
    options.connection ?? (await NativeConnection.connect({ address: options.address }));
  const identity = options.identity ?? `${process.pid}@${hostname()}`;
  // One set of activities for both queues, so a chunk finds the state its previous chunk
  // left in memory whichever worker of this process ran it.
  // Activities start notification deliveries through a client of their own, connected on
  // first use (most workers never notify anyone) and closed when the workers stop.
  let client: Promise<Client> | undefined;
  const clientOf = () =>
    (client ??= connectTemporal({ address: options.address }).then(
      (clientConnection) =>
        new Client({
          connection: clientConnection,
          namespace: options.namespace,
          ...(options.tracing ? { interceptors: temporalClientTracing() } : {}),
        }),
    ));
  const startDelivery: ActivityDeps['startDelivery'] = createDeliveryStarter({
    client: clientOf,
    taskQueue: options.taskQueue,
    publicBaseUrl: options.publicBaseUrl,
  });
  // Chunks step the engine on threads of their own, one per concurrent chunk, so a
  // saturated compute queue never holds the event loop the approval workflows need.
  const computeConcurrentChunks = options.computeConcurrentChunks ?? 1;
  const chunkStepper =
    options.compute === false ? undefined : createStepper({ threads: computeConcurrentChunks });
  const activities = createActivities({
    ...options.activityDeps,
    workerIdentity: identity,
    startDelivery,
    chunkStepper,
  });
  const traced = options.tracing ? workerTracingOptions(options.tracing) : undefined;
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    identity,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : {
          workflowsPath: WORKFLOWS_PATH,
          bundlerOptions: { preloadModules: [...WORKFLOW_PRELOAD_MODULES] },
        }),
    activities,
    ...(traced ? { sinks: traced.sinks } : {}),
    interceptors: {
      ...traced?.interceptors,
      // A pre-built bundle has them baked in (the SDK warns when both are given).
      ...(options.workflowBundle ? {} : { workflowModules: [...WORKFLOW_INTERCEPTOR_MODULES] }),
    },
  });
  const computeWorker =
    options.compute === false
      ? undefined
      : await Worker.create({
          connection,
          namespace: options.namespace,
          taskQueue: computeTaskQueueOf(options.taskQueue),
          identity,
          activities: {
            runDeploymentChunk: (input: ChunkInput) => activities.runDeploymentChunk(input),
          },
          // Chunks are CPU-bound: few at a time per process (default one) keeps the event
          // loop able to heartbeat and the approval path responsive; more compute comes
          // from more processes. Chunks beyond the bound wait on the compute queue, never
          // on the main queue.
          maxConcurrentActivityTaskExecutions: computeConcurrentChunks,
          // One poller: chunks are few and long, and idle long polls on the compute queue
          // slow the approval path's workflow tasks down.
          maxConcurrentActivityTaskPolls: 1,
        });
  const workers = computeWorker ? [worker, computeWorker] : [worker];
  return {
    worker,
    computeWorker,
    connection,
    async run() {
      const results = await Promise.allSettled(workers.map((w) => w.run()));
      await chunkStepper?.close();
      if (client) await client.then((c) => c.connection.close()).catch(() => undefined);
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
    shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    },
  };
}
