import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { SubstrateActivities } from '../activities';
import { chunkPlan } from '../domain/substrates/chunking';
import { PIPELINE_PACK_ID } from '../domain/substrates/registry/certification-packs';
import {
  DEPLOYMENT_ERRORS,
  DeploymentStageKey,
  deploymentStateQuery,
  type DeploymentState,
  type DeploymentWorkflowInput,
} from './shared';

// Short reads and writes of our own store: local activities, no round trip through the server.
const { recordDeployment, validateDeployment, compileDeployment, observeDeployment } =
  proxyLocalActivities<SubstrateActivities>({
    startToCloseTimeout: '30 seconds',
    retry: {
      initialInterval: '200 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
    },
  });

// The engine work: regular activities with their own timeouts, visible in the UI. A chunk
// heartbeats about once a second, so a worker lost mid-chunk is noticed within the heartbeat
// timeout and the chunk re-runs on another worker from the same snapshot.
const { runDeploymentChunk } = proxyActivities<SubstrateActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds' },
});
// The pipeline's assay replays a bounded sample (docs/substrates.md): seconds at most, so
// a local activity, without a round trip through the server.
const { assayDeployment } = proxyLocalActivities<SubstrateActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds' },
});

const now = (): string => new Date().toISOString();
/** A deep copy that the workflow sandbox can always make (plain JSON state). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Why the pipeline stopped, in words an operator can act on. */
function reasonOf(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return reasonOf(error.cause);
  return error instanceof Error ? error.message : String(error);
}

/**
 * One substrate deployment: validate → compile → deploy (the run, in chunks) → observe →
 * assay → ready, or failed / cancelled. The workflow is the single writer of the
 * deployment's stage and progress; each change is projected to MongoDB by an activity, in
 * order, and `progress` is also answered by a query.
 */
export async function substrateDeploymentWorkflow(
  input: DeploymentWorkflowInput,
): Promise<DeploymentState> {
  const state = copy(input.deployment);
  const { spec } = state;
  setHandler(deploymentStateQuery, () => state);

  const record = () => recordDeployment(copy(state));
  const moveTo = async (stage: string, status: DeploymentState['status'] = 'running') => {
    const at = now();
    state.stage = stage;
    state.status = status;
    state.stage_timestamps[stage] = at;
    state.updated_at = at;
    upsertSearchAttributes([{ key: DeploymentStageKey, value: stage }]);
    setCurrentDetails(
      `**${spec.scaffold}** ${spec.params.width}x${spec.params.height} \`${spec.params.rule}\`: ${stage}, tick ${state.progress.tick}/${state.progress.ticks_total}`,
    );
    await record();
  };

  try {
    await moveTo('validating');
    const verdict = await validateDeployment(spec);
    if (!verdict.valid) {
      throw ApplicationFailure.nonRetryable(
        `invalid spec: ${verdict.violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
        DEPLOYMENT_ERRORS.invalidSpec,
      );
    }

    await moveTo('compiling');
    const compiled = await compileDeployment({ deployment_id: state._id, spec });
    state.manifest_artifact_id = compiled.artifact_id;
    state.manifest_sha256 = compiled.sha256;
    state.initial_digest = compiled.initial_digest;

    await moveTo('deploying');
    const deadline = Date.now() + state.max_wall_seconds * 1000;
    const { interval, trailStep } = chunkPlan(
      spec.params.width,
      spec.params.height,
      spec.params.ticks,
    );
    while (state.progress.tick < state.progress.ticks_total) {
      const from = state.progress.tick;
      const to = Math.min((Math.floor(from / interval) + 1) * interval, state.progress.ticks_total);
      const chunk = await runDeploymentChunk({
        deployment_id: state._id,
        spec,
        from_tick: from,
        to_tick: to,
        trail_step: trailStep,
        deadline_ms: deadline,
      });
      state.progress.tick = chunk.tick;
      state.updated_at = now();
      setCurrentDetails(
        `**${spec.scaffold}** \`${spec.params.rule}\`: deploying, tick ${chunk.tick}/${state.progress.ticks_total}, population ${chunk.population}`,
      );
      await record();
      if (Date.now() > deadline && state.progress.tick < state.progress.ticks_total) {
        throw ApplicationFailure.nonRetryable(
          `the deploying stage passed its wall-time bound (${state.max_wall_seconds} s) at tick ${state.progress.tick}`,
          DEPLOYMENT_ERRORS.wallTimeExceeded,
        );
      }
    }

    await moveTo('observing');
    state.final = await observeDeployment(copy(state));

    await moveTo('assaying');
    const assay = await assayDeployment({ deployment: copy(state), pack_id: PIPELINE_PACK_ID });
    state.assay = {
      pack_id: PIPELINE_PACK_ID,
      passed: assay.passed,
      report_artifact_id: assay.report_artifact_id,
    };
    if (!assay.passed) {
      throw ApplicationFailure.nonRetryable(
        `assay pack ${PIPELINE_PACK_ID} failed: ${assay.failed.join(', ')}`,
        DEPLOYMENT_ERRORS.assayFailed,
      );
    }
    await moveTo('ready', 'ready');
    return state;
  } catch (error) {
    const cancelled = isCancellation(error);
    state.error = cancelled ? 'cancelled' : reasonOf(error);
    // Recording the end must happen even though the workflow itself is being cancelled.
    await CancellationScope.nonCancellable(() =>
      moveTo(cancelled ? 'cancelled' : 'failed', cancelled ? 'cancelled' : 'failed'),
    );
    if (cancelled) throw error;
    throw ApplicationFailure.nonRetryable(state.error, 'DeploymentFailed');
  }
}
