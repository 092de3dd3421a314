import type { Logger } from 'pino';
import type { TemporalGateway } from '../temporal/gateway';
import type { ClosedRunFollower } from '../domain/closed-runs';

export interface ResetRunWatcherOptions {
  temporal: TemporalGateway;
  /** The actions among these whose ledger holds a final entry. */
  endedActions: (actionIds: string[]) => Promise<Set<string>>;
  closedRuns: Pick<ClosedRunFollower, 'refuseIfEnded'>;
  logger: Logger;
}

/** Visibility is eventually consistent: each scan overlaps the previous one by this much. */
const OVERLAP_MS = 60_000;
const ACTION_PREFIX = 'action-';

/**
 * Finds runs of action workflows started while their action's ledger has ended it: a reset
 * of a workflow that had completed (rejected, executed, expired) closes no run, so the
 * closed-run watcher never sees it, and such a run may only wait (docs/actions.md,
 * "Resets"). Each scan lists the running action workflows started since its watermark, asks
 * the ledger once which of their actions are final, and has the closed-run follower refuse
 * and terminate those runs.
 */
export class ResetRunWatcher {
  private watermark = new Date().toISOString();

  constructor(private readonly options: ResetRunWatcherOptions) {}

  async scan(): Promise<number> {
    const { temporal } = this.options;
    const since = new Date(Date.parse(this.watermark) - OVERLAP_MS).toISOString();
    const queue = temporal.taskQueue.replace(/["\\]/g, '');
    const query = `TaskQueue = "${queue}" AND WorkflowType = "externalActionWorkflow" AND ExecutionStatus = "Running" AND StartTime >= "${since}"`;
    const client = await temporal.getClient();
    const runs = new Map<string, string>();
    let newest = this.watermark;
    for await (const execution of client.workflow.list({ query, pageSize: 500 })) {
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
}
