import { Binary, type Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

/** A recorded digest. */
export interface TrailPoint {
  tick: number;
  digest: string;
}

/** A deployment's state at a tick: where observation and resumption start from. */
export interface SubstrateSnapshot {
  /** `<deployment_id>:<tick, 10 digits>`. */
  _id: string;
  deployment_id: string;
  tick: number;
  digest: string;
  population: number;
  /**
   * Digests of sampled ticks since the previous snapshot, this one's included. (Objects, not
   * `[tick, digest]` pairs: FerretDB v1 stores no nested arrays.)
   */
  trail: TrailPoint[];
  state: Binary;
  created_at: string;
}

export const snapshotId = (deploymentId: string, tick: number): string =>
  `${deploymentId}:${String(tick).padStart(10, '0')}`;

/** Snapshots of running deployments, written once per (deployment, tick), read by `_id`. */
export function createSubstrateSnapshotsRepo(db: Db) {
  const col = db.collection<SubstrateSnapshot>('substrate_snapshots');
  return {
    /** Stores the snapshot unless one exists for that tick (a deterministic engine wrote the same). */
    async putOnce(input: Omit<SubstrateSnapshot, '_id' | 'state'> & { state: Uint8Array }) {
      try {
        await col.insertOne({
          ...input,
          _id: snapshotId(input.deployment_id, input.tick),
          state: new Binary(Buffer.from(input.state)),
        });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    },
    find: (deploymentId: string, tick: number) =>
      col.findOne({ _id: snapshotId(deploymentId, tick) }),
  };
}

export type SubstrateSnapshotsRepo = ReturnType<typeof createSubstrateSnapshotsRepo>;
