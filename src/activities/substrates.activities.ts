import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { LRUCache } from 'lru-cache';
import { createSubstrate, type Substrate } from '../domain/substrates/engine';
import { compileNormalized } from '../domain/substrates/compile.service';
import { assayAndStore } from '../domain/substrates/inspection.service';
import { SnapshotMissing, createSubstrateStates, storedStateAt } from '../domain/substrates/states';
import { createStepper, type Stepper } from '../domain/substrates/stepper';
import { validateSpec, type SpecViolation } from '../domain/substrates/validation';
import type { Repos } from '../store';
import type {
  DeploymentRecord,
  FinalObservation,
  NormalizedSpec,
} from '../store/substrate-deployments.repo';
import type { TrailPoint } from '../store/substrate-snapshots.repo';
import {
  DEPLOYMENT_ERRORS,
  type DeploymentProgressState,
} from '../workflows/substrate-deployment.contract';
import type { Notify } from '../domain/notifications/notifiable-event';
import { recordDeploymentState } from '../domain/substrates/record-deployment';

export interface SubstrateActivityDeps {
  repos: Pick<Repos, 'artifacts' | 'substrateDeployments' | 'substrateSnapshots' | 'heavyWork'>;
  /** Tells subscribers a deployment is ready or failed. */
  notify?: Notify;
  /**
   * Steps deployment chunks; with threads (the worker process: one per concurrent chunk)
   * the engine never holds the event loop the approval workflows' tasks run on. Default:
   * inline, giving the event loop back every 200 ms.
   */
  chunkStepper?: Stepper;
}

/** One chunk of a run: ids and ticks only (the spec is read from the store, by id). */
export interface ChunkInput {
  deployment_id: string;
  from_tick: number;
  to_tick: number;
  trail_step: number;
}

export interface ChunkResult {
  tick: number;
  digest: string;
  population: number;
}

const HEARTBEAT_EVERY_MS = 1000;
/** The event loop is given back at least this often, so timers and cancellations get in. */
const YIELD_EVERY_MS = 200;
/** Cell updates per engine call: a slice the fast engine does in a few tens of ms. */
const SLICE_CELL_UPDATES = 2 ** 26;

