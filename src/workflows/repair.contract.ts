import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ActionStatus } from '../domain/external-actions/schemas';
import type { ClaimSignature } from '../signing/signed-claims';
import type { RepairRecord } from '../store/repairs.repo';
import type { DisplayNames } from './action-text';

/** What a repair workflow is started with: its first record. */
export interface RepairWorkflowInput {
  record: RepairRecord;
  /**
   * The api's signature over the request (`repairRequestClaimOf`): without it the worker
   * does not propose the child action that would apply the repair.
   */
  request_signature?: ClaimSignature;
  /** The object's and the requester's names, for the Web UI (and the child action's). */
  names?: DisplayNames;
  /** `PUBLIC_BASE_URL`: where the child action's static details link back to. */
  public_base_url?: string;
}

export const repairWorkflowId = (repairId: string): string => `repair-${repairId}`;

/** What the api signs when it starts a repair (kind `repair-request`). */
export const repairRequestClaimOf = (record: RepairRecord) => ({
  repair_id: record._id,
  object_id: record.object_id,
  strategy: record.strategy,
  reason: record.reason,
  to_version: record.to_version,
  checkpoint_id: record.checkpoint_id,
  requested_by: record.requested_by,
  created_at: record.created_at,
});
export const repairStateQuery = defineQuery<RepairRecord>('repairState');

/** A child action tells the repair that started it of each status it enters. */
export const childActionStatusSignal =
  defineSignal<[{ action_id: string; status: ActionStatus }]>('childActionStatus');
