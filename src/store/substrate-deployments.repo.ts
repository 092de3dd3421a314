import { countBy } from './count-by';
import { newestByIdPage } from './paging';
import type { Db, Filter } from 'mongodb';
import { insertOnce, isDuplicateKey } from './mongo';

export type DeploymentStatus = 'running' | 'ready' | 'failed' | 'cancelled';

/** A deployment's spec as validated: scaffold, envelope and params with defaults filled in. */
export interface NormalizedSpec {
  scaffold: 'life-lattice' | 'elementary-1d';
  envelope: string;
  params: {
    width: number;
    height: number;
    rule: string | number;
    ticks: number;
    seed?: number;
    density?: number;
    pattern?: string;
  };
}

/** What the observing stage found at the final tick. */
export interface FinalObservation {
  tick: number;
  population: number;
  bounding_box: { x: number; y: number; width: number; height: number } | null;
  digest: string;
}

/**
 * The MongoDB copy of a deployment. Its workflow is the single writer after creation
 * (docs/temporal-ui.md); the api inserts the first version so the 201 can be read back.
 */
export interface DeploymentRecord {
  _id: string;
  spec: NormalizedSpec;
  manifest_artifact_id: string | null;
  manifest_sha256: string | null;
  /** Digest of the state at tick 0, from the manifest. */
  initial_digest: string | null;
  status: DeploymentStatus;
  stage: string;
  progress: { tick: number; ticks_total: number };
  /** Snapshots are stored every this many ticks (and at the last tick computed). */
  snapshot_interval: number;
  /** Digests are recorded every this many ticks (the determinism assay replays to them). */
  trail_step: number;
  /** Wall-clock bound of the deploying stage, from the envelope. */
  max_wall_seconds: number;
  error: string | null;
  final: FinalObservation | null;
  assay: { pack_id: string; passed: boolean; report_artifact_id: string } | null;
  stage_timestamps: Record<string, string>;
  workflow_id: string;
  organization_id: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One claim of "the live deployment of this manifest", `_id` `<artifact_id>:<n>`. */
interface ManifestBinding {
  _id: string;
  artifact_id: string;
  deployment_id: string;
  created_at: string;
}

/** What the witnesses read of a deployment: its stage. */
export type WitnessDeployment = Pick<DeploymentRecord, '_id' | 'stage' | 'updated_at'>;

export function createSubstrateDeploymentsRepo(db: Db) {
  const col = db.collection<DeploymentRecord>('substrate_deployments');
  const bindings = db.collection<ManifestBinding>('substrate_bindings');
  return {
    /**
     * Inserts the api's first copy of a deployment whose workflow already started; false
     * when the workflow's projection got there first (its copy is newer: keep it).
     */
    async insertFirst(record: DeploymentRecord): Promise<boolean> {
      return insertOnce(col, record);
    },
    findById: (id: string) => col.findOne({ _id: id }),
    /**
     * Writes the workflow's current view of the deployment (its single writer), creating the
     * record when the api never wrote it (the api starts the workflow first). A view without
     * its spec leaves the stored spec as it is.
     */
    async project(record: Omit<DeploymentRecord, 'spec'> & { spec?: NormalizedSpec }) {
      const { _id, spec, ...rest } = record;
      const update = { $set: spec ? { ...rest, spec } : rest };
      try {
        await col.updateOne({ _id }, update, { upsert: true });
      } catch (error) {
        // The api's insert won a race for the same `_id`: now it exists, update it.
        if (!isDuplicateKey(error)) throw error;
        await col.updateOne({ _id }, update);
      }
    },
    /** Every stored deployment's stage, as the witness journal carries it. */
    async *witnessScan(): AsyncGenerator<{ kind: 'deployment'; record: WitnessDeployment }> {
      const fields = { projection: { stage: 1, updated_at: 1 } };
      for await (const record of col.find({}, fields)) {
        yield { kind: 'deployment', record: record };
      }
    },
    /** Deployments per stage (the operations overview). */
    countByStage: () => countBy(col, 'stage'),
    /** Deployments newest first (ULID `_id` descending), after `beforeId`; `limit + 1` rows. */
    list(filter: { stage?: string }, limit: number, beforeId?: string) {
      const query: Filter<DeploymentRecord> = {
        ...(filter.stage ? { stage: filter.stage } : {}),
      };
      return newestByIdPage(col, query, limit, beforeId);
    },
    /** The newest binding of a manifest (walks `<artifact_id>:1, :2, …` by `_id`). */
    async newestBinding(artifactId: string): Promise<ManifestBinding | null> {
      let newest: ManifestBinding | null = null;
      for (let n = 1; ; n += 1) {
        const next = await bindings.findOne({ _id: `${artifactId}:${n}` });
        if (!next) return newest;
        newest = next;
      }
    },
    /**
     * Claims binding number `n` of a manifest for a deployment; false when another
     * deployment took it first (exactly one wins: a unique insert).
     */
    async claimBinding(artifactId: string, n: number, deploymentId: string, now: string) {
      return insertOnce(bindings, {
        _id: `${artifactId}:${n}`,
        artifact_id: artifactId,
        deployment_id: deploymentId,
        created_at: now,
      });
    },
  };
}

export type SubstrateDeploymentsRepo = ReturnType<typeof createSubstrateDeploymentsRepo>;
