import type { Logger } from 'pino';
import type { TemporalGateway } from '../temporal/gateway';
import type { ClosedRunFollower } from '../domain/closed-runs';
import { FINAL_ACTION_STATUSES } from '../workflows/external-action.contract';

export interface ResetRunWatcherOptions {
  temporal: TemporalGateway;
  /** The actions among these whose ledger holds a final entry. */
  endedActions: (actionIds: string[]) => Promise<Set<string>>;
  closedRuns: Pick<ClosedRunFollower, 'refuseIfEnded' | 'reflectCompleted'>;
  logger: Logger;
}

/** Visibility is eventually consistent: each scan overlaps the previous one by this much. */
const OVERLAP_MS = 60_000;
const ACTION_PREFIX = 'action-';
/** What a completed run shows when it ended as it should: a final status (or a refusal). */
const FINAL_SHOWN: readonly string[] = [...FINAL_ACTION_STATUSES, 'refused'];

/**
 * Finds runs of action workflows that disagree with their action's ledger where no closed
 * run shows it (docs/actions.md, "Resets"). Started while the ledger has ended the action: a
 * reset of a workflow that had completed (rejected, executed, expired) closes no run, so the
 * closed-run watcher never sees it, and such a run may only wait. Completed while the ledger
 * has not ended the action: the closed-run watcher ignores completed runs, and the action
 * would stay open. Each scan lists the action workflows started (running) and completed
 * since its watermarks, asks the ledger once which of their actions are final, and has the
 * closed-run follower refuse and terminate the first, and record the end of the second.
 */
export class ResetRunWatcher {
  private watermark = new Date().toISOString();
  private completedWatermark = this.watermark;
  /** Completed runs found final or recorded, with their close time: each is judged once. */
  private readonly judged = new Map<string, string>();

  constructor(private readonly options: ResetRunWatcherOptions) {}

  async scan(): Promise<number> {
    return (await this.scanRunning()) + (await this.scanCompleted());
  }

  private async scanRunning(): Promise<number> {
    const since = new Date(Date.parse(this.watermark) - OVERLAP_MS).toISOString();
    const runs = new Map<string, string>();
    let newest = this.watermark;
    for await (const execution of this.list('Running', `StartTime >= "${since}"`)) {
      const startedAt = execution.startTime.toISOString();
      if (startedAt > newest) newest = startedAt;
      if (execution.workflowId.startsWith(ACTION_PREFIX)) {
        runs.set(execution.workflowId.slice(ACTION_PREFIX.length), execution.runId);
      }
    }
    let refused = 0;
    if (runs.size > 0) {
      const ended = await this.options.endedActions([...runs.keys()]);
      for (const actionId of ended) {
        const runId = runs.get(actionId)!;
        if (await this.options.closedRuns.refuseIfEnded(actionId, runId)) refused += 1;
      }
    }
    this.watermark = newest;
    return refused;
  }

  /**
   * Completed runs whose action the ledger has not ended: recorded `aborted`. Only runs
   * that completed showing a status that is not final are listed (`ActionStatus`, which the
   * workflow sets with every transition): a run that ends normally shows its final status, so
   * the list is empty but for the runs this looks for, and a busy service's thousands of
   * completed runs are never read. The search attribute only narrows the list; the ledger
   * decides. A completed run is judged once, however many scans overlap it; a failed
   * recording leaves it unjudged, so the next scan tries again.
   */
  private async scanCompleted(): Promise<number> {
    const since = new Date(Date.parse(this.completedWatermark) - OVERLAP_MS).toISOString();
    const runs = new Map<string, { runId: string; closedAt: string }>();
    let newest = this.completedWatermark;
    const notFinal = `ActionStatus NOT IN (${FINAL_SHOWN.map((s) => `"${s}"`).join(', ')})`;
    for await (const execution of this.list(
      'Completed',
      `CloseTime >= "${since}" AND ${notFinal}`,
    )) {
      const closedAt = execution.closeTime?.toISOString() ?? since;
      if (closedAt > newest) newest = closedAt;
      if (!execution.workflowId.startsWith(ACTION_PREFIX)) continue;
      if (this.judged.has(execution.runId)) continue;
      runs.set(execution.workflowId.slice(ACTION_PREFIX.length), {
        runId: execution.runId,
        closedAt,
      });
    }
    let recorded = 0;
    if (runs.size > 0) {
      const ended = await this.options.endedActions([...runs.keys()]);
      for (const [actionId, { runId, closedAt }] of runs) {
        if (!ended.has(actionId)) {
          const outcome = await this.options.closedRuns.reflectCompleted(actionId, runId);
          if (outcome === 'recorded') recorded += 1;
        }
        this.judged.set(runId, closedAt);
      }
    }
    // A run closed before the overlap is never listed again.
    for (const [runId, closedAt] of this.judged) if (closedAt < since) this.judged.delete(runId);
    this.completedWatermark = newest;
    return recorded;
  }

  /** The action workflows of our task queue in `status`, filtered by `since`. */
  private async *list(status: 'Running' | 'Completed', since: string) {
    const { temporal } = this.options;
    const queue = temporal.taskQueue.replace(/["\\]/g, '');
    const query = `TaskQueue = "${queue}" AND WorkflowType = "externalActionWorkflow" AND ExecutionStatus = "${status}" AND ${since}`;
    const client = await temporal.getClient();
    yield* client.workflow.list({ query, pageSize: 500 });
  }
}
