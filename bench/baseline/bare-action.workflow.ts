import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BareActivities } from './bare-temporal-worker';

export const readyUpdate = defineUpdate<boolean>('ready');
export const goUpdate = defineUpdate<boolean>('go');

const { applyEffect } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });

/**
 * The Temporal baseline of the actions benchmark: the least a human-gated action needs,
 * one update (the decision) and one activity (the effect), driven by the client directly.
 */
export async function bareActionWorkflow(id: string): Promise<string> {
  let go = false;
  setHandler(readyUpdate, () => true);
  setHandler(goUpdate, () => {
    go = true;
    return true;
  });
  await condition(() => go);
  return applyEffect(id);
}

/** The Temporal baseline of the repair benchmark: a workflow that runs one activity. */
export async function bareOneActivityWorkflow(id: string): Promise<string> {
  return applyEffect(id);
}
