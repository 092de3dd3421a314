import { threadId } from 'node:worker_threads';
import { restoreSubstrate } from './engine';
import type { StepTask } from './stepper';

/** Runs in a worker thread of the api's engine pool: one state stepped forward. */
export default function stepInThread(task: StepTask): { snapshot: Uint8Array; threadId: number } {
  const state = restoreSubstrate(task.scaffold, task.params, task.tick, task.snapshot);
  state.step(task.ticks);
  return { snapshot: state.snapshot(), threadId };
}
