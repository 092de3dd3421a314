import type { Db } from 'mongodb';
import type { TaskState } from '../domain/world/schemas';
import { insertOnce, isDuplicateKey } from './mongo';
import type { WorldHistoryEvent } from './world-history.repo';

/** A world task as of one version (docs/world.md). */
export interface WorldTask {
  _id: string;
  title: string;
  state: TaskState;
  object_refs: string[];
  shared_context_id?: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/**
 * One version of a task, `_id` `<task_id>:<version>`: inserting it is how a writer claims
 * the version. The insert is the only atomic compare-and-set FerretDB v1 offers (its
 * conditional `updateOne` reads, then writes by `_id`, so two writers can both "match").
 * It carries the history event of the change, so anyone can finish a writer's work.
 */
export interface WorldTaskVersion {
  _id: string;
  task_id: string;
  task: WorldTask;
  event: WorldHistoryEvent;
}

const versionId = (taskId: string, version: number): string => `${taskId}:${version}`;

export function createWorldTasksRepo(db: Db) {
  /** The newest version known to be complete, per task: a starting point for readers. */
  const tasks = db.collection<WorldTask>('world_tasks');
  /** Every version of every task; the source of truth. */
  const versions = db.collection<WorldTaskVersion>('world_task_versions');
  return {
    /** Every stored current task, as the witness journal carries it. */
    async *witnessScan(): AsyncGenerator<{ kind: 'task'; record: WorldTask }> {
      for await (const record of tasks.find()) yield { kind: 'task', record };
    },
    /** The stored current task (may trail the version log; see `findVersion`). */
    findById: (id: string) => tasks.findOne({ _id: id }),
    /** One version of a task, read by `_id`. */
    findVersion: (taskId: string, version: number) =>
      versions.findOne({ _id: versionId(taskId, version) }),
    /** Claims `task.version` with its event; false when another writer claimed it first. */
    async claimVersion(task: WorldTask, event: WorldHistoryEvent): Promise<boolean> {
      return insertOnce(versions, {
        _id: versionId(task._id, task.version),
        task_id: task._id,
        task,
        event,
      });
    },
    /**
     * Writes the current task unless a newer version is stored. Not a compare-and-set on
     * FerretDB (a late writer may still go back a version), which readers tolerate: they
     * walk the version log forward from whatever they find here.
     */
    async project(task: WorldTask): Promise<void> {
      try {
        await tasks.replaceOne({ _id: task._id, version: { $lt: task.version } }, task, {
          upsert: true,
        });
      } catch (error) {
        // A newer version is stored: the upsert found no older one and hit the `_id`.
        if (!isDuplicateKey(error)) throw error;
      }
    },
  };
}

export type WorldTasksRepo = ReturnType<typeof createWorldTasksRepo>;
