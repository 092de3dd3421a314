import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { LRUCache } from 'lru-cache';
import { createSubstrate, type Substrate } from '../domain/substrates/engine';
import { compileNormalized } from '../domain/substrates/compile.service';
import { assayAndStore } from '../domain/substrates/inspection.service';
import { createSubstrateStates, storedStateAt } from '../domain/substrates/states';
import { validateSpec, type Violation } from '../domain/substrates/validation';
import type { Repos } from '../store';
import type {
  DeploymentRecord,
  FinalObservation,
  NormalizedSpec,
} from '../store/substrate-deployments.repo';
import type { TrailPoint } from '../store/substrate-snapshots.repo';
import { DEPLOYMENT_ERRORS } from '../workflows/shared';

export interface SubstrateActivityDeps {
  repos: Pick<Repos, 'artifacts' | 'substrateDeployments' | 'substrateSnapshots'>;
}

export interface ChunkInput {
  deployment_id: string;
  spec: NormalizedSpec;
  from_tick: number;
  to_tick: number;
  trail_step: number;
  /** Epoch ms after which the deploying stage is over its wall-time bound. */
  deadline_ms: number;
}

export interface ChunkResult {
  tick: number;
  digest: string;
  population: number;
}

const HEARTBEAT_EVERY_MS = 1000;

export function createSubstrateActivities(deps: SubstrateActivityDeps) {
  const { repos } = deps;
  // The state each running deployment reached in this worker, so the next chunk continues
  // from memory instead of reloading its snapshot.
  const live = new LRUCache<string, Substrate>({ max: 4 });
  const states = createSubstrateStates(repos.substrateSnapshots);

  /** The state at `tick`, a chunk boundary: from memory, the spec (tick 0) or a snapshot. */
  async function stateAt(deploymentId: string, spec: NormalizedSpec, tick: number) {
    const remembered = live.get(deploymentId);
    if (remembered?.tick === tick) return remembered;
    const stored = await storedStateAt(repos.substrateSnapshots, deploymentId, spec, tick);
    if (!stored) throw new Error(`no snapshot of ${deploymentId} at tick ${tick}`);
    return stored;
  }

  return {
    /** Writes the workflow's view of the deployment to MongoDB (the projection). */
    async recordDeployment(state: DeploymentRecord): Promise<void> {
      await repos.substrateDeployments.project(state);
    },

    /** Validates the spec again, against the envelopes this worker knows. */
    async validateDeployment(
      spec: NormalizedSpec,
    ): Promise<{ valid: boolean; violations: Violation[] }> {
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
      const state = await stateAt(input.deployment_id, input.spec, input.from_tick);
      live.delete(input.deployment_id);
      const trail: TrailPoint[] = [];
      let beatAt = Date.now();
      while (state.tick < input.to_tick) {
        const nextTrail = (Math.floor(state.tick / input.trail_step) + 1) * input.trail_step;
        state.step(Math.min(nextTrail, input.to_tick) - state.tick);
        if (state.tick % input.trail_step === 0 || state.tick === input.to_tick) {
          trail.push({ tick: state.tick, digest: state.digest() });
        }
        if (Date.now() - beatAt >= HEARTBEAT_EVERY_MS) {
          beatAt = Date.now();
          context.heartbeat({ tick: state.tick });
          // Yields so the heartbeat and a cancellation can get through.
          await new Promise((resolve) => setImmediate(resolve));
          if (context.cancellationSignal.aborted) throw new CancelledFailure('cancelled');
        }
        if (Date.now() > input.deadline_ms) {
          throw ApplicationFailure.nonRetryable(
            `the deploying stage passed its wall-time bound at tick ${state.tick}`,
            DEPLOYMENT_ERRORS.wallTimeExceeded,
          );
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

    /** What the deployment looks like at its final tick. */
    async observeDeployment(deployment: DeploymentRecord): Promise<FinalObservation> {
      const remembered = live.get(deployment._id);
      const state =
        remembered?.tick === deployment.progress.tick
          ? remembered
          : await states.at(deployment, deployment.progress.tick);
      return {
        tick: state.tick,
        population: state.population(),
        bounding_box: state.boundingBox(),
        digest: state.digest(),
      };
    },

    /** Runs a certification pack and stores its report as an artifact. */
    async assayDeployment(input: {
      deployment: DeploymentRecord;
      pack_id: string;
    }): Promise<{ passed: boolean; failed: string[]; report_artifact_id: string }> {
      const report = await assayAndStore(
        { repos, substrateStates: states },
        input.deployment,
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
