import { createProbeActivities } from './probe.activities';

export type ProbeActivities = ReturnType<typeof createProbeActivities>;

export interface ActivityDeps {
  workerIdentity: string;
}

/** Every activity, built over the worker's dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createProbeActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
