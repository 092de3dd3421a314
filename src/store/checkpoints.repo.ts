import type { Db } from 'mongodb';
import type { CheckpointScope, CheckpointStatus } from '../domain/checkpoints/schemas';
import { workflowRecords, type WorkflowRecord } from './workflow-records';
import { newestByIdPage } from './paging';

/** One part of a copied collection: a gzipped NDJSON artifact. */
export interface CheckpointPart {
  path: string;
  artifact_id: string;
  sha256: string;
  count: number;
}

/** What a checkpoint copied of one collection. */
export interface CollectionCopy {
  collection: string;
  count: number;
  parts: CheckpointPart[];
  /** sha256 over the parts' sha256 hex digests, in order (`docs/continuous-ops.md`). */
  sha256: string;
}

/** A checkpoint's record, projected by its workflow (the single writer of its status). */
export interface CheckpointRecord extends WorkflowRecord {
  label: string | null;
  scope: CheckpointScope[];
  status: CheckpointStatus;
  /** Set once per scope as it completes. */
  scopes: Partial<
    Record<CheckpointScope, { count: number; sha256: string; collections: CollectionCopy[] }>
  >;
  manifest: { path: string; artifact_id: string; sha256: string } | null;
  history_head: string | null;
  world_revision: number | null;
  requested_by: string;
}

export function createCheckpointsRepo(db: Db) {
  const col = db.collection<CheckpointRecord>('checkpoints');
  return {
    ...workflowRecords(col),
    countCompleted: () => col.countDocuments({ status: 'completed' }),
    /** Checkpoints newest first, before `beforeId`; `limit + 1` rows. */
    list(filter: { status?: CheckpointStatus }, limit: number, beforeId?: string) {
      return newestByIdPage(col, filter.status ? { status: filter.status } : {}, limit, beforeId);
    },
  };
}

export type CheckpointsRepo = ReturnType<typeof createCheckpointsRepo>;
