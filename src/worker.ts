import { hostname } from 'node:os';
import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { ServiceEventRecorder } from './observability/service-events';
import { createRepos, ensureIndexes } from './store';
import { connectMongo } from './store/mongo';
import { createWorker } from './worker/create-worker';

/** Worker process: runs every workflow and activity on the task queue until signalled. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'worker' } });
  const { client: mongo, db } = await connectMongo(config.mongodbUri, config.mongodbDb);
  const repos = createRepos(db);
  await ensureIndexes(db);
  const identity = `${process.pid}@${hostname()}`;
  const events = new ServiceEventRecorder(repos.serviceEvents, `worker-${identity}`, logger);
  const workers = await createWorker({
    identity,
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    computeConcurrentChunks: config.computeConcurrentChunks,
    publicBaseUrl: config.publicBaseUrl,
    ...(config.workflowBundlePath
      ? { workflowBundle: { codePath: config.workflowBundlePath } }
      : {}),
    activityDeps: {
      repos,
      webhookAllowlist: config.webhookAllowlist,
      webhookSigningSecret: config.webhookSigningSecret,
      webhookTimeoutMs: config.webhookTimeoutMs,
      keyPepper: config.keyPepper,
    },
  });
  logger.info({ task_queue: config.taskQueue }, 'worker polling');
  const detail = { task_queue: config.taskQueue, identity, pid: process.pid };
  // Worker.run() handles SIGINT/SIGTERM itself: it stops polling and drains in-flight tasks.
  // Its outcome is caught at once, so a failure during the start event's write is not lost.
  const outcome = workers.run().then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  await events.record({
    kind: 'worker.started',
    level: 'info',
    message: `worker ${identity} polling ${config.taskQueue}`,
    detail,
  });
  const failed = await outcome;
  await events.record({
    kind: 'worker.stopped',
    level: failed ? 'error' : 'info',
    message: failed
      ? `worker ${identity} failed: ${failed.error instanceof Error ? failed.error.message : String(failed.error)}`
      : `worker ${identity} stopped`,
    detail,
  });
  if (failed) throw failed.error;
  await workers.connection.close();
  await mongo.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
