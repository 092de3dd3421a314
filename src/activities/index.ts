import { createActionActivities, type ActionActivityDeps } from './actions.activities';
import { createProbeActivities } from './probe.activities';
import { createSubstrateActivities, type SubstrateActivityDeps } from './substrates.activities';

export type ProbeActivities = ReturnType<typeof createProbeActivities>;
export type ActionActivities = ReturnType<typeof createActionActivities>;
export type SubstrateActivities = ReturnType<typeof createSubstrateActivities>;

export interface ActivityDeps extends ActionActivityDeps {
  repos: ActionActivityDeps['repos'] & SubstrateActivityDeps['repos'];
  workerIdentity: string;
}

/** Every activity, built over the worker's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createProbeActivities(deps),
    ...createActionActivities(deps),
    ...createSubstrateActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
