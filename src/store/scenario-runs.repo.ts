import type { Db } from 'mongodb';
import { workflowRecords, type WorkflowRecord } from './workflow-records';

/** A scenario run, `_id` `scn_…`; its workflow (`scenario-scn_…`) is its single writer. */
export interface ScenarioRunRecord extends WorkflowRecord {
  scenario: string;
  params: Record<string, unknown>;
  status: 'running' | 'passed' | 'failed' | 'errored';
  shared_context_id: string;
  checks: { name: string; expected: unknown; observed: unknown; passed: boolean }[];
  observations: Record<string, unknown>;
  report: { json: string; markdown: string; sha256: string } | null;
  requested_by: string;
}

export function createScenarioRunsRepo(db: Db) {
  const col = db.collection<ScenarioRunRecord>('scenario_runs');
  return {
    ...workflowRecords(col),
    /** A scenario's newest runs (ULID `_id` descending). */
    newestOf: (scenario: string, limit: number) =>
      col.find({ scenario }).sort({ _id: -1 }).limit(limit).toArray(),
  };
}

export type ScenarioRunsRepo = ReturnType<typeof createScenarioRunsRepo>;
