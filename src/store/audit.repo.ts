import type { AuditQuery } from '../domain/operations/schemas';
import type { ListFilter } from '../lib/schema';
import type { Db, Filter } from 'mongodb';
import { createAuditChain, type AuditChainFields, type AuditSealer } from './audit-chain';
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

/**
 * A row as stored: those written since the audit is chained carry their chain fields; older
 * ones (and any row the database's holder inserted) may not.
 */
export type StoredAuditRow = AuditRow & Partial<AuditChainFields>;

/** Filters of the audit listing; `until` is exclusive. */
export type AuditFilter = ListFilter<AuditQuery>;

/**
 * The audit over `db`. `sealer` (the api's: docs/governance.md, "What the audit protects
 * against whom") chains, seals and checkpoints each row, and records each retention cut; a
 * process without one (the worker) never writes the audit, and `record` refuses.
 */
export function createAuditRepo(db: Db, sealer?: AuditSealer) {
  const col = db.collection<StoredAuditRow>('audit');
  const chain =
    sealer &&
    createAuditChain<Omit<AuditRow, '_id'>>({
      sealer,
      insert: (row) => col.insertOne(row),
      findById: (id) => col.findOne({ _id: id }, { projection: { _id: 1 } }),
    });
  const sealed = () => {
    if (!sealer || !chain) throw new Error('this process has no audit seal: it writes no audit');
    return { sealer, chain };
  };
  return {
    /** Appends the row to this process's chain (sealed, checkpointed); answers it as stored. */
    async record(row: Omit<AuditRow, '_id'>): Promise<StoredAuditRow> {
      return sealed().chain.append(row);
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
    /** Records the retention cut (signed, outside the database), then deletes. */
    async deleteOlderThan(cutoff: string): Promise<number> {
      await sealed().sealer.cut(cutoff);
      return (await col.deleteMany({ at: { $lt: cutoff } })).deletedCount;
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
