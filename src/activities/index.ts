import { createActionActivities, type ActionActivityDeps } from './external-actions.activities';
import { createCheckpointActivities, type CheckpointActivityDeps } from './checkpoints.activities';
import {
  createNotificationActivities,
  createNotifier,
  type NotificationDeps,
} from './notifications.activities';
import { createProbeActivities } from './operations.activities';
import { createProofActivities, type ProofActivityDeps } from './proofs.activities';
import { createScenarioActivities, type ScenarioActivityDeps } from './scenarios.activities';
import { createRepairActivities, type RepairActivityDeps } from './repairs.activities';
import { createSubstrateActivities, type SubstrateActivityDeps } from './substrates.activities';
import type { WorkerTrust } from '../domain/worker-trust';

export type ProbeActivities = ReturnType<typeof createProbeActivities>;
export type ActionActivities = ReturnType<typeof createActionActivities>;
export type SubstrateActivities = ReturnType<typeof createSubstrateActivities>;
export type NotificationActivities = ReturnType<typeof createNotificationActivities>;
export type CheckpointActivities = ReturnType<typeof createCheckpointActivities>;
export type RepairActivities = ReturnType<typeof createRepairActivities>;
export type ProofActivities = ReturnType<typeof createProofActivities>;
export type ScenarioActivities = ReturnType<typeof createScenarioActivities>;

export interface ActivityDeps
  extends Omit<ActionActivityDeps, 'notify' | 'trust'>, Omit<NotificationDeps, 'repos'> {
  trust: WorkerTrust;
  repos: ActionActivityDeps['repos'] &
    SubstrateActivityDeps['repos'] &
    NotificationDeps['repos'] &
    CheckpointActivityDeps['repos'] &
    RepairActivityDeps['repos'] &
    ProofActivityDeps['repos'] &
    ScenarioActivityDeps['repos'];
  /** Pepper of the keys scenario runs mint for their principals. */
  keyPepper: string;
  workerIdentity: string;
  chunkStepper?: SubstrateActivityDeps['chunkStepper'];
}

/** Every activity, built over the worker's dependencies. */
export function createActivities(deps: ActivityDeps) {
  const notify = createNotifier(deps);
  return {
    ...createProbeActivities(deps),
    ...createActionActivities({ ...deps, notify }),
    ...createSubstrateActivities({ ...deps, notify }),
    ...createNotificationActivities(deps),
    ...createCheckpointActivities(deps),
    ...createRepairActivities(deps),
    ...createProofActivities(deps),
    ...createScenarioActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
