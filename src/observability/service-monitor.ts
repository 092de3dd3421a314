import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { pingMongo } from '../store/mongo';
import type { TemporalGateway } from '../temporal/gateway';
import type { ServiceEventRecorder } from './service-events';
import type { WorkflowFailureWatcher } from './workflow-failures';

/** The backends whose up/down transitions become service events. */
export type BackendName = 'mongodb' | 'temporal' | 'worker';

/** One probe of the backends. */
export interface BackendProbe {
  checked_at: string;
  mongodb: { up: boolean; latency_ms: number; error: string | null };
  temporal: {
    up: boolean;
    latency_ms: number;
    error: string | null;
    /** Workers seen polling the task queue in the last minute (0 when Temporal is down). */
    pollers: number;
  };
}

interface BackendState {
  up: boolean;
  since: string;
}

export interface ServiceMonitorOptions {
  db: Db;
  temporal: TemporalGateway;
  events: ServiceEventRecorder;
  failures: WorkflowFailureWatcher;
  /** Ends reset runs of actions their ledger ended, which no closed run announces. */
  resetRuns?: { scan(): Promise<unknown> };
  intervalMs: number;
  logger: Logger;
  /**
   * Periodic clean-up run each tick while MongoDB is up (expired idempotency records):
   * FerretDB v1 has no TTL indexes, so what expires is deleted here.
   */
  housekeeping?: () => Promise<void>;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

/**
 * Probes MongoDB, Temporal and the task queue's pollers every `intervalMs` (and whenever
 * service health asks) and records a `backend.down` / `backend.up` service event on each
 * transition only, never per probe. A backend first seen down is recorded; first seen up
 * is not (the process start says as much). Each tick also scans Temporal for failed
 * workflows (`WorkflowFailureWatcher`) and retries events kept while MongoDB was down.
 */
export class ServiceMonitor {
  private readonly states = new Map<BackendName, BackendState>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private last: BackendProbe | undefined;
  private first: Promise<BackendProbe> | undefined;

  constructor(private readonly options: ServiceMonitorOptions) {}

  start(): void {
    if (this.timer) return;
    this.first = this.probe();
    this.first.catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'first service probe failed'),
    );
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => (this.ticking = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  /** Probes every backend once and records the transitions it shows. */
  async probe(): Promise<BackendProbe> {
    const mongoStarted = performance.now();
    const mongoCheck = pingMongo(this.options.db).then((error) => ({
      error,
      latency: performance.now() - mongoStarted,
    }));
    const temporalStarted = performance.now();
    const temporalCheck = this.options.temporal.health().then((health) => ({
      health,
      latency: performance.now() - temporalStarted,
    }));
    const [mongo, temporal] = await Promise.all([mongoCheck, temporalCheck]);
    const probe: BackendProbe = {
      checked_at: new Date().toISOString(),
      mongodb: { up: !mongo.error, latency_ms: round(mongo.latency), error: mongo.error ?? null },
      temporal: {
        up: temporal.health.reachable,
        latency_ms: round(temporal.latency),
        error: temporal.health.error ?? null,
        pollers: temporal.health.pollers,
      },
    };
    this.last = probe;
    await this.observe('mongodb', probe.mongodb.up, probe.mongodb.error);
    await this.observe('temporal', probe.temporal.up, probe.temporal.error);
    // With Temporal down, whether a worker polls is unknown: the worker state is left as is.
    if (probe.temporal.up) {
      await this.observe(
        'worker',
        probe.temporal.pollers > 0,
        probe.temporal.pollers > 0 ? null : 'no worker is polling the task queue',
      );
    }
    return probe;
  }

  /**
   * The newest probe, as the periodic probing left it (readiness reads this: no backend
   * round trip per call); before the first probe has finished, that probe.
   */
  async lastProbe(): Promise<BackendProbe> {
    return this.last ?? (await (this.first ??= this.probe()));
  }

  /** The last known state of each backend (undefined before the first probe). */
  state(backend: BackendName): BackendState | undefined {
    return this.states.get(backend);
  }

  private async observe(backend: BackendName, up: boolean, error: string | null): Promise<void> {
    const now = new Date().toISOString();
    const previous = this.states.get(backend);
    if (previous?.up === up) return;
    this.states.set(backend, { up, since: now });
    if (!previous && up) return;
    const downFor = previous && up ? (Date.parse(now) - Date.parse(previous.since)) / 1000 : null;
    await this.options.events.record({
      kind: up ? 'backend.up' : 'backend.down',
      level: up ? 'info' : 'error',
      at: now,
      message: up
        ? `${backend} is reachable again`
        : `${backend} is unreachable${error ? `: ${error}` : ''}`,
      detail: {
        backend,
        ...(up ? { down_seconds: downFor === null ? null : Math.round(downFor) } : { error }),
      },
    });
  }

  private async tick(): Promise<void> {
    try {
      const probe = await this.probe();
      if (probe.temporal.up && probe.mongodb.up) {
        await this.options.failures.scan();
        await this.options.resetRuns?.scan();
      }
      await this.options.events.retry();
      if (probe.mongodb.up) await this.options.housekeeping?.();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'service monitor tick failed');
    }
  }
}
