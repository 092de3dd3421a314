import type { Collection, Filter, OptionalUnlessRequiredId, UpdateFilter } from 'mongodb';
import { newestByIdPage } from './paging';

export type TenantStatus = 'active' | 'suspended' | 'archived';

/**
 * A record an operator creates and whose status the control plane changes (organizations,
 * principals, projects, policies, approval rules, subscriptions). A `version`, where the
 * record has one, counts its changes: actions record the rule version they were proposed
 * under.
 */
export interface TenantRecord {
  _id: string;
  status: TenantStatus;
  created_at: string;
  updated_at: string;
  version?: number;
}

/**
 * The methods every tenant repository shares. Lists are newest first (ULID `_id`
 * descending), strictly before `beforeId`, `limit + 1` rows; each filter given narrows by
 * equality on its document path in `filterPaths` (a policy's `key_id` is `scope.key_id`).
 * A status change is one write; the caller's status claim makes it the only writer of that
 * read.
 */
export function tenantRecords<T extends TenantRecord, F extends object>(
  col: Collection<T>,
  filterPaths: { [K in keyof F]-?: string },
) {
  return {
    async insert(record: T): Promise<T> {
      await col.insertOne(record as OptionalUnlessRequiredId<T>);
      return record;
    },
    findById: (id: string) => col.findOne({ _id: id } as Filter<T>) as Promise<T | null>,
    list(filter: F, limit: number, beforeId?: string): Promise<T[]> {
      const query: Record<string, unknown> = {};
      for (const [name, path] of Object.entries(filterPaths) as [keyof F, string][]) {
        if (filter[name] !== undefined) query[path] = filter[name];
      }
      return newestByIdPage(col, query as Filter<T>, limit, beforeId);
    },
    async setStatus(record: T, status: TenantStatus, now: string): Promise<void> {
      const version = record.version === undefined ? {} : { version: record.version + 1 };
      await col.updateOne(
        { _id: record._id } as Filter<T>,
        {
          $set: { status, updated_at: now, ...version },
        } as UpdateFilter<T>,
      );
    },
  };
}

export type TenantRecordsRepo<T extends TenantRecord, F extends object> = ReturnType<
  typeof tenantRecords<T, F>
>;
