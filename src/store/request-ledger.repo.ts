import type { Collection, Db } from 'mongodb';

/** One answered request. Holds no header, body or secret: only what operators audit. */
export interface RequestLedgerRow {
  _id: string;
  /** The X-Request-Id answered (client-supplied ids may repeat, so it is not the key). */
  request_id: string;
  at: string;
  method: string;
  /** The route template (`/v1/sessions/{session_id}`), or the raw path when unmatched. */
  route: string;
  operation_id: string | null;
  family: string | null;
  status: number;
  latency_ms: number;
  key_id: string | null;
  principal_id: string | null;
  client_ip: string;
  error_code: string | null;
}

export type RequestLedgerRepo = ReturnType<typeof createRequestLedgerRepo>;

export function createRequestLedgerRepo(db: Db) {
  const col: Collection<RequestLedgerRow> = db.collection<RequestLedgerRow>('request_ledger');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ at: -1 }, { name: 'by_time' });
      await col.createIndex({ key_id: 1, at: -1 }, { name: 'by_key' });
    },
    async insertMany(rows: RequestLedgerRow[]): Promise<void> {
      if (rows.length > 0) await col.insertMany(rows, { ordered: false });
    },
  };
}
