import type { Logger } from 'pino';
import type { ApiKeysRepo } from '../store/api-keys.repo';
import type { RequestLedgerRepo, RequestLedgerRow } from '../store/request-ledger.repo';
import type { UsageRollupsRepo } from '../store/usage-rollups.repo';
import { rollupsOfFlush } from './usage-rollups';

const MAX_BUFFER = 10_000;
const MAX_CACHED_KEYS = 10_000;

export interface RequestLedgerWriterOptions {
  ledger: RequestLedgerRepo;
  usageRollups: UsageRollupsRepo;
  apiKeys: ApiKeysRepo;
  flushMs: number;
  logger: Logger;
  instanceId: string;
}

/** What service health reports about this instance's writer. */
export interface RequestLedgerWriterStatus {
  /** Rows answered but not yet in the store. */
  unflushed: number;
  /** When the oldest of them was answered. */
  oldest_unflushed_at: string | null;
  last_flush_at: string | null;
  /** The error of the last flush, when it failed (it is retried). */
  last_error: string | null;
  /** Rows dropped because the buffer was full while the store was unreachable. */
  dropped: number;
}

interface Batch {
  bucketId: string;
  rows: RequestLedgerRow[];
}

/**
 * Buffers request-ledger rows and writes each batch as one bucket, off the request path,
 * with the usage rollups of the batch (insert-only; docs/operations.md); also advances each
 * key's `last_used_at` once per batch rather than once per request. A failed batch is kept
 * and retried first at the next flush with the same ids, so a retry never counts twice.
 */
export class RequestLedgerWriter {
  private buffer: RequestLedgerRow[] = [];
  private failed: Batch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastFlushAt: string | null = null;
  private lastError: string | null = null;
  private dropped = 0;
  /** Organization of each key seen (a key never changes organization). */
  private readonly organizations = new Map<string, string | null>();

  constructor(private readonly options: RequestLedgerWriterOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
  }

  record(row: RequestLedgerRow): void {
    if (this.buffer.length >= MAX_BUFFER) {
      this.options.logger.warn('request ledger buffer full; dropping oldest row');
      this.buffer.shift();
      this.dropped += 1;
    }
    this.buffer.push(row);
  }

  /** Writes what is buffered; concurrent calls are serialised. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  status(): RequestLedgerWriterStatus {
    const oldest = this.failed?.rows[0]?.at ?? this.buffer[0]?.at ?? null;
    return {
      unflushed: (this.failed?.rows.length ?? 0) + this.buffer.length,
      oldest_unflushed_at: oldest,
      last_flush_at: this.lastFlushAt,
      last_error: this.lastError,
      dropped: this.dropped,
    };
  }

  /**
   * Writes the batch that failed last time, if any, then what was buffered when this flush
   * began: one bucket per flush interval. (Looping until the buffer is empty would, under
   * load, write a bucket per database round trip instead, since rows keep arriving.)
   */
  private async writePending(): Promise<void> {
    const retry = this.failed !== undefined;
    for (let round = 0; round < (retry ? 2 : 1); round += 1) {
      if (!this.failed && this.buffer.length === 0) return;
      const batch = this.failed ?? {
        bucketId: this.options.ledger.newBucketId(),
        rows: this.buffer,
      };
      if (!this.failed) this.buffer = [];
      try {
        await this.writeBatch(batch);
        this.failed = undefined;
        this.lastFlushAt = new Date().toISOString();
        this.lastError = null;
      } catch (error) {
        this.failed = batch;
        this.lastError = error instanceof Error ? error.message : String(error);
        this.options.logger.error(
          { err: error, rows: batch.rows.length },
          'request ledger write failed; retried at the next flush',
        );
        return;
      }
      await this.touchKeys(batch.rows);
    }
  }

  private async writeBatch({ bucketId, rows }: Batch): Promise<void> {
    const { ledger, usageRollups, instanceId } = this.options;
    await ledger.insertBucket(instanceId, rows, bucketId);
    await this.loadOrganizations(rows);
    await usageRollups.insertMany(
      rollupsOfFlush(bucketId, instanceId, rows, (keyId) => this.organizations.get(keyId) ?? null),
    );
  }

  private async loadOrganizations(rows: RequestLedgerRow[]): Promise<void> {
    const unknown = new Set<string>();
    for (const row of rows) {
      if (row.key_id && !this.organizations.has(row.key_id)) unknown.add(row.key_id);
    }
    if (unknown.size === 0) return;
    if (this.organizations.size + unknown.size > MAX_CACHED_KEYS) this.organizations.clear();
    const found = await this.options.apiKeys.organizationsOf([...unknown]);
    for (const id of unknown) this.organizations.set(id, found.get(id) ?? null);
  }

  /** Advances `last_used_at` of the keys of a batch (best effort: a miss heals next time). */
  private async touchKeys(rows: RequestLedgerRow[]): Promise<void> {
    const lastUse = new Map<string, string>();
    for (const row of rows) if (row.key_id && row.status < 400) lastUse.set(row.key_id, row.at);
    try {
      await Promise.all(
        [...lastUse].map(([keyId, at]) => this.options.apiKeys.touchLastUsed(keyId, at)),
      );
    } catch (error) {
      this.options.logger.warn({ err: error }, 'last_used_at update failed');
    }
  }
}
