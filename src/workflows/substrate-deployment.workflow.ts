import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { LocalActivityOptions } from '@temporalio/common';
import type { SubstrateActivities } from '../activities';
import { clock } from '../lib/workflow-text';
import { deploymentCurrentDetails } from './deployment-details';
import { DeploymentStageKey, computeTaskQueueOf } from './shared.contract';
import {
  DEPLOYMENT_ERRORS,
  PIPELINE_PACK_ID,
  deploymentStateQuery,
  type DeploymentProgressState,
  type DeploymentWorkflowInput,
  type SubstrateDeploymentWorkflow,
} from './substrate-deployment.contract';

// Deterministic failures: retrying cannot bring back a snapshot or a deleted record.
const NON_RETRYABLE = [DEPLOYMENT_ERRORS.snapshotMissing, DEPLOYMENT_ERRORS.deploymentMissing];

// Short reads and writes of our own store: local activities, no round trip through the server.
// Every call names itself in the history (`executeWithOptions` with a `summary`).
const STORE_STEP: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};
const { recordDeployment, validateDeployment, compileDeployment, observeDeployment } =
  proxyLocalActivities<SubstrateActivities>(STORE_STEP);

// The engine work: regular activities on the compute task queue (away from the approval
// workflows' activities), with their own timeouts, visible in the UI. A chunk heartbeats
// about once a second, so a worker lost mid-chunk is noticed within the heartbeat timeout
// and the chunk re-runs on another worker from the same snapshot.
const CHUNK_STEP = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '15 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
} as const;
const chunkActivities = (taskQueue: string) =>
  proxyActivities<SubstrateActivities>({ taskQueue, ...CHUNK_STEP });
// The pipeline's assay replays a bounded sample (docs/substrates.md): seconds at most, so
// a local activity, without a round trip through the server.
const ASSAY_STEP: LocalActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '15 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE,
  },
};
const { assayDeployment } = proxyLocalActivities<SubstrateActivities>(ASSAY_STEP);

/** Chunks one run computes before it continues as new (keeps history far below its limits). */
export const DEFAULT_CHUNKS_PER_RUN = 100;

const now = (): string => new Date().toISOString();
/** A deep copy that the workflow sandbox can always make (plain JSON state). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Why the pipeline stopped, in words an operator can act on. */
function reasonOf(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return reasonOf(error.cause);
  return error instanceof Error ? error.message : String(error);
}

const wallTimeExceeded = (state: DeploymentProgressState) =>
  ApplicationFailure.nonRetryable(
    `the deploying stage passed its wall-time bound (${state.max_wall_seconds} s) at tick ${state.progress.tick}`,
    DEPLOYMENT_ERRORS.wallTimeExceeded,
  );

/**
 * One substrate deployment: validate → compile → deploy (the run, in chunks) → observe →
 * assay → ready, or failed / cancelled. The workflow is the single writer of the
 * deployment's stage and progress; each change is projected to MongoDB by an activity, in
 * order, and `progress` is also answered by a query. The deploying stage continues as new
 * every `chunks_per_run` chunks, carrying ids and progress, never the spec; its wall-time
 * bound is a timer that cancels the chunk in flight.
 */
