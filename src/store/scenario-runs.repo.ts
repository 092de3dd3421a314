import type { Db } from 'mongodb';
import { replaceIfNewer } from './mongo';

/** A scenario run, `_id` `scn_…`; its workflow (`scenario-scn_…`) is its single writer. */
export interface ScenarioRunRecord {
  _id: string;
  scenario: string;
  params: Record<string, unknown>;
  status: 'running' | 'passed' | 'failed' | 'errored';
  shared_context_id: string;
  workflow_id: string;
  checks: { name: string; expected: unknown; observed: unknown; passed: boolean }[];
  observations: Record<string, unknown>;
  report: { json: string; markdown: string; sha256: string } | null;
  error: string | null;
  requested_by: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  seq: number;
}

export function createScenarioRunsRepo(db: Db) {
  const col = db.collection<ScenarioRunRecord>('scenario_runs');
  return {
    insert: async (record: ScenarioRunRecord): Promise<void> => {
      await col.insertOne(record);
    },
    /** Writes the run unless a newer one is stored (`replaceIfNewer`). */
    project: (record: ScenarioRunRecord) => replaceIfNewer(col, record),
    findById: (id: string) => col.findOne({ _id: id }),
    /** A scenario's newest runs (ULID `_id` descending). */
    newestOf: (scenario: string, limit: number) =>
      col.find({ scenario }).sort({ _id: -1 }).limit(limit).toArray(),
  };
}

export type ScenarioRunsRepo = ReturnType<typeof createScenarioRunsRepo>;
