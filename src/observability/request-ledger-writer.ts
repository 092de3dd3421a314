import type { Logger } from 'pino';
import type { ApiKeysRepo } from '../store/api-keys.repo';
import type { RequestLedgerRepo, RequestLedgerRow } from '../store/request-ledger.repo';

const MAX_BUFFER = 10_000;

/**
 * Buffers request-ledger rows and writes each batch as one bucket, off the request path; also
 * advances each key's `last_used_at` once per batch rather than once per request.
 */
export class RequestLedgerWriter {
  private buffer: RequestLedgerRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ledger: RequestLedgerRepo,
    private readonly apiKeys: ApiKeysRepo,
    private readonly flushMs: number,
    private readonly logger: Logger,
    private readonly instanceId: string,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  record(row: RequestLedgerRow): void {
    if (this.buffer.length >= MAX_BUFFER) {
      this.logger.warn('request ledger buffer full; dropping oldest row');
      this.buffer.shift();
    }
    this.buffer.push(row);
  }

  /** Writes what is buffered; concurrent calls are serialised. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBatch());
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async writeBatch(): Promise<void> {
    const rows = this.buffer;
    if (rows.length === 0) return;
    this.buffer = [];
    try {
      await this.ledger.insertBucket(this.instanceId, rows);
      const lastUse = new Map<string, string>();
      for (const row of rows) if (row.key_id && row.status < 400) lastUse.set(row.key_id, row.at);
      await Promise.all(
        [...lastUse].map(([keyId, at]) =>
          this.apiKeys.collection.updateOne({ _id: keyId }, { $max: { last_used_at: at } }),
        ),
      );
    } catch (error) {
      this.logger.error({ err: error, rows: rows.length }, 'request ledger write failed');
    }
  }
}