export async function substrateDeploymentWorkflow(
  input: DeploymentWorkflowInput,
): Promise<DeploymentProgressState> {
  const state = copy(input.deployment);
  const { spec } = state;
  delete state.spec;
  const label =
    input.label ??
    (spec
      ? `${spec.scaffold} ${spec.params.width}x${spec.params.height} ${spec.params.rule}`
      : state._id);
  const chunksPerRun = input.chunks_per_run ?? DEFAULT_CHUNKS_PER_RUN;
  setHandler(deploymentStateQuery, () => state);

  // The first projection carries the spec, so the record exists in full even when the api
  // never wrote its own copy (the workflow start is the source of truth).
  let projectSpec = spec;
  const record = async () => {
    const summary = `record ${state.stage}, tick ${state.progress.tick}/${state.progress.ticks_total}`;
    await recordDeployment.executeWithOptions({ ...STORE_STEP, summary }, [
      copy(projectSpec ? { ...state, spec: projectSpec } : state),
    ]);
    projectSpec = undefined;
  };
  const moveTo = async (stage: string, status: DeploymentProgressState['status'] = 'running') => {
    const at = now();
    state.stage = stage;
    state.status = status;
    state.stage_timestamps[stage] = at;
    state.updated_at = at;
    upsertSearchAttributes([{ key: DeploymentStageKey, value: stage }]);
    setCurrentDetails(
      deploymentCurrentDetails(label, state, { deadlineMs: input.deploy_deadline_ms }),
    );
    await record();
  };

  try {
    if (state.stage === 'validating') {
      if (!spec) throw ApplicationFailure.nonRetryable('the first run needs the spec', 'NoSpec');
      await moveTo('validating');
      const verdict = await validateDeployment.executeWithOptions(
        { ...STORE_STEP, summary: `validate the spec against envelope ${spec.envelope}` },
        [spec],
      );
      if (!verdict.valid) {
        throw ApplicationFailure.nonRetryable(
          `invalid spec: ${verdict.violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
          DEPLOYMENT_ERRORS.invalidSpec,
        );
      }
      await moveTo('compiling');
      const compiled = await compileDeployment.executeWithOptions(
        { ...STORE_STEP, summary: `compile ${label} to its manifest` },
        [{ deployment_id: state._id, spec }],
      );
      state.manifest_artifact_id = compiled.artifact_id;
      state.manifest_sha256 = compiled.sha256;
      state.initial_digest = compiled.initial_digest;
      await moveTo('deploying');
    }

    if (state.stage === 'deploying') {
      const deadline = input.deploy_deadline_ms ?? Date.now() + state.max_wall_seconds * 1000;
      const outcome = await deployWithinBound(state, deadline, chunksPerRun, label, record);
      if (outcome === 'continue') {
        return await continueAsNew<typeof substrateDeploymentWorkflow>({
          deployment: state,
          label,
          deploy_deadline_ms: deadline,
          chunks_per_run: chunksPerRun,
        });
      }
    }

    await moveTo('observing');
    state.final = await observeDeployment.executeWithOptions(
      { ...STORE_STEP, summary: `observe the final state at tick ${state.progress.ticks_total}` },
      [{ deployment_id: state._id }],
    );

    await moveTo('assaying');
    const assay = await assayDeployment.executeWithOptions(
      { ...ASSAY_STEP, summary: `assay with pack ${PIPELINE_PACK_ID}` },
      [{ deployment_id: state._id, pack_id: PIPELINE_PACK_ID }],
    );
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
    if (error instanceof ContinueAsNew) throw error;
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

// Starters use the signature in its contract (workflow-types.ts): it must stay this function's.
const startedAs: SubstrateDeploymentWorkflow = substrateDeploymentWorkflow;
void startedAs;

/**
 * Runs chunks until the last tick (`done`) or this run's share of chunks (`continue`),
 * racing a timer set to the wall-time bound: when the timer wins, the chunk in flight is
 * cancelled and the deployment fails naming the tick it reached.
 */
async function deployWithinBound(
  state: DeploymentProgressState,
  deadlineMs: number,
  chunksPerRun: number,
  label: string,
  record: () => Promise<void>,
): Promise<'done' | 'continue'> {
  const chunks = new CancellationScope();
  const timer = new CancellationScope();
  const running = chunks.run(() => runChunks(state, chunksPerRun, label, record, deadlineMs));
  const expiry = timer.run(() =>
    sleep(Math.max(0, deadlineMs - Date.now()), {
      summary: `wall-time bound of the deploying stage: fail at ${clock(deadlineMs)} unless done`,
    }),
  );
  // Whichever loses is cancelled below; its rejection is expected, not unhandled.
  running.catch(() => undefined);
  expiry.catch(() => undefined);
  try {
    const winner = await Promise.race([
      running.then((outcome) => ({ outcome })),
      expiry.then(() => ({ outcome: 'expired' as const })),
    ]);
    if (winner.outcome === 'expired') {
      chunks.cancel();
      await running.catch(() => undefined);
      throw wallTimeExceeded(state);
    }
    return winner.outcome;
  } finally {
    timer.cancel();
  }
}

async function runChunks(
  state: DeploymentProgressState,
  chunksPerRun: number,
  label: string,
  record: () => Promise<void>,
  deadlineMs: number,
): Promise<'done' | 'continue'> {
  const taskQueue = computeTaskQueueOf(workflowInfo().taskQueue);
  const { runDeploymentChunk } = chunkActivities(taskQueue);
  // The interval recorded at creation, never recomputed: a release that changes the plan
  // must not move where an in-flight run writes the snapshots its readers look for.
  const interval = state.snapshot_interval;
  for (let run = 0; state.progress.tick < state.progress.ticks_total; run++) {
    if (run >= chunksPerRun || workflowInfo().continueAsNewSuggested) return 'continue';
    const from = state.progress.tick;
    const to = Math.min((Math.floor(from / interval) + 1) * interval, state.progress.ticks_total);
    const chunk = await runDeploymentChunk.executeWithOptions(
      {
        ...CHUNK_STEP,
        taskQueue,
        summary: `compute ticks ${from}→${to} of ${state.progress.ticks_total}`,
      },
      [{ deployment_id: state._id, from_tick: from, to_tick: to, trail_step: state.trail_step }],
    );
    state.progress.tick = chunk.tick;
    state.updated_at = now();
    setCurrentDetails(
      deploymentCurrentDetails(label, state, { population: chunk.population, deadlineMs }),
    );
    await record();
  }
  return 'done';
}
