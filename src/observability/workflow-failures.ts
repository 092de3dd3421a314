import type { Logger } from 'pino';
import type { ServiceEventsRepo } from '../store/service-events.repo';
import type { TemporalGateway } from '../temporal/gateway';
import type { ClosedRunFollower } from '../domain/closed-runs';
import { stableEventId, type ServiceEventRecorder } from './service-events';

export interface WorkflowFailureWatcherOptions {
  temporal: TemporalGateway;
  events: ServiceEventRecorder;
  repo: ServiceEventsRepo;
  temporalUiUrl: string;
  logger: Logger;
  /** How far back the first scan of a process looks when no failure was recorded yet. */
  lookbackMs?: number;
  /** Reflects each run closed from outside our code in its resource (`src/domain/closed-runs.ts`). */
  closedRuns?: Pick<ClosedRunFollower, 'follow'>;
}

/** Closed executions that count as failures, by their visibility name. */
const FAILED_STATUSES = ['Failed', 'TimedOut', 'Terminated'];
/** Closed executions whose resource may need its end recorded: the failures and cancellations. */
const SCANNED_STATUSES = [...FAILED_STATUSES, 'Canceled'];
/** Visibility is eventually consistent: each scan overlaps the previous one by this much. */
const OVERLAP_MS = 60_000;
/** Its failures are the worker being unavailable, which service health reports. */
const IGNORED_TYPES = new Set(['serviceProbeWorkflow']);

/**
 * Turns failed workflow executions on the task queue into `workflow.failed` service events,
 * and hands every run closed other than by completing (cancelled ones too) to the closed-run
 * follower, which records the end in the run's resource (an action `aborted`, …).
 *
 * It asks Temporal's visibility store (the source of truth, durable, and it sees failures
 * no workflow code can report: timeouts, terminations, crashes) for executions of our task
 * queue closed as Failed, TimedOut or Terminated since its watermark. Each failure's event
 * id is a digest of (workflow id, run id), so every api instance scanning inserts the same
 * row once (a unique-insert claim), and a restart that rescans records nothing twice.
 */
export class WorkflowFailureWatcher {
  private watermark: string | undefined;

  constructor(private readonly options: WorkflowFailureWatcherOptions) {}

  /** Records the failures closed since the last scan; answers how many were new. */
  async scan(): Promise<number> {
    const { temporal, events, repo } = this.options;
    if (this.watermark === undefined) {
      const newest = await repo.newestOfKind('workflow.failed');
      this.watermark =
        newest?.at ?? new Date(Date.now() - (this.options.lookbackMs ?? 86_400_000)).toISOString();
    }
    const since = new Date(Date.parse(this.watermark) - OVERLAP_MS).toISOString();
    const queue = temporal.taskQueue.replace(/["\\]/g, '');
    const statuses = SCANNED_STATUSES.map((status) => `"${status}"`).join(', ');
    const query = `TaskQueue = "${queue}" AND ExecutionStatus IN (${statuses}) AND CloseTime >= "${since}"`;
    const client = await temporal.getClient();
    let recorded = 0;
    let newest = this.watermark;
    for await (const execution of client.workflow.list({ query, pageSize: 100 })) {
      const closedAt = execution.closeTime?.toISOString();
      if (!closedAt || IGNORED_TYPES.has(execution.type)) continue;
      if (closedAt > newest) newest = closedAt;
      // Reflected first: a failure here ends the scan before the watermark moves, as below.
      await this.options.closedRuns?.follow(execution);
      if (execution.status.name === 'CANCELLED') continue;
      const status = execution.status.name.toLowerCase();
      const id = stableEventId('workflow.failed', execution.workflowId, execution.runId);
      // A failed insert ends the scan before the watermark moves: the next scan retries it.
      const inserted = await repo.insert({
        _id: id,
        at: closedAt,
        kind: 'workflow.failed',
        level: 'error',
        instance: events.instance,
        message: `workflow ${execution.type} ${execution.workflowId} closed ${status.replace('_', ' ')}`,
        detail: {
          workflow_id: execution.workflowId,
          run_id: execution.runId,
          workflow_type: execution.type,
          status,
          task_queue: execution.taskQueue,
          started_at: execution.startTime.toISOString(),
          closed_at: closedAt,
          temporal_ui: `${this.options.temporalUiUrl}/namespaces/${temporal.namespace}/workflows/${encodeURIComponent(execution.workflowId)}/${execution.runId}/history`,
        },
      });
      if (inserted) recorded += 1;
    }
    this.watermark = newest;
    return recorded;
  }
}
