import type { DomainInfra } from '../infra';
import { found, Invalid, notFound } from '../../lib/errors';
import type { DeploymentListQuery, SubstrateDeployRequest } from './schemas';
import type { AuthContext } from '../../auth/auth-context';
import { newId } from '../../lib/ids';
import { pageById } from '../../store/paging';
import type { DeploymentRecord, NormalizedSpec } from '../../store/substrate-deployments.repo';
import { deploymentStartText } from './deployment-text';
import { workflowUrlOf, type LinkDeps } from '../workflow-links';
import { startWorkflow } from '../workflow-start';
import {
  DeploymentEnvelopeKey,
  DeploymentStageKey,
  ProposedByKey,
} from '../../workflows/shared.contract';
import {
  deploymentWorkflowId,
  type DeploymentWorkflowInput,
} from '../../workflows/substrate-deployment.contract';
import { chunkPlan } from './chunking';
import { admitDeployment, type HeavyWorkAdmission } from './heavy-work';
import { compileNormalized, requireValidSpec } from './compile.service';
import { specOfManifest, type SubstrateManifest } from './manifest';
import { envelopeRegistry } from './registry/registry';

type DeployDeps = Pick<DomainInfra, 'config' | 'repos' | 'temporal' | 'metrics'>;

/** A deployment as clients see it; with `links`, its Web UI page as `workflow_url`. */
export function toDeploymentView(record: DeploymentRecord, links?: LinkDeps) {
  const { _id, organization_id: _org, ...rest } = record;
  return {
    deployment_id: _id,
    ...rest,
    ...(links ? { workflow_url: workflowUrlOf(links, record.workflow_id) } : {}),
  };
}

export async function getDeployment(deps: Pick<DomainInfra, 'repos'>, deploymentId: string) {
  const record = await found(
    deps.repos.substrateDeployments.findById(deploymentId),
    `deployment ${deploymentId}`,
  );
  return record;
}

/** `GET /v1/substrates/deployments`: newest first, optionally in one stage. */
export const listDeployments = (
  deps: Pick<DomainInfra, 'config' | 'repos' | 'temporal'>,
  query: DeploymentListQuery,
) =>
  pageById(
    query,
    'dep',
    (limit, before) => deps.repos.substrateDeployments.list({ stage: query.stage }, limit, before),
    (record) => toDeploymentView(record, deps),
  );

/** The spec to deploy: the body's, or the one a compiled manifest was made from. */
async function specToDeploy(deps: DeployDeps, body: SubstrateDeployRequest) {
  if (body.spec) return requireValidSpec(body.spec, ['spec']);
  const artifact = await found(
    deps.repos.artifacts.findById(body.artifact_id!),
    `artifact ${body.artifact_id}`,
  );
  if (artifact.kind !== 'manifest') {
    throw new Invalid([
      {
        loc: ['body', 'artifact_id'],
        msg: `artifact ${artifact._id} is a ${artifact.kind}, not a compiled manifest`,
        type: 'value_error',
      },
    ]);
  }
  const content = await deps.repos.artifacts.content(artifact);
  if (!content) throw notFound(`content of artifact ${artifact._id}`);
  const manifest = JSON.parse(content.toString('utf8')) as SubstrateManifest;
  return requireValidSpec(specOfManifest(manifest), ['artifact_id']);
}

/**
 * `POST /v1/substrates/deploy`. The spec is validated and compiled here, so a bad spec is
 * a 422 and never a failed deployment; then the record is written and its workflow started.
 * Every deployment takes the next binding of its manifest (a unique insert); `bind` first
 * returns the newest bound deployment when it is running or ready. A new deployment must
 * first be admitted by the limits on heavy work of its key and organization (`heavy-work.ts`:
 * a 429 naming the limit); its workflow gives its slots back when it reaches a final stage.
 */
