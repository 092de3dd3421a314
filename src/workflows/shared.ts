/**
 * The only workflow module the api imports: task queue, workflow names, message
 * definitions and input/output types shared by client and workflows.
 */
export const TASK_QUEUE = 'governed-runtime';

/** Custom search attributes registered on the Temporal namespace (never a bare `Status`). */
export const SEARCH_ATTRIBUTES = [
  'ActionStatus',
  'ActionKind',
  'SharedContextId',
  'DeploymentStage',
] as const;

export interface ServiceProbeInput {
  requestedAt: string;
}

export interface ServiceProbeResult {
  requestedAt: string;
  /** When the activity ran on a worker. */
  activityAt: string;
  workerIdentity: string;
}
