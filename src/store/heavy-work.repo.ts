import type { Db } from 'mongodb';
import { insertOnce } from './mongo';

/**
 * One running-deployment slot of a scope (`key:<key_id>` or `org:<organization_id>`), `_id`
 * `<scope>|<n>` for n in 1..limit: a unique insert claims it, so two deploys can never hold
 * the same slot (FerretDB has no transactions; an insert-once is its one atomic write).
 */
export interface DeploymentSlot {
  _id: string;
  scope: string;
  n: number;
  deployment_id: string;
  claimed_at: string;
}

/** What one deployment was charged against its key's and organization's UTC day. */
export interface CellUpdateCharge {
  /** The deployment id: one charge per deployment. */
  _id: string;
  key_id: string;
  organization_id: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  cell_updates: number;
  at: string;
}

export function createHeavyWorkRepo(db: Db) {
  const slots = db.collection<DeploymentSlot>('deployment_slots');
  const charges = db.collection<CellUpdateCharge>('cell_update_charges');
  return {
    /** The slots a scope holds now. */
    slotsOf: (scope: string) => slots.find({ scope }).toArray(),
    /**
     * Claims a free slot numbered 1..limit for a deployment; false when all are held. A slot
     * taken by another claim between the read and the insert is skipped.
     */
    async claimSlot(scope: string, limit: number, deploymentId: string, now: string) {
      if (limit <= 0) return false;
      const held = new Set((await slots.find({ scope }).toArray()).map((slot) => slot.n));
      for (let n = 1; n <= limit; n += 1) {
        if (held.has(n)) continue;
        const slot = { _id: `${scope}|${n}`, scope, n, deployment_id: deploymentId };
        if (await insertOnce(slots, { ...slot, claimed_at: now })) return true;
      }
      return false;
    },
    /** Frees one slot, only if it is still this deployment's. */
    async releaseSlot(slot: Pick<DeploymentSlot, '_id' | 'deployment_id'>): Promise<boolean> {
      const result = await slots.deleteOne({ _id: slot._id, deployment_id: slot.deployment_id });
      return result.deletedCount > 0;
    },
    /** Frees every slot of a deployment (it reached a final stage, or never started). */
    async releaseSlotsOf(deploymentId: string): Promise<number> {
      return (await slots.deleteMany({ deployment_id: deploymentId })).deletedCount;
    },

    /** Writes a deployment's charge; false when it is already charged. */
    charge: (record: CellUpdateCharge) => insertOnce(charges, record),
    /** Takes a charge back (the deployment was refused or never started). */
    async refund(deploymentId: string): Promise<void> {
      await charges.deleteOne({ _id: deploymentId });
    },
    /** Cell updates charged to a key or an organization on a UTC day. */
    async chargedOn(scope: { key_id: string } | { organization_id: string }, day: string) {
      const rows = await charges
        .find({ ...scope, day }, { projection: { cell_updates: 1 } })
        .toArray();
      return rows.reduce((sum, row) => sum + row.cell_updates, 0);
    },
  };
}

export type HeavyWorkRepo = ReturnType<typeof createHeavyWorkRepo>;
