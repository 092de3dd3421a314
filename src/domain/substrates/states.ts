import { LRUCache } from 'lru-cache';
import { Conflict } from '../../lib/errors';
import type { DeploymentRecord, NormalizedSpec } from '../../store/substrate-deployments.repo';
import type { SubstrateSnapshotsRepo } from '../../store/substrate-snapshots.repo';
import { createSubstrate, restoreSubstrate, type Substrate } from './engine';
import type { Stepper } from './stepper';

/** The newest snapshot tick at or before `tick`: snapshots sit every `interval` ticks. */
export const snapshotTickBefore = (tick: number, interval: number): number =>
  Math.floor(tick / interval) * interval;

export type SubstrateStates = ReturnType<typeof createSubstrateStates>;

/** A snapshot a computed tick needs is gone from the store (retrying cannot help). */
export class SnapshotMissing extends Error {
  override name = 'SnapshotMissing';
}

/**
 * A deployment's state at a tick that has one stored: the spec itself at tick 0, else the
 * snapshot of that tick; null when the snapshot is missing.
 */
export async function storedStateAt(
  snapshots: Pick<SubstrateSnapshotsRepo, 'find'>,
  deploymentId: string,
  spec: NormalizedSpec,
  tick: number,
): Promise<Substrate | null> {
  if (tick === 0) return createSubstrate(spec.scaffold, spec.params);
  const snapshot = await snapshots.find(deploymentId, tick);
  return snapshot && restoreSubstrate(spec.scaffold, spec.params, tick, snapshot.state.buffer);
}

/**
 * The state of a deployment at any computed tick: the nearest snapshot at or before it (or
 * the spec, for the first interval) stepped forward (snapshots sit at every multiple of the
 * interval and at the newest computed tick), so a read costs at most one snapshot
 * interval of engine work, done by `stepper` (off the event loop in the api). Recent states
 * are cached per process; callers get their own copies.
 */
export function createSubstrateStates(
  snapshots: SubstrateSnapshotsRepo,
  stepper: Stepper,
  maxCached = 8,
) {
  const cache = new LRUCache<string, Substrate>({ max: maxCached });

  async function base(deployment: DeploymentRecord, tick: number): Promise<Substrate> {
    const { spec } = deployment;
    // The newest computed tick ends a chunk, so it has a snapshot of its own.
    const at =
      tick === deployment.progress.tick
        ? tick
        : snapshotTickBefore(tick, deployment.snapshot_interval);
    const cached = cache.get(`${deployment._id}:${at}`);
    if (cached) return cached.clone();
    const state = await storedStateAt(snapshots, deployment._id, spec, at);
    if (!state) {
      throw new SnapshotMissing(`snapshot of tick ${at} of ${deployment._id} is missing`);
    }
    cache.set(`${deployment._id}:${at}`, state.clone());
    return state;
  }

  return {
    /** The state at `tick`; 409 when that tick is not computed yet. */
    async at(deployment: DeploymentRecord, tick: number): Promise<Substrate> {
      if (tick > deployment.progress.tick) {
        throw new Conflict(
          `tick ${tick} of ${deployment._id} is not computed yet (newest: ${deployment.progress.tick})`,
          { extra: { computed_tick: deployment.progress.tick } },
        );
      }
      const state = await base(deployment, tick);
      return stepper.advance(state, deployment.spec.params, tick - state.tick);
    },
  };
}
