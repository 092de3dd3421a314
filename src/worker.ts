import { createServer } from 'node:http';
import { hostname } from 'node:os';
import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { createMetrics } from './observability/metrics';
import { metricsListener } from './observability/metrics-listener';
import { mongoCommandSpans } from './observability/mongo-spans';
import { startTracing } from './observability/tracing';
import { createSecurityEventReporter } from './observability/security-events';
import { ServiceEventRecorder } from './observability/service-events';
import { createRepos, ensureIndexes } from './store';
import { connectMongo, guardMongoClient } from './store/mongo';
import { createWorker } from './worker/create-worker';
import { createWorkerTrust } from './worker/trust';
import { sealedRecordsOf } from './domain/record-integrity';
import type { SecurityEvent } from './domain/worker-trust';

/**
 * How long the worker's MongoDB client may fail every ping before the guard asks a fresh
 * client: well past a FerretDB restart plus the driver's 10 s heartbeat, after which a
 * healthy client has reconnected.
 */
const MONGO_STUCK_BOUND_MS = 30_000;

/** Worker process: runs every workflow and activity on the task queue until signalled. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'worker' } });
  exitAfterGrace(config.shutdownGraceMs, logger);
  // Traces only when configured (`OTEL_*`): otherwise nothing of OpenTelemetry starts.
  const tracing = config.tracing
    ? startTracing(config.tracing, { defaultServiceName: 'governed-runtime-worker' })
    : undefined;
  const metrics = createMetrics();
  const { client: mongo, db } = await connectMongo(config.mongodbUri, config.mongodbDb, {
    // The worker sends most of an action's commands: counted as the api counts its own.
    onCommand: (command) => metrics.countMongoCommand(command),
    ...(tracing ? { traceCommand: mongoCommandSpans(tracing.tracer) } : {}),
  });
  // A client that stays failed while the database answers a fresh one (docs/chaos.md) would
  // keep this worker's sticky workflows retrying here: exit instead, so the supervisor
  // restarts it and Temporal hands its workflow tasks to a worker that can reach the store.
  guardMongoClient(db, {
    uri: config.mongodbUri,
    boundMs: MONGO_STUCK_BOUND_MS,
    onStuck: (failingForMs) => {
      logger.fatal(
        { failing_for_ms: failingForMs },
        'MongoDB client failing while a fresh client reaches the database: exiting',
      );
      process.exit(1);
    },
  });
  let reportSecurityEvent: (event: SecurityEvent) => Promise<void> = async () => undefined;
  const repos = createRepos(
    db,
    sealedRecordsOf(config, (event) => reportSecurityEvent(event)),
  );
  await ensureIndexes(db);
  const identity = `${process.pid}@${hostname()}`;
  const events = new ServiceEventRecorder(repos.serviceEvents, `worker-${identity}`, logger);
  reportSecurityEvent = createSecurityEventReporter({
    recorder: events,
    logger,
    counter: metrics.securityEvents,
  });
  const metricsServer = config.workerMetricsListen
    ? createServer(metricsListener(metrics.registry, logger)).listen(
        Number(config.workerMetricsListen.split(':').pop()),
        config.workerMetricsListen.split(':')[0],
      )
    : undefined;
  const trust = createWorkerTrust(config, reportSecurityEvent);
  const workers = await createWorker({
    identity,
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    computeConcurrentChunks: config.computeConcurrentChunks,
    publicBaseUrl: config.publicBaseUrl,
    tracing,
    ...(config.workflowBundlePath
      ? { workflowBundle: { codePath: config.workflowBundlePath } }
      : {}),
    activityDeps: {
      repos,
      webhookAllowlist: config.webhookAllowlist,
      webhookSigningSecret: config.webhookSigningSecret,
      webhookTimeoutMs: config.webhookTimeoutMs,
      keyPepper: config.keyPepper,
      trust,
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
  metricsServer?.close();
  await workers.connection.close();
  await mongo.close();
  await tracing?.shutdown();
}

/**
 * Shutdown is bounded: once SIGTERM or SIGINT arrives, the worker drains for at most the
 * grace period (`SHUTDOWN_GRACE_MS`, default 10 s) and then exits, whatever is still
 * waiting (found: with Temporal and the database already down, draining and the last
 * service event waited on them for good). Temporal hands unfinished tasks to another worker.
 */
function exitAfterGrace(graceMs: number, logger: pino.Logger): void {
  const onSignal = (signal: NodeJS.Signals): void => {
    setTimeout(() => {
      logger.warn({ signal, grace_ms: graceMs }, 'shutdown grace period over: exiting');
      process.exit(1);
    }, graceMs).unref();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
