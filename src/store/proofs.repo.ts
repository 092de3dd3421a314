import type { Db } from 'mongodb';
import { replaceIfNewer } from './mongo';

/** One result of one check (docs/proofs.md). */
export interface StoredCheckResult {
  name: string;
  status: 'passed' | 'failed' | 'inconclusive';
  checked: number;
  violations: { collection: string; record_id: string; problem: string }[];
  violation_count: number;
  bound_reached: boolean;
  run_id: string;
  finished_at: string;
}

/** A proof run, `_id` `prf_…`; its workflow (`proof-prf_…`) is its single writer. */
export interface ProofRunRecord {
  _id: string;
  workflow_id: string;
  status: 'running' | 'completed' | 'failed';
  checks: string[];
  max_records: number;
  results: StoredCheckResult[];
  requested_by: { principal_id: string; key_id: string };
  error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  seq: number;
}

/** Most runs the status and summary read (newest first). */
export const RUNS_READ = 1_000;

export function createProofsRepo(db: Db) {
  const col = db.collection<ProofRunRecord>('proof_runs');
  return {
    insert: async (record: ProofRunRecord): Promise<void> => {
      await col.insertOne(record);
    },
    /** Writes the run unless a newer one is stored (`replaceIfNewer`). */
    project: (record: ProofRunRecord) => replaceIfNewer(col, record),
    findById: (id: string) => col.findOne({ _id: id }),
    /** The newest runs (ULID `_id` descending), at most `RUNS_READ`. */
    newest: () => col.find().sort({ _id: -1 }).limit(RUNS_READ).toArray(),
  };
}

export type ProofsRepo = ReturnType<typeof createProofsRepo>;
