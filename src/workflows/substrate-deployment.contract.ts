import { defineQuery } from '@temporalio/workflow';
import type { DeploymentRecord, NormalizedSpec } from '../store/substrate-deployments.repo';

/**
 * What a run of the deployment workflow holds: the record without its spec (the spec, up to
 * 64 KiB of pattern, is read by id from the store where needed, so it never accumulates in
 * history), plus what the run needs to carry across continue-as-new.
 */
export type DeploymentProgressState = Omit<DeploymentRecord, 'spec'> & { spec?: NormalizedSpec };

export interface DeploymentWorkflowInput {
  /** The record: with its spec on the first run, without it after continue-as-new. */
  deployment: DeploymentProgressState;
  /** What the Web UI shows for it (scaffold, size, rule), kept across runs. */
  label?: string;
  /** Epoch ms at which the deploying stage passes its wall-time bound (set once). */
  deploy_deadline_ms?: number;
  /** Chunks a run computes before it continues as new (default 100). */
  chunks_per_run?: number;
}

/**
 * The certification pack the deployment pipeline runs in its assaying stage. It is part of
 * the workflow's contract (its histories name it), so it lives here and the registry of
 * packs refers to it.
 */
export const PIPELINE_PACK_ID = 'conformance';

/** The deployment workflow's signature, which the workflow checks itself against. */
export type SubstrateDeploymentWorkflow = (
  input: DeploymentWorkflowInput,
) => Promise<DeploymentProgressState>;

export const DEPLOYMENT_ERRORS = {
  invalidSpec: 'InvalidSpec',
  /** A snapshot the run needs is gone: deterministic, retrying cannot help. */
  snapshotMissing: 'SnapshotMissing',
  /** The deployment record is gone from the store. */
  deploymentMissing: 'DeploymentMissing',
  wallTimeExceeded: 'WallTimeExceeded',
  assayFailed: 'AssayFailed',
} as const;

export const deploymentWorkflowId = (deploymentId: string): string => `deployment-${deploymentId}`;

export const deploymentStateQuery = defineQuery<DeploymentProgressState>('deploymentState');
