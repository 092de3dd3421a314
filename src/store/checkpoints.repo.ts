import type { Db } from 'mongodb';
import type { CheckpointScope, CheckpointStatus } from '../domain/checkpoints/schemas';
import { replaceIfNewer } from './mongo';
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
export interface CheckpointRecord {
  _id: string;
  label: string | null;
  scope: CheckpointScope[];
  status: CheckpointStatus;
  workflow_id: string;
  /** Set once per scope as it completes. */
  scopes: Partial<
    Record<CheckpointScope, { count: number; sha256: string; collections: CollectionCopy[] }>
  >;
  manifest: { path: string; artifact_id: string; sha256: string } | null;
  history_head: string | null;
  world_revision: number | null;
  error: string | null;
  requested_by: string;
  seq: number;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export function createCheckpointsRepo(db: Db) {
  const col = db.collection<CheckpointRecord>('checkpoints');
  return {
    findById: (id: string) => col.findOne({ _id: id }),
    /** Writes the record unless a newer one is stored (`replaceIfNewer`). */
    project: (record: CheckpointRecord) => replaceIfNewer(col, record),
    countCompleted: () => col.countDocuments({ status: 'completed' }),
    /** Checkpoints newest first, before `beforeId`; `limit + 1` rows. */
    list(filter: { status?: CheckpointStatus }, limit: number, beforeId?: string) {
      return newestByIdPage(col, filter.status ? { status: filter.status } : {}, limit, beforeId);
    },
  };
}

export type CheckpointsRepo = ReturnType<typeof createCheckpointsRepo>;