export function createSubstrateActivities(deps: SubstrateActivityDeps) {
  const { repos } = deps;
  // The state each running deployment reached in this worker, so the next chunk continues
  // from memory instead of reloading its snapshot.
  const live = new LRUCache<string, Substrate>({ max: 4 });
  const specs = new LRUCache<string, NormalizedSpec>({ max: 64 });
  // Inline: these activities run on the compute queue, apart from the approval workflows.
  const inline = createStepper({ threads: 0 });
  const states = createSubstrateStates(repos.substrateSnapshots, inline);
  const chunkStepper = deps.chunkStepper ?? inline;

  /** The deployment as stored; its loss is final (retrying cannot bring it back). */
  async function deploymentOf(deploymentId: string): Promise<DeploymentRecord> {
    const deployment = await repos.substrateDeployments.findById(deploymentId);
    if (!deployment) {
      throw ApplicationFailure.nonRetryable(
        `deployment ${deploymentId} is not in the store`,
        DEPLOYMENT_ERRORS.deploymentMissing,
      );
    }
    specs.set(deploymentId, deployment.spec);
    return deployment;
  }

  /** The state at `tick`, a chunk boundary: from memory, the spec (tick 0) or a snapshot. */
  async function stateAt(deploymentId: string, tick: number) {
    const remembered = live.get(deploymentId);
    if (remembered?.tick === tick) return remembered;
    const spec = specs.get(deploymentId) ?? (await deploymentOf(deploymentId)).spec;
    const stored = await storedStateAt(repos.substrateSnapshots, deploymentId, spec, tick);
    if (!stored) {
      throw ApplicationFailure.nonRetryable(
        `no snapshot of ${deploymentId} at tick ${tick}`,
        DEPLOYMENT_ERRORS.snapshotMissing,
      );
    }
    return stored;
  }

  /** The state at any computed tick; a missing snapshot is final, as above. */
  async function computedStateAt(deployment: DeploymentRecord, tick: number) {
    try {
      return await states.at(deployment, tick);
    } catch (error) {
      if (error instanceof SnapshotMissing) {
        throw ApplicationFailure.nonRetryable(error.message, DEPLOYMENT_ERRORS.snapshotMissing);
      }
      throw error;
    }
  }

  return {
    /** Writes the workflow's view of the deployment to MongoDB (the projection). */
    async recordDeployment(state: DeploymentProgressState): Promise<void> {
      await recordDeploymentState(deps, state);
    },

    /** Validates the spec again, against the envelopes this worker knows. */
    async validateDeployment(
      spec: NormalizedSpec,
    ): Promise<{ valid: boolean; violations: SpecViolation[] }> {
      const verdict = validateSpec(spec);
      return { valid: verdict.valid, violations: verdict.violations };
    },

    /**
     * Compiles the spec into its manifest artifact (content-addressed: a retry is a no-op).
     * The tick-0 state it builds is kept for the deployment's first chunk.
     */
    async compileDeployment(input: {
      deployment_id: string;
      spec: NormalizedSpec;
    }): Promise<{ artifact_id: string; sha256: string; initial_digest: string }> {
      const { artifact } = await compileNormalized({ repos }, input.spec);
      const initial = createSubstrate(input.spec.scaffold, input.spec.params);
      live.set(input.deployment_id, initial);
      return {
        artifact_id: artifact.artifact_id,
        sha256: artifact.sha256,
        initial_digest: initial.digest(),
      };
    },

    /**
     * Computes ticks `from_tick` → `to_tick`, recording a digest every `trail_step` ticks,
     * and stores the snapshot at `to_tick`. Heartbeats about once a second (so a lost worker
     * is noticed and the chunk re-run elsewhere, from the same start) and stops when the
     * workflow cancels or the wall-time bound passes.
     */
    async runDeploymentChunk(input: ChunkInput): Promise<ChunkResult> {
      const context = Context.current();
      let state = await stateAt(input.deployment_id, input.from_tick);
      const { params } =
        specs.get(input.deployment_id) ?? (await deploymentOf(input.deployment_id)).spec;
      live.delete(input.deployment_id);
      const trail: TrailPoint[] = [];
      // Engine calls are cut into slices, however far apart trail points are, so the worker
      // keeps heartbeating and hears a cancellation (the wall-time timer's) within a slice.
      const sliceTicks = Math.max(1, Math.floor(SLICE_CELL_UPDATES / (state.width * state.height)));
      let beatAt = Date.now();
      let yieldedAt = Date.now();
      while (state.tick < input.to_tick) {
        const nextTrail = (Math.floor(state.tick / input.trail_step) + 1) * input.trail_step;
        const ticks = Math.min(nextTrail, input.to_tick, state.tick + sliceTicks) - state.tick;
        state = await chunkStepper.advance(state, params, ticks);
        if (state.tick % input.trail_step === 0 || state.tick === input.to_tick) {
          trail.push({ tick: state.tick, digest: state.digest() });
        }
        if (Date.now() - yieldedAt >= YIELD_EVERY_MS) {
          if (Date.now() - beatAt >= HEARTBEAT_EVERY_MS) {
            beatAt = Date.now();
            context.heartbeat({ tick: state.tick });
          }
          await new Promise((resolve) => setImmediate(resolve));
          yieldedAt = Date.now();
          if (context.cancellationSignal.aborted) throw new CancelledFailure('cancelled');
        }
      }
      const digest = trail[trail.length - 1]?.digest ?? state.digest();
      const population = state.population();
      await repos.substrateSnapshots.putOnce({
        deployment_id: input.deployment_id,
        tick: state.tick,
        digest,
        population,
        trail,
        state: state.snapshot(),
        created_at: new Date().toISOString(),
      });
      live.set(input.deployment_id, state);
      return { tick: state.tick, digest, population };
    },

    /** What the deployment looks like at its final tick (read from the store, by id). */
    async observeDeployment(input: { deployment_id: string }): Promise<FinalObservation> {
      const deployment = await deploymentOf(input.deployment_id);
      const remembered = live.get(deployment._id);
      const state =
        remembered?.tick === deployment.progress.tick
          ? remembered
          : await computedStateAt(deployment, deployment.progress.tick);
      return {
        tick: state.tick,
        population: state.population(),
        bounding_box: state.boundingBox(),
        digest: state.digest(),
      };
    },

    /** Runs a certification pack and stores its report as an artifact. */
    async assayDeployment(input: {
      deployment_id: string;
      pack_id: string;
    }): Promise<{ passed: boolean; failed: string[]; report_artifact_id: string }> {
      const deployment = await deploymentOf(input.deployment_id);
      const report = await assayAndStore(
        { repos, substrateStates: { at: computedStateAt } },
        deployment,
        input.pack_id,
      );
      return {
        passed: report.passed,
        failed: report.assays.filter((a) => !a.passed).map((a) => a.assay),
        report_artifact_id: report.report_artifact_id,
      };
    },
  };
}
