import type { Collection, Filter, OptionalUnlessRequiredId } from 'mongodb';
import { replaceIfNewer } from './mongo';

/**
 * A record its workflow projects (checkpoints, proofs, repairs, scenario runs): the workflow
 * is the single writer of its status and writes whole snapshots, numbered by `seq`, so a late
 * retry of an older snapshot never overwrites a newer one.
 */
export interface WorkflowRecord {
  _id: string;
  workflow_id: string;
  error: string | null;
  seq: number;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/**
 * The methods every workflow-record repository shares: the api writes a run's first copy
 * (`insert`, or a first `project`) before it starts the workflow, which projects the rest.
 */
export function workflowRecords<T extends WorkflowRecord>(col: Collection<T>) {
  return {
    /** Writes a new record; a duplicate `_id` throws. */
    async insert(record: T): Promise<void> {
      await col.insertOne(record as OptionalUnlessRequiredId<T>);
    },
    findById: (id: string) => col.findOne({ _id: id } as Filter<T>) as Promise<T | null>,
    /** Writes the record unless a newer one is stored (`replaceIfNewer`). */
    project: (record: T) => replaceIfNewer(col, record),
  };
}
