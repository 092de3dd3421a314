import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { createAuthenticator } from '../auth/authenticator';
import { createDecisionSigner, decisionSeed } from '../auth/decision-signer';
import { RateLimiter } from '../auth/rate-limiter';
import type { Config } from '../config';
import { ensureSystemRecords } from '../domain/governance/bootstrap';
import { createMetrics } from '../observability/metrics';
import { mongoCommandSpans } from '../observability/mongo-spans';
import { startTracing, type Tracing } from '../observability/tracing';
import { temporalClientTracing } from '../temporal/tracing';
import { createWorldReadCache } from '../domain/world/world-read-cache';
import { followWitnesses } from '../domain/witnesses/witness-follower';
import { WitnessIndex } from '../domain/witnesses/witness-index';
import { createReconciler } from '../domain/external-events/reconciler';
import { createSubstrateStates } from '../domain/substrates/states';
import { createStepper } from '../domain/substrates/stepper';
import { keepCheckpointSchedule } from '../domain/checkpoints/schedule';
import { RequestLedgerWriter } from '../observability/request-ledger-writer';
import { ServiceEventRecorder } from '../observability/service-events';
import { ServiceMonitor } from '../observability/service-monitor';
import { WorkflowFailureWatcher } from '../observability/workflow-failures';
import { createClosedRunFollower } from '../domain/closed-runs';
import { ResetRunWatcher } from '../observability/reset-runs';
import { FINAL_ACTION_STATUSES } from '../workflows/external-action.contract';
import { refuseResetOfFinalAction } from '../domain/external-actions/refuse-final-reset';
import { createNotifier } from '../activities/notifications.activities';
import { reflectClosure } from '../domain/reflect-closure';
import { createLedgerSeal, ledgerSealSeed } from '../domain/external-actions/ledger-seal';
import { createCheckpointIndex } from '../domain/external-actions/checkpoint-index';
import { createAuditSeal } from '../domain/governance/audit-seal';
import { createDeliveryStarter } from '../temporal/delivery-starter';
import { sealedRecordsOf } from '../domain/record-integrity';
import type { SecurityEvent } from '../domain/worker-trust';
import { createSecurityEventReporter } from '../observability/security-events';
import { createRepos, ensureIndexes } from '../store';
import { connectMongo } from '../store/mongo';
import { TemporalGateway } from '../temporal/gateway';
import type { AppDeps } from './deps';

export interface BuildDepsOptions {
  /**
   * Tracing already started in this process (a test's api and worker share one, with an
   * in-memory exporter); otherwise started here when `config.tracing` is set, and shut down
   * by `close`.
   */
  tracing?: Tracing;
}

