import type { Collection, Db } from 'mongodb';
import { newId } from '../lib/ids';

/** One control-plane change: who, what, before, after, when. Never holds a secret. */
export interface AuditRow {
  _id: string;
  at: string;
  actor: { key_id: string; principal_id: string };
  action: string;
  target: { type: string; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string;
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;

export function createAuditRepo(db: Db) {
  const col: Collection<AuditRow> = db.collection<AuditRow>('audit');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ 'target.id': 1, _id: -1 }, { name: 'by_target' });
    },
    async record(row: Omit<AuditRow, '_id'>): Promise<AuditRow> {
      const full = { _id: newId('aud'), ...row };
      await col.insertOne(full);
      return full;
    },
  };
}
