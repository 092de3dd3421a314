import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { Binary, type Collection, type Db } from 'mongodb';
import { newId } from '../lib/ids';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** One answered request. Holds no header, body or secret: only what operators audit. */
export interface RequestLedgerRow {
  /** The X-Request-Id answered (client-supplied ids may repeat). */
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

/**
 * Rows are stored in buckets: one document per flush of one api instance (the bucket
 * pattern of time-series data), its rows as gzipped NDJSON. Per request the store does no
 * document or index work at all (measured: per-row storage cost FerretDB more CPU than the
 * request itself; docs/governance.md). Readers fetch the buckets of a time range and unpack them.
 */
export interface RequestLedgerBucket {
  _id: string;
  instance: string;
  first_at: string;
  last_at: string;
  count: number;
  /** Distinct key ids in the bucket, to skip buckets when filtering by key. */
  key_ids: string[];
  encoding: 'ndjson+gzip';
  rows: Binary;
}

export type RequestLedgerRepo = ReturnType<typeof createRequestLedgerRepo>;

export function createRequestLedgerRepo(db: Db) {
  const col: Collection<RequestLedgerBucket> = db.collection<RequestLedgerBucket>('request_ledger');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ last_at: -1 }, { name: 'by_last_at' });
      await col.createIndex({ first_at: 1 }, { name: 'by_first_at' });
    },
    async insertBucket(instance: string, rows: RequestLedgerRow[]): Promise<void> {
      if (rows.length === 0) return;
      const ndjson = rows.map((row) => JSON.stringify(row)).join('\n');
      await col.insertOne({
        _id: newId('req'),
        instance,
        first_at: rows[0].at,
        last_at: rows[rows.length - 1].at,
        count: rows.length,
        key_ids: [
          ...new Set(rows.map((row) => row.key_id).filter((id): id is string => id !== null)),
        ],
        encoding: 'ndjson+gzip',
        rows: new Binary(await gzipAsync(ndjson, { level: 1 })),
      });
    },
    /** Rows answered in [from, to], oldest bucket first. */
    async *rowsBetween(from: string, to: string): AsyncGenerator<RequestLedgerRow> {
      const cursor = col
        .find({ last_at: { $gte: from }, first_at: { $lte: to } })
        .sort({ first_at: 1 });
      for await (const bucket of cursor) {
        for (const row of await unpack(bucket)) if (row.at >= from && row.at <= to) yield row;
      }
    },
    /** The row of one request id answered since `since` (the last one if a client reused the id). */
    async findRow(requestId: string, since: string): Promise<RequestLedgerRow | undefined> {
      let found: RequestLedgerRow | undefined;
      for await (const row of this.rowsBetween(
        since,
        new Date(Date.now() + 60_000).toISOString(),
      )) {
        if (row.request_id === requestId) found = row;
      }
      return found;
    },
  };
}

async function unpack(bucket: RequestLedgerBucket): Promise<RequestLedgerRow[]> {
  const text = (await gunzipAsync(bucket.rows.buffer)).toString('utf8');
  return text.split('\n').map((line) => JSON.parse(line) as RequestLedgerRow);
}
