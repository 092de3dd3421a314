import type { ApplicationFailure } from '@temporalio/common';
import { EXECUTION_FAILURES, type PlanRefusal } from './external-action.contract';
import {
  effectApplied,
  effectFailed,
  planRefused,
  type ActionMachine,
  type ActionStep,
} from './action-machine';

/** How the effect ended, as the workflow hands it to `executionEnded`. */
export type EffectOutcome =
  | { result: Record<string, unknown> }
  | { failure: { type?: string | null; message: string; refusal?: PlanRefusal } };

/**
 * How an effect that threw ended: its failure's type and message (the error's text when it
 * is no `ApplicationFailure`), and the plan made again that it refused, when it names one.
 */
export function failedOutcome(
  failure: ApplicationFailure | undefined,
  error: unknown,
): EffectOutcome {
  const refusal = failure?.details?.[0] as PlanRefusal | undefined;
  return {
    failure: {
      type: failure?.type ?? null,
      message: failure?.message ?? String(error),
      ...(refusal ? { refusal } : {}),
    },
  };
}

/** The failure types the effect refuses a plan made again with, and what each records. */
const PLAN_REFUSALS: Record<string, 'plan_drift' | 'policy_denied'> = {
  [EXECUTION_FAILURES.planDrift]: 'plan_drift',
  [EXECUTION_FAILURES.policyDenied]: 'policy_denied',
};

/**
 * Execution ended with the effect's outcome: `executed` with its result; a plan the effect
 * made again and refused (`plan_drift`, `policy_denied`, with the plan made now); or
 * `failed` with why.
 */
export function executionEnded(
  machine: ActionMachine,
  outcome: EffectOutcome,
  startedAt: string,
  at: string,
): ActionStep {
  if ('result' in outcome) return effectApplied(machine, outcome.result, startedAt, at);
  const { failure } = outcome;
  const refused = failure.type ? PLAN_REFUSALS[failure.type] : undefined;
  return refused && failure.refusal?.replanned_digest
    ? planRefused(machine, refused, failure.refusal, startedAt, at)
    : effectFailed(machine, failure, startedAt, at);
}
