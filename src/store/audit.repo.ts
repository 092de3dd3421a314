import type { AuditQuery } from '../domain/operations/schemas';
import type { ListFilter } from '../lib/schema';
import type { Db, Filter } from 'mongodb';
import { newId } from '../lib/ids';
import { newestByTimePage, type PagePosition } from './paging';

/** One control-plane change: who, what, before, after, when. Never holds a secret. */
export interface AuditRow {
  _id: string;
  at: string;
  /** `key_id` null: an unauthenticated public route (an access request). */
  actor: { key_id: string | null; principal_id: string };
  action: string;
  target: { type: string; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string;
}

/** Filters of the audit listing; `until` is exclusive. */
export type AuditFilter = ListFilter<AuditQuery>;

export function createAuditRepo(db: Db) {
  const col = db.collection<AuditRow>('audit');
  return {
    async record(row: Omit<AuditRow, '_id'>): Promise<AuditRow> {
      const full = { _id: newId('aud'), ...row };
      await col.insertOne(full);
      return full;
    },
    /** Newest first by (`at`, `_id`), strictly after `after`. */
    async list(filter: AuditFilter, limit: number, after?: PagePosition) {
      const clauses: Filter<AuditRow>[] = [];
      if (filter.key_id) clauses.push({ 'actor.key_id': filter.key_id });
      if (filter.principal_id) clauses.push({ 'actor.principal_id': filter.principal_id });
      if (filter.action) clauses.push({ action: filter.action });
      if (filter.target_id) clauses.push({ 'target.id': filter.target_id });
      return newestByTimePage(col, clauses, filter, limit, after);
    },
    countOlderThan: (cutoff: string) => col.countDocuments({ at: { $lt: cutoff } }),
    async deleteOlderThan(cutoff: string): Promise<number> {
      return (await col.deleteMany({ at: { $lt: cutoff } })).deletedCount;
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