export async function deploy(deps: DeployDeps, auth: AuthContext, body: SubstrateDeployRequest) {
  const spec = await specToDeploy(deps, body);
  const { artifact } = await compileNormalized(deps, spec);
  const repo = deps.repos.substrateDeployments;
  const deploymentId = newId('dep');
  // Taken once a new deployment is needed; given back unless its workflow starts.
  let admission: HeavyWorkAdmission | undefined;
  let started = false;
  try {
    for (;;) {
      const newest = await repo.newestBinding(artifact.artifact_id);
      if (body.mode === 'bind' && newest) {
        const bound = await boundDeployment(repo, newest.deployment_id);
        if (bound && (bound.status === 'running' || bound.status === 'ready')) {
          await admission?.withdraw();
          admission = undefined;
          return { created: false, deployment: toDeploymentView(bound, deps) };
        }
      }
      admission ??= await admitDeployment(deps, auth, deploymentId, spec);
      const number = (newest ? Number(newest._id.split(':').pop()) : 0) + 1;
      const now = new Date().toISOString();
      if (await repo.claimBinding(artifact.artifact_id, number, deploymentId, now)) {
        const record = newRecord(deploymentId, spec, auth, now);
        await start(deps, record, auth.principalName, () => (started = true));
        return { created: true, deployment: toDeploymentView(record, deps) };
      }
      // Another deploy of the same manifest took that binding: look again.
    }
  } catch (error) {
    // A deployment that never started holds no slot and costs nothing.
    if (!started) await admission?.withdraw();
    throw error;
  }
}

/** How long a bind waits for the record of a deployment whose start is under way. */
const BOUND_RECORD_WAIT_MS = 3000;

/**
 * The deployment a binding names. Its record is written just after its workflow starts, so
 * a binding claimed a moment ago may have none yet: wait for it briefly; a binding whose
 * record never comes lost its starter before the start (nothing runs for it).
 */
async function boundDeployment(
  repo: DeployDeps['repos']['substrateDeployments'],
  deploymentId: string,
): Promise<DeploymentRecord | null> {
  const deadline = Date.now() + BOUND_RECORD_WAIT_MS;
  for (;;) {
    const record = await repo.findById(deploymentId);
    if (record || Date.now() > deadline) return record;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function newRecord(id: string, spec: NormalizedSpec, auth: AuthContext, now: string) {
  const { interval, trailStep } = chunkPlan(
    spec.params.width,
    spec.params.height,
    spec.params.ticks,
  );
  const record: DeploymentRecord = {
    _id: id,
    spec,
    manifest_artifact_id: null,
    manifest_sha256: null,
    initial_digest: null,
    status: 'running',
    stage: 'validating',
    progress: { tick: 0, ticks_total: spec.params.ticks },
    snapshot_interval: interval,
    trail_step: trailStep,
    max_wall_seconds: envelopeRegistry.get(spec.envelope).max_wall_seconds,
    error: null,
    final: null,
    assay: null,
    stage_timestamps: { validating: now },
    workflow_id: deploymentWorkflowId(id),
    organization_id: auth.organizationId,
    created_by: auth.principalId,
    created_at: now,
    updated_at: now,
  };
  return record;
}

/**
 * Starts the deployment's workflow first, its id the business id, so the workflow is the
 * source of truth: the record it projects exists even when this process dies right after
 * the start. Only then is the api's own first copy written (the workflow's copy, when it
 * got there first, is newer and kept).
 */
async function start(
  deps: DeployDeps,
  record: DeploymentRecord,
  requester: string | undefined,
  onStarted: () => void,
): Promise<void> {
  const { spec } = record;
  const text = deploymentStartText(deps, record, requester);
  const input: DeploymentWorkflowInput = { deployment: record, label: text.label };
  await startWorkflow(deps, {
    workflowType: 'substrateDeploymentWorkflow',
    workflowId: record.workflow_id,
    args: [input],
    searchAttributes: [
      { key: DeploymentStageKey, value: 'validating' },
      { key: DeploymentEnvelopeKey, value: spec.envelope },
      { key: ProposedByKey, value: record.created_by },
    ],
    staticSummary: text.summary,
    staticDetails: text.details,
  });
  onStarted();
  await deps.repos.substrateDeployments.insertFirst(record);
}
