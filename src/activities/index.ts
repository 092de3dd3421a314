import { createActionActivities, type ActionActivityDeps } from './actions.activities';
import { createProbeActivities } from './probe.activities';

export type ProbeActivities = ReturnType<typeof createProbeActivities>;
export type ActionActivities = ReturnType<typeof createActionActivities>;

export interface ActivityDeps extends ActionActivityDeps {
  workerIdentity: string;
}

/** Every activity, built over the worker's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createProbeActivities(deps), ...createActionActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
