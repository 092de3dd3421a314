import { ApplicationFailure, Context } from '@temporalio/activity';
import type { RecordTransitionInput } from '../domain/external-actions/record-transitions';
import { executionEnded, failedOutcome, type EffectOutcome } from '../workflows/action-execution';
import { recorded, transitionRecordsOf, type ActionMachine } from '../workflows/action-machine';
import { ACTION_EFFECT_ATTEMPTS } from '../workflows/activity-options';
import {
  ACTION_ERRORS,
  type ActionPlan,
  type ActionState,
} from '../workflows/external-action.contract';

/** What the lean shape's execution step records and applies (`executeRecorded`). */
export interface ExecutionInput {
  /** The machine once executing: its state is the one the held records end in. */
  machine: ActionMachine;
  /** The transitions into `executing` (held by the workflow), chained to the ledger head. */
  executing: RecordTransitionInput[];
  started_at: string;
}

/** The lean shape's execution, recorded: the heads after each part, and how the effect ended. */
export interface ExecutionRecorded {
  executing_head: string;
  outcome: EffectOutcome;
  finished_at: string;
  head: string;
}

interface ExecuteRecordedDeps {
  /** The record activity's work: verify, append, project; answers the ledger head. */
  record: (inputs: RecordTransitionInput[]) => Promise<string>;
  /** The effect activity's work: re-plan, check every signature, apply once. */
  apply: (input: { state: ActionState; plan: ActionPlan }) => Promise<Record<string, unknown>>;
}

/**
 * The lean shape's execution of an effect on our own store, in one local activity
 * (docs/workflow-versioning.md, "Shapes"): the transitions into `executing` enter the ledger
 * first (nothing is applied that the ledger does not show executing), then the effect, then
 * its outcome. An effect failure is an outcome, recorded here: at once when not retryable, or
 * on the effect's `ACTION_EFFECT_ATTEMPTS`th attempt; other failures (the store) are retried,
 * and a retry finds its own entries in the ledger. A run the ledger refuses fails as every
 * record does.
 */
export function createExecuteRecorded(deps: ExecuteRecordedDeps) {
  return async function executeRecorded(input: ExecutionInput): Promise<ExecutionRecorded> {
    const executingHead = await deps.record(input.executing);
    const machine = recorded(input.machine, executingHead);
    let outcome: EffectOutcome;
    try {
      outcome = {
        result: await deps.apply({ state: machine.state, plan: machine.state.dry_run! }),
      };
    } catch (error) {
      const failure = error instanceof ApplicationFailure ? error : undefined;
      if (failure?.type === ACTION_ERRORS.runRefused) throw error;
      const lastAttempt = Context.current().info.attempt >= ACTION_EFFECT_ATTEMPTS;
      if (!failure?.nonRetryable && !lastAttempt) throw error;
      outcome = failedOutcome(failure, error);
    }
    const finishedAt = new Date().toISOString();
    const step = executionEnded(machine, outcome, input.started_at, finishedAt);
    const head = await deps.record(transitionRecordsOf(step, finishedAt, executingHead));
    return { executing_head: executingHead, outcome, finished_at: finishedAt, head };
  };
}
