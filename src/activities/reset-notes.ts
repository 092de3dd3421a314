import { Context } from '@temporalio/activity';
import { LRUCache } from 'lru-cache';
import type { RecordTransitionInput } from '../domain/external-actions/record-transitions';
import type { ResetOrigin } from '../domain/external-actions/refuse-run';
import { resetOriginOf } from '../temporal/reset-divergence';
import { schedulingWorkflow } from './scheduling-workflow';

/**
 * Notes a reset where it took effect (docs/actions.md, "Resets"): the entries a run that a
 * reset started writes carry `detail.reset` (the base run, who reset it and why, from the
 * run's history, read once per run per worker), so the ledger shows the reset at the first
 * transition the new run records. Transitions it redoes that the ledger holds stay as
 * written. A run of the first chain (`first_run_id`) is no reset's.
 */
export function createResetNoter() {
  const origins = new LRUCache<string, { origin: ResetOrigin | null }>({ max: 1_000 });
  return async function noteReset(
    inputs: RecordTransitionInput[],
    runId: string | null,
  ): Promise<RecordTransitionInput[]> {
    const firstRunId = inputs[0]?.state.first_run_id;
    if (!runId || !firstRunId || runId === firstRunId) return inputs;
    let cached = origins.get(runId);
    if (!cached) {
      const { workflowId } = schedulingWorkflow();
      const origin = await Promise.resolve()
        .then(() => resetOriginOf(Context.current().client, workflowId, runId))
        .catch(() => null);
      cached = { origin };
      origins.set(runId, cached);
    }
    const reset = cached.origin;
    return reset
      ? inputs.map((input) => ({ ...input, detail: { ...input.detail, reset } }))
      : inputs;
  };
}
