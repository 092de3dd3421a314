import type { RequestLedgerQuery } from '../domain/operations/schemas';
import type { ListFilter } from '../lib/schema';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { Binary, type Db, type Filter } from 'mongodb';
import { newId } from '../lib/ids';
import { isDuplicateKey } from './mongo';

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
 * document or index work at all (a document per row would cost FerretDB more CPU than the
 * request itself; docs/governance.md). Readers fetch the buckets of a time range and unpack them.
 */
export interface RequestLedgerBucket {
  _id: string;
  instance: string;
  /** Earliest and latest `at` of the rows: what selects the bucket for a time range. */
  first_at: string;
  last_at: string;
  count: number;
  /** Distinct key ids in the bucket, to skip buckets when filtering by key. */
  key_ids: string[];
  encoding: 'ndjson+gzip';
  rows: Binary;
}

/** Filters of the ledger listing; `since` inclusive, `until` exclusive. */
export type RequestLedgerFilter = ListFilter<RequestLedgerQuery>;

/**
 * A row's place in the listing order, newest first: (`at`, bucket id, index in the bucket),
 * all descending. `bucket: null` stands above every row at `at` (a page cut at a bucket
 * boundary continues with every row at or before `at`).
 */
export interface LedgerPosition {
  at: string;
  bucket: string | null;
  index: number;
}

/** How much one page may unpack before it answers short, with a cursor to continue. */
const PAGE_BUDGET = { buckets: 1000, rows: 200_000 } as const;

