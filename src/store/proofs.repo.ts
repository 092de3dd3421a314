import type { Db } from 'mongodb';
import { workflowRecords, type WorkflowRecord } from './workflow-records';

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
export interface ProofRunRecord extends WorkflowRecord {
  status: 'running' | 'completed' | 'failed';
  checks: string[];
  max_records: number;
  results: StoredCheckResult[];
  requested_by: { principal_id: string; key_id: string };
}

/** Most runs the status and summary read (newest first). */
export const RUNS_READ = 1_000;

export function createProofsRepo(db: Db) {
  const col = db.collection<ProofRunRecord>('proof_runs');
  return {
    ...workflowRecords(col),
    /** The newest runs (ULID `_id` descending), at most `RUNS_READ`. */
    newest: () => col.find().sort({ _id: -1 }).limit(RUNS_READ).toArray(),
  };
}

export type ProofsRepo = ReturnType<typeof createProofsRepo>;
