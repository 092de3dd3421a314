import type { Collection, Filter, OptionalUnlessRequiredId, UpdateFilter } from 'mongodb';
import { newestByIdPage } from './paging';
import type { RecordSealStamp } from '../signing/record-seal';
import { nextVersion, type SealedCollection, type SealedRecords } from './sealed-records';

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
  /** The record seal, on records that grant or limit authority (`sealed-records.ts`). */
  seal?: RecordSealStamp;
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
  sealing?: { records: SealedRecords; collection: SealedCollection },
) {
  return {
    /** Stores a new record (sealed, at version 1, when its collection is sealed). */
    async insert(record: T): Promise<T> {
      const stored = sealing
        ? sealing.records.sealed(sealing.collection, { ...record, version: record.version ?? 1 })
        : record;
      await col.insertOne(stored as OptionalUnlessRequiredId<T>);
      if (sealing) await sealing.records.written(sealing.collection, stored);
      return stored;
    },
    /** The record by id; a sealed collection's record whose seal fails is refused (throws). */
    findById: async (id: string): Promise<T | null> => {
      const found = (await col.findOne({ _id: id } as Filter<T>)) as T | null;
      return sealing ? sealing.records.checked(sealing.collection, found) : found;
    },
    list(filter: F, limit: number, beforeId?: string): Promise<T[]> {
      const query: Record<string, unknown> = {};
      for (const [name, path] of Object.entries(filterPaths) as [keyof F, string][]) {
        if (filter[name] !== undefined) query[path] = filter[name];
      }
      return newestByIdPage(col, query as Filter<T>, limit, beforeId);
    },
    /**
     * Writes a new status (and the next version where the record counts them). A sealed
     * record is re-sealed over its new state, which is `record` as the caller read and
     * checked it with the new status: the caller's status claim makes it the only writer.
     */
    async setStatus(record: T, status: TenantStatus, now: string): Promise<void> {
      const version =
        record.version === undefined && !sealing ? {} : { version: nextVersion(record) };
      const seal = sealing
        ? { seal: sealing.records.stampOf(sealing.collection, { ...record, status, ...version }) }
        : {};
      await col.updateOne(
        { _id: record._id } as Filter<T>,
        {
          $set: { status, updated_at: now, ...version, ...seal },
        } as UpdateFilter<T>,
      );
      if (sealing)
        await sealing.records.written(sealing.collection, { ...record, ...version, ...seal });
    },
  };
}

export type TenantRecordsRepo<T extends TenantRecord, F extends object> = ReturnType<
  typeof tenantRecords<T, F>
>;
