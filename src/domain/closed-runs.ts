import type { Logger } from 'pino';
import type { ClosureOutcome, WorkflowClosure } from './workflow-closure';
import type { TemporalGateway } from '../temporal/gateway';
import { closureOf, currentRunOf } from '../temporal/closures';
import { updatesDroppedByReset } from '../temporal/reset-divergence';

/** Workflow types whose resource the api reflects when Temporal ends their run. */
const REFLECTED_TYPES = new Set([
  'externalActionWorkflow',
  'substrateDeploymentWorkflow',
  'checkpointWorkflow',
  'repairWorkflow',
]);

/**
 * Why the api terminates a reset run that dropped recorded decisions (docs/temporal-ui.md,
 * "Resets").
 */
export const DIVERGED_RESET_REASON =
  'governed-runtime: this reset dropped decisions the ledger already recorded (updates excluded from reapplying), so this run would go on from a state the ledger contradicts; terminated so its resource ends as aborted';

/** Why the api terminates a reset run of an action its ledger ended (docs/actions.md, "Resets"). */
export const FINAL_RESET_REASON =
  'governed-runtime: this reset started a run of an action whose ledger has ended it; a final status is final, so the run is refused (see the ledger entry run_refused)';

export interface ClosedRunFollowerOptions {
  temporal: TemporalGateway;
  /** Moves the run's resource to its terminal status (`reflectClosure`). */
  reflect: (closure: WorkflowClosure) => Promise<ClosureOutcome>;
  /** Points an action's projection at the current run of its workflow (after a reset). */
  followRun: (actionId: string, runId: string) => Promise<void>;
  /**
   * Records the refusal of a reset's run of an action whose ledger has ended it, with who
   * reset it; answers false when the ledger has not ended the action (the run may go on).
   */
  refuseRunOfFinalAction: (actionId: string, runId: string) => Promise<boolean>;
  logger: Logger;
}

/** A closed run, as the visibility list names it. */
export interface ClosedRun {
  workflowId: string;
  runId: string;
  type: string;
}

/**
 * What the api does with a run of ours that closed other than by completing: it looks at
 * the workflow's current run (one `describe`). Closed too: the resource goes to its terminal
 * status, with who and why from the close event (an action's completed run too, when its
 * ledger has not ended the action). Running under another run id: the closed
 * run was the base of a reset (or the run before a continue-as-new), so the api follows the
 * new run (an action's `run_id`); when the reset dropped decisions the base run had
 * accepted (and the ledger recorded), the api terminates the new run
 * (`DIVERGED_RESET_REASON`) and records the resource's end at once.
 */
export function createClosedRunFollower(options: ClosedRunFollowerOptions) {
  const { temporal, logger } = options;
  async function reflectRun(
    workflowId: string,
    runId: string,
  ): Promise<ClosureOutcome | undefined> {
    const client = await temporal.getClient();
    // An action's run that completed is a closure too: one that completed short of a final
    // status (a reset's run of a build before a fix) would otherwise leave the action open.
    // Recording finds a final ledger and does nothing for every other completed run.
    const completed = workflowId.startsWith('action-');
    const closure = await closureOf(client, workflowId, runId, { completed });
    if (!closure) return undefined; // it completed after all (or continued as new)
    const outcome = await options.reflect(closure);
    if (outcome === 'recorded') {
      logger.warn({ closure }, 'recorded the end of a workflow run ended from Temporal');
    } else if (outcome === 'off_checkpoint') {
      logger.warn(
        { closure },
        'recorded nothing for a closed run: its ledger contradicts its signed checkpoints',
      );
    }
    return outcome;
  }
  async function terminateRun(workflowId: string, runId: string, reason: string): Promise<void> {
    const client = await temporal.getClient();
    await client.workflow
      .getHandle(workflowId, runId)
      .terminate(reason)
      .catch((error: unknown) => {
        // Another api process (or the run itself) ended it first: it is closed either way.
        if ((error as { name?: string }).name !== 'WorkflowNotFoundError') throw error;
      });
  }
  /** Refuses and terminates a run of an action its ledger ended; answers whether it did. */
  async function refuseIfEnded(actionId: string, runId: string): Promise<boolean> {
    if (!(await options.refuseRunOfFinalAction(actionId, runId))) return false;
    logger.warn(
      { workflow_id: `action-${actionId}`, run_id: runId },
      'terminating a reset run of an action its ledger ended',
    );
    await terminateRun(`action-${actionId}`, runId, FINAL_RESET_REASON);
    return true;
  }
  return {
    refuseIfEnded,
    /**
     * Records the end of an action whose workflow's current run is `runId` and completed
     * while the ledger had not ended the action (`aborted`, as for a terminated run); a run
     * a newer one replaced, or one still running, is left to that run.
     */
    async reflectCompleted(actionId: string, runId: string): Promise<ClosureOutcome | undefined> {
      const workflowId = `action-${actionId}`;
      const current = await currentRunOf(await temporal.getClient(), workflowId);
      if (!current || current.running || current.runId !== runId) return undefined;
      return reflectRun(workflowId, runId);
    },
    async follow(run: ClosedRun): Promise<void> {
      if (!REFLECTED_TYPES.has(run.type)) return;
      const client = await temporal.getClient();
      const current = await currentRunOf(client, run.workflowId);
      if (!current) return;
      if (!current.running) {
        await reflectRun(run.workflowId, current.runId);
        return;
      }
      if (current.runId === run.runId) return;
      if (run.workflowId.startsWith('action-')) {
        const actionId = run.workflowId.slice('action-'.length);
        if (await refuseIfEnded(actionId, current.runId)) return;
        await options.followRun(actionId, current.runId);
      }
      const dropped = await updatesDroppedByReset(client, run.workflowId, current.runId);
      if (dropped.length > 0) {
        logger.warn(
          { workflow_id: run.workflowId, run_id: current.runId, dropped_updates: dropped },
          'terminating a reset run that dropped recorded decisions',
        );
        await terminateRun(run.workflowId, current.runId, DIVERGED_RESET_REASON);
        await reflectRun(run.workflowId, current.runId);
      }
    },
    /** Reflects the workflow's current run when it is closed (a decision found it so). */
    async reflectIfClosed(workflowId: string): Promise<ClosureOutcome | undefined> {
      const client = await temporal.getClient();
      const current = await currentRunOf(client, workflowId);
      if (!current || current.running) return undefined;
      return reflectRun(workflowId, current.runId);
    },
  };
}

export type ClosedRunFollower = ReturnType<typeof createClosedRunFollower>;
