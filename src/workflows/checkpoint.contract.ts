import type { CheckpointRecord } from '../store/checkpoints.repo';

/**
 * What a checkpoint workflow is started with: its first record (absent when a schedule
 * starts it: the workflow then names the checkpoint itself) and what each scope copies.
 */
export interface CheckpointWorkflowInput {
  record?: CheckpointRecord;
  collections: Record<string, readonly string[]>;
}

export const checkpointWorkflowId = (checkpointId: string): string => `checkpoint-${checkpointId}`;
