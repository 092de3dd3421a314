import { newId } from '../../src/lib/ids';
import type { DeploymentRecord, NormalizedSpec } from '../../src/store/substrate-deployments.repo';
import { deploymentWorkflowId } from '../../src/workflows/substrate-deployment.contract';

/** A fresh deployment record of `spec` at stage `validating`, as the api makes one. */
export function deploymentRecordOf(
  spec: NormalizedSpec,
  overrides: Partial<DeploymentRecord> = {},
): DeploymentRecord {
  const now = new Date().toISOString();
  const id = newId('dep');
  return {
    _id: id,
    spec,
    manifest_artifact_id: null,
    manifest_sha256: null,
    initial_digest: null,
    status: 'running',
    stage: 'validating',
    progress: { tick: 0, ticks_total: spec.params.ticks },
    snapshot_interval: 5,
    trail_step: 1,
    max_wall_seconds: 600,
    error: null,
    final: null,
    assay: null,
    stage_timestamps: { validating: now },
    workflow_id: deploymentWorkflowId(id),
    organization_id: 'org_test',
    created_by: 'prn_test',
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}
