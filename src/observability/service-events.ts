import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { newId } from '../lib/ids';
import type {
  ServiceEvent,
  ServiceEventLevel,
  ServiceEventsRepo,
} from '../store/service-events.repo';

/** What a process reports; `id` only when several processes may see the same happening. */
export interface ServiceEventInput {
  kind: string;
  level: ServiceEventLevel;
  message: string;
  detail?: Record<string, unknown>;
  /** When it happened (default: now). */
  at?: string;
  id?: string;
}

const MAX_PENDING = 1000;

/**
 * A service-event id derived from what happened, so that every process that sees it (each
 * api instance scanning for workflow failures) claims the same id and one row is stored.
 */
export const stableEventId = (...parts: string[]): string =>
  `sev_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;

/**
 * Records service events for one process. Never throws: an event that cannot be written
 * (the store is down: the very thing it may report) is kept in memory, up to
 * `MAX_PENDING`, and written with its original time by the next `record` or `retry`.
 */
export class ServiceEventRecorder {
  private pending: ServiceEvent[] = [];
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly repo: ServiceEventsRepo,
    readonly instance: string,
    private readonly logger: Logger,
  ) {}

  record(input: ServiceEventInput): Promise<void> {
    if (this.pending.length >= MAX_PENDING) this.pending.shift();
    this.pending.push({
      _id: input.id ?? newId('sev'),
      at: input.at ?? new Date().toISOString(),
      kind: input.kind,
      level: input.level,
      instance: this.instance,
      message: input.message,
      detail: input.detail ?? {},
    });
    return this.retry();
  }

  /** Writes the events kept while the store was unreachable, oldest first. */
  retry(): Promise<void> {
    this.writing = this.writing.then(async () => {
      while (this.pending.length > 0) {
        try {
          await this.repo.insert(this.pending[0]);
          this.pending.shift();
        } catch (error) {
          this.logger.warn(
            { err: error, pending: this.pending.length },
            'service event not written yet; kept for a retry',
          );
          return;
        }
      }
    });
    return this.writing;
  }

  /** Events not written yet. */
  get unwritten(): number {
    return this.pending.length;
  }
}
