import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator';
import type { DecisionSigner } from '../auth/decision-signer';
import type { Config } from '../config';
import type { ClosedRunFollower } from './closed-runs';
import type { Metrics } from '../observability/metrics';
import type { RequestLedgerWriter } from '../observability/request-ledger-writer';
import type { ServiceEventRecorder } from '../observability/service-events';
import type { ServiceMonitor } from '../observability/service-monitor';
import type { Repos } from '../store';
import type { TemporalGateway } from '../temporal/gateway';
import type { LedgerSeal } from './external-actions/ledger-seal';
import type { Reconciler } from './external-events/reconciler';
import type { SubstrateStates } from './substrates/states';
import type { Stepper } from './substrates/stepper';
import type { WitnessSource } from './witnesses/witness-index';
import type { WorldReadCache } from './world/world-read-cache';

/**
 * What domain operations are built from. Each operation takes only the part it uses
 * (`Pick<DomainInfra, 'repos' | 'temporal'>`), so a test passes just that. The composition
 * root (`src/app`) builds one value that is a `DomainInfra` and more; it is declared here,
 * beside its users, so the domain never imports the root that assembles it.
 */
export interface DomainInfra {
  config: Config;
  logger: Logger;
  repos: Repos;
  authenticator: Authenticator;
  temporal: TemporalGateway;
  metrics: Metrics;
  /** The request ledger's writer (flushes the HTTP request rows). */
  ledger: RequestLedgerWriter;
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
  /** Signs every proposal and decision the api forwards to an action workflow (Ed25519). */
  decisionSigner: DecisionSigner;
  /** Seals the action ledger entries the api records (`aborted`) and checkpoints them. */
  ledgerSeal: LedgerSeal;
  /** Engine stepping for reads, on a pool of threads (`ENGINE_THREADS`). */
  stepper: Stepper;
  /** Deployment states at any computed tick, recent ones cached. */
  substrateStates: SubstrateStates;
  /** This api process, as named in rate-limit shards and service events. */
  instanceId: string;
  startedAt: Date;
}
