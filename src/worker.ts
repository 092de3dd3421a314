import { ConfigError, loadConfig } from './config';
import { createWorker } from './worker/create-worker';

/** Worker process: runs every workflow and activity on the task queue until signalled. */
async function main(): Promise<void> {
  const config = loadConfig();
  const { worker, connection } = await createWorker({
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
  });
  // Worker.run() handles SIGINT/SIGTERM itself: it stops polling and drains in-flight tasks.
  await worker.run();
  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