export function createRequestLedgerRepo(db: Db) {
  const col = db.collection<RequestLedgerBucket>('request_ledger');
  return {
    /** A new bucket id (the writer keeps it across retries of one flush). */
    newBucketId: () => newId('req'),
    /** Writes one bucket; a retry of a bucket already written is a no-op. */
    async insertBucket(instance: string, rows: RequestLedgerRow[], id = newId('req')) {
      if (rows.length === 0) return;
      const ndjson = rows.map((row) => JSON.stringify(row)).join('\n');
      let first = rows[0].at;
      let last = rows[0].at;
      for (const row of rows) {
        if (row.at < first) first = row.at;
        if (row.at > last) last = row.at;
      }
      try {
        await col.insertOne({
          _id: id,
          instance,
          first_at: first,
          last_at: last,
          count: rows.length,
          key_ids: [
            ...new Set(rows.map((row) => row.key_id).filter((k): k is string => k !== null)),
          ],
          encoding: 'ndjson+gzip',
          rows: new Binary(await gzipAsync(ndjson, { level: 1 })),
        });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
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
    /**
     * One page of rows, newest first, strictly after `after`. Buckets overlap in time (one
     * per flush per instance), so this is a top-k merge: buckets are read by `last_at`
     * descending, and reading stops once the next bucket's `last_at` is older than the
     * (limit + 1)-th best row, since no row of it or of any later bucket can enter the page.
     * A page that would unpack more than `PAGE_BUDGET` stops early and answers the rows it
     * is sure of, possibly fewer than `limit`, with a cursor at the bucket it stopped at.
     */
    async page(
      filter: RequestLedgerFilter,
      limit: number,
      after?: LedgerPosition,
    ): Promise<{ items: RequestLedgerRow[]; next: LedgerPosition | null }> {
      const query: Filter<RequestLedgerBucket> = {};
      const upper = after?.at;
      if (upper !== undefined) query.first_at = { $lte: upper };
      if (filter.until) {
        query.first_at =
          upper !== undefined && upper < filter.until ? { $lte: upper } : { $lt: filter.until };
      }
      if (filter.since) query.last_at = { $gte: filter.since };
      if (filter.key_id) query.key_ids = filter.key_id;

      const need = limit + 1;
      const best: { position: LedgerPosition; row: RequestLedgerRow }[] = [];
      let boundary: string | undefined;
      let buckets = 0;
      let rows = 0;
      const cursor = col.find(query).sort({ last_at: -1, _id: -1 }).batchSize(50);
      try {
        for await (const bucket of cursor) {
          if (best.length >= need && bucket.last_at < best[need - 1].position.at) break;
          if (buckets >= PAGE_BUDGET.buckets || rows >= PAGE_BUDGET.rows) {
            boundary = bucket.last_at;
            break;
          }
          buckets += 1;
          const unpacked = await unpack(bucket);
          rows += unpacked.length;
          unpacked.forEach((row, index) => {
            if (!matches(row, filter)) return;
            const position = { at: row.at, bucket: bucket._id, index };
            if (after && comparePositions(position, after) >= 0) return;
            insertSorted(best, { position, row }, need);
          });
        }
      } finally {
        await cursor.close();
      }

      if (boundary === undefined) {
        const items = best.slice(0, limit);
        const next = best.length > limit ? items[items.length - 1].position : null;
        return { items: items.map((entry) => entry.row), next };
      }
      // Rows at or before `boundary` may sit in buckets not read yet: only newer ones are sure.
      const sure = best.filter((entry) => entry.position.at > boundary);
      const items = sure.slice(0, limit);
      let next: LedgerPosition = { at: boundary, bucket: null, index: 0 };
      if (sure.length > limit) next = items[items.length - 1].position;
      else if (after && comparePositions(after, next) < 0) next = after;
      return { items: items.map((entry) => entry.row), next };
    },
    /** Rows in buckets whose every row is older than `cutoff`. */
    async countRowsOlderThan(cutoff: string): Promise<{ buckets: number; rows: number }> {
      const [group] = await col
        .aggregate<{ rows: number }>([
          { $match: { last_at: { $lt: cutoff } } },
          // FerretDB v1 computes only the first accumulator of a $group: one per pipeline.
          { $group: { _id: null, rows: { $sum: '$count' } } },
        ])
        .toArray();
      const buckets = await col.countDocuments({ last_at: { $lt: cutoff } });
      return { buckets, rows: group?.rows ?? 0 };
    },
    /** Deletes the buckets whose every row is older than `cutoff`; answers the rows deleted. */
    async deleteOlderThan(cutoff: string): Promise<{ buckets: number; rows: number }> {
      const doomed = await col
        .find({ last_at: { $lt: cutoff } }, { projection: { _id: 1, count: 1 } })
        .toArray();
      let buckets = 0;
      let rows = 0;
      for (let i = 0; i < doomed.length; i += 500) {
        const chunk = doomed.slice(i, i + 500);
        const result = await col.deleteMany({
          _id: { $in: chunk.map((bucket) => bucket._id) },
          last_at: { $lt: cutoff },
        });
        buckets += result.deletedCount;
        // Each bucket is deleted whole or not at all; a concurrent prune may take some first.
        if (result.deletedCount === chunk.length) {
          rows += chunk.reduce((sum, bucket) => sum + bucket.count, 0);
        } else {
          const left = new Set(
            (
              await col
                .find({ _id: { $in: chunk.map((b) => b._id) } }, { projection: { _id: 1 } })
                .toArray()
            ).map((b) => b._id),
          );
          rows += chunk.filter((b) => !left.has(b._id)).reduce((sum, b) => sum + b.count, 0);
        }
      }
      return { buckets, rows };
    },
  };
}

function matches(row: RequestLedgerRow, filter: RequestLedgerFilter): boolean {
  return (
    (filter.key_id === undefined || row.key_id === filter.key_id) &&
    (filter.status === undefined || row.status === filter.status) &&
    (filter.route === undefined || row.route === filter.route) &&
    (filter.since === undefined || row.at >= filter.since) &&
    (filter.until === undefined || row.at < filter.until)
  );
}

/** Positive when `a` comes before `b` in the listing (is newer), negative when after. */
export function comparePositions(a: LedgerPosition, b: LedgerPosition): number {
  if (a.at !== b.at) return a.at > b.at ? 1 : -1;
  if (a.bucket !== b.bucket) {
    if (a.bucket === null) return 1;
    if (b.bucket === null) return -1;
    return a.bucket > b.bucket ? 1 : -1;
  }
  return a.index - b.index;
}

/** Inserts into a list kept sorted newest first and at most `cap` long. */
function insertSorted<T extends { position: LedgerPosition }>(list: T[], entry: T, cap: number) {
  if (list.length >= cap && comparePositions(entry.position, list[cap - 1].position) <= 0) return;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comparePositions(list[mid].position, entry.position) > 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, entry);
  if (list.length > cap) list.pop();
}

async function unpack(bucket: RequestLedgerBucket): Promise<RequestLedgerRow[]> {
  const text = (await gunzipAsync(bucket.rows.buffer)).toString('utf8');
  return text.split('\n').map((line) => JSON.parse(line) as RequestLedgerRow);
}

export type RequestLedgerRepo = ReturnType<typeof createRequestLedgerRepo>;
