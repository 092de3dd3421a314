import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { createRepos, ensureIndexes } from './store';
import { connectMongo } from './store/mongo';
import { createWorker } from './worker/create-worker';

/** Worker process: runs every workflow and activity on the task queue until signalled. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'worker' } });
  const { client: mongo, db } = await connectMongo(config.mongodbUri, config.mongodbDb);
  const repos = createRepos(db);
  await ensureIndexes(repos);
  const { worker, connection } = await createWorker({
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    ...(config.workflowBundlePath
      ? { workflowBundle: { codePath: config.workflowBundlePath } }
      : {}),
    activityDeps: {
      repos,
      webhookAllowlist: config.webhookAllowlist,
      webhookSigningSecret: config.webhookSigningSecret,
      webhookTimeoutMs: config.webhookTimeoutMs,
    },
  });
  logger.info({ task_queue: config.taskQueue }, 'worker polling');
  // Worker.run() handles SIGINT/SIGTERM itself: it stops polling and drains in-flight tasks.
  await worker.run();
  await connection.close();
  await mongo.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