/** Builds every dependency of the api once; `close` releases them in reverse order. */
export async function buildDeps(
  config: Config,
  logger?: Logger,
  options: BuildDepsOptions = {},
): Promise<AppDeps & { close(): Promise<void> }> {
  const log = logger ?? pino({ level: config.logLevel, base: { service: 'api' } });
  const ownTracing =
    !options.tracing && config.tracing
      ? startTracing(config.tracing, { defaultServiceName: 'governed-runtime-api' })
      : undefined;
  const tracing = options.tracing ?? ownTracing;
  const metrics = createMetrics();
  const { client: mongo, db } = await connectMongo(config.mongodbUri, config.mongodbDb, {
    onCommand: (command) => metrics.countMongoCommand(command),
    ...(tracing ? { traceCommand: mongoCommandSpans(tracing.tracer) } : {}),
  });
  // The api writes the admin audit: each row chained in this process's chain, sealed with
  // the ledger seal key and checkpointed beside the ledger's checkpoints (docs/governance.md).
  const auditSeal = createAuditSeal({
    seed: ledgerSealSeed(config),
    acceptedKeys: config.ledgerSealVerifyKeys,
    checkpointDir: config.ledgerCheckpointDir,
    database: config.mongodbDb,
  });
  // Records refused for a failed seal are reported once the service event recorder exists
  // (below); nothing is read for authority before then but the system records' seeding.
  let reportSecurityEvent: (event: SecurityEvent) => Promise<void> = async () => undefined;
  const repos = createRepos(
    db,
    sealedRecordsOf(config, (event) => reportSecurityEvent(event)),
    { auditSeal },
  );
  await ensureIndexes(db);
  await ensureSystemRecords({ repos, config });

  const instanceId = `api-${randomBytes(6).toString('hex')}`;
  const limiter = new RateLimiter({
    repo: repos.rateCounters,
    instanceId,
    syncIntervalMs: config.rateLimitSyncMs,
    logger: log,
  });
  const ledger = new RequestLedgerWriter({
    ledger: repos.requestLedger,
    usageRollups: repos.usageRollups,
    apiKeys: repos.apiKeys,
    flushMs: config.requestLedgerFlushMs,
    logger: log,
    instanceId,
  });
  const temporal = new TemporalGateway({
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    logger: log,
    ...(tracing ? { interceptors: temporalClientTracing() } : {}),
  });
  const authenticator = createAuthenticator({
    apiKeys: repos.apiKeys,
    principals: repos.principals,
    organizations: repos.organizations,
    pepper: config.keyPepper,
    adminApiKey: config.adminApiKey,
    cacheTtlMs: config.keyCacheTtlMs,
    quotaPolicies: repos.quotaPolicies,
  });
  const serviceEvents = new ServiceEventRecorder(repos.serviceEvents, instanceId, log);
  reportSecurityEvent = createSecurityEventReporter({
    recorder: serviceEvents,
    logger: log,
    counter: metrics.securityEvents,
  });
  // What the api records of a workflow ended from Temporal (an aborted action) tells
  // subscribers through the same notifier and delivery workflows the worker uses.
  const notify = createNotifier({
    repos,
    webhookSigningSecret: config.webhookSigningSecret,
    webhookTimeoutMs: config.webhookTimeoutMs,
    startDelivery: createDeliveryStarter({
      client: () => temporal.getClient(),
      taskQueue: config.taskQueue,
      publicBaseUrl: config.publicBaseUrl,
    }),
  });
  // The api records `aborted` entries: sealed and checkpointed with the same configured key
  // as the worker's, into the same checkpoint directory (docs/actions.md).
  const ledgerSeal = createLedgerSeal({
    seed: ledgerSealSeed(config),
    acceptedKeys: config.ledgerSealVerifyKeys,
    checkpointDir: config.ledgerCheckpointDir,
    database: config.mongodbDb,
  });
  // What the api writes (`aborted`, `run_refused`) is checked against the checkpoints first,
  // as the worker's records are: nothing is written onto a ledger they show cut.
  const checkpoints = createCheckpointIndex({
    dir: config.ledgerCheckpointDir,
    database: config.mongodbDb,
    acceptedKeys: ledgerSeal.acceptedKeys,
  });
  const closedRuns = createClosedRunFollower({
    temporal,
    reflect: (closure) => reflectClosure({ repos, notify, ledgerSeal, checkpoints }, closure),
    followRun: (actionId, runId) => repos.externalActions.followRun(actionId, runId),
    refuseRunOfFinalAction: (actionId, runId) =>
      refuseResetOfFinalAction(
        { repos, notify, ledgerSeal, checkpoints, client: () => temporal.getClient() },
        actionId,
        runId,
      ),
    logger: log,
  });
  const monitor = new ServiceMonitor({
    db,
    temporal,
    events: serviceEvents,
    failures: new WorkflowFailureWatcher({
      temporal,
      events: serviceEvents,
      repo: repos.serviceEvents,
      temporalUiUrl: config.temporalUiUrl,
      logger: log,
      closedRuns,
    }),
    resetRuns: new ResetRunWatcher({
      temporal,
      endedActions: (ids) => repos.externalActions.withStatusIn(ids, FINAL_ACTION_STATUSES),
      closedRuns,
      logger: log,
    }),
    intervalMs: config.serviceMonitorIntervalMs,
    logger: log,
    housekeeping: async () => {
      const retentionMs = config.idempotencyRetentionHours * 3_600_000;
      await repos.idempotency.prune(new Date(Date.now() - retentionMs).toISOString());
    },
  });
  limiter.start();
  ledger.start();
  monitor.start();
  const stepper = createStepper({ threads: config.engineThreads });
  const witnesses = followWitnesses(new WitnessIndex({ repos }));
  const schedule = config.checkpointSchedule
    ? keepCheckpointSchedule(temporal, config.checkpointSchedule, log, config.publicBaseUrl)
    : undefined;
  const infra = {
    config,
    logger: log,
    mongo,
    db,
    repos,
    authenticator,
    limiter,
    ledger,
    metrics,
    temporal,
    serviceEvents,
    monitor,
    closedRuns,
    worldReads: createWorldReadCache(repos.worldRevisions),
    witnesses,
    reconciler: createReconciler({ repos, logger: log }),
    decisionSigner: createDecisionSigner(decisionSeed(config)),
    ledgerSeal,
    stepper,
    substrateStates: createSubstrateStates(repos.substrateSnapshots, stepper),
    instanceId,
    startedAt: new Date(),
    checkedResponses: new Set<string>(),
    answeredStatuses: new Set<string>(),
    tracing,
  };
  return {
    ...infra,
    async close() {
      schedule?.stop();
      witnesses.stop();
      await monitor.stop();
      await limiter
        .stop()
        .catch((error: unknown) => log.warn({ err: error }, 'limiter flush failed'));
      await ledger.stop();
      await temporal.close();
      await stepper.close();
      await mongo.close();
      await ownTracing?.shutdown();
    },
  };
}
