import type { Db, MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator';
import type { RateLimiter } from '../auth/rate-limiter';
import type { Config } from '../config';
import type { Metrics } from '../observability/metrics';
import type { RequestLedgerWriter } from '../observability/request-ledger-writer';
import type { ServiceEventRecorder } from '../observability/service-events';
import type { ServiceMonitor } from '../observability/service-monitor';
import type { ClosedRunFollower } from '../observability/closed-runs';
import type { Repos } from '../store';
import type { TemporalGateway } from '../temporal/gateway';
import type { WorldReadCache } from '../domain/world/world-read-cache';
import type { WitnessSource } from '../domain/witnesses/witness-index';
import type { Reconciler } from '../domain/events/reconciler';
import type { SubstrateStates } from '../domain/substrates/states';
import type { Stepper } from '../domain/substrates/stepper';
import type { DecisionSigner } from '../auth/decision-signer';

/** What the api is built from: configuration, clients, repositories and the stateful parts. */
export interface AppInfra {
  config: Config;
  logger: Logger;
  mongo: MongoClient;
  db: Db;
  repos: Repos;
  authenticator: Authenticator;
  limiter: RateLimiter;
  ledger: RequestLedgerWriter;
  metrics: Metrics;
  temporal: TemporalGateway;
  /** Writes this process's service events (start/stop, backend transitions). */
  serviceEvents: ServiceEventRecorder;
  /** Probes the backends periodically and records their transitions. */
  monitor: ServiceMonitor;
  /** Records the end of a workflow run ended from Temporal in its resource (docs/operations.md). */
  closedRuns: ClosedRunFollower;
  /** This process's event reconciler: per-object queues, a state cache, a write gate. */
  reconciler: Reconciler;
  /** Whole-world reads, cached until the world revision moves. */
  worldReads: WorldReadCache;
  /** The records the witnesses read, folded from the witness journal. */
  witnesses: WitnessSource;
  /** Signs every decision the api forwards to an action workflow (Ed25519). */
  decisionSigner: DecisionSigner;
  /** Engine stepping for reads, on a pool of threads (`ENGINE_THREADS`). */
  stepper: Stepper;
  /** Deployment states at any computed tick, recent ones cached. */
  substrateStates: SubstrateStates;
  /** This api process, as named in rate-limit shards and service events. */
  instanceId: string;
  startedAt: Date;
  /** Routes whose 2xx body was checked against its schema (`VALIDATE_RESPONSES`, tests). */
  checkedResponses: Set<string>;
  /** `<operationId> <status>` of every answer (`VALIDATE_RESPONSES`, tests), to prove each is documented. */
  answeredStatuses: Set<string>;
}
