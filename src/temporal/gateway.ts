import { Client, type ClientInterceptors, type Connection } from '@temporalio/client';
import { connectTemporal } from './connect';
import type { Logger } from 'pino';

export interface TemporalGatewayOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  logger: Logger;
  /** The client's interceptors (traces: `temporalClientTracing()`); none by default. */
  interceptors?: ClientInterceptors;
}

export interface TemporalHealth {
  reachable: boolean;
  /** Workers seen polling the task queue in the last minute. */
  pollers: number;
  error?: string;
}

/**
 * The api's typed door to Temporal. It connects lazily and keeps retrying in the
 * background, so the api starts (and answers /readyz with the reason) while Temporal is down.
 */
export class TemporalGateway {
  private connection: Connection | undefined;
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;

  constructor(private readonly options: TemporalGatewayOptions) {}

  get taskQueue(): string {
    return this.options.taskQueue;
  }

  get namespace(): string {
    return this.options.namespace;
  }

  /** The connected client; connects on first use. */
  async getClient(): Promise<Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      try {
        const connection = await connectTemporal({
          address: this.options.address,
          connectTimeout: '3s',
        });
        this.connection = connection;
        this.client = new Client({
          connection,
          namespace: this.options.namespace,
          ...(this.options.interceptors ? { interceptors: this.options.interceptors } : {}),
        });
        return this.client;
      } catch (error) {
        this.options.logger.warn(
          { err: error, address: this.options.address },
          'Temporal unreachable',
        );
        throw error;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  /** Reachability and the number of workers polling our task queue. */
  async health(): Promise<TemporalHealth> {
    try {
      const client = await this.getClient();
      const deadline = new Date(Date.now() + 2000);
      const service = client.workflowService;
      await client.connection.withDeadline(deadline, () => service.getSystemInfo({}));
      const described = await client.connection.withDeadline(deadline, () =>
        service.describeTaskQueue({
          namespace: this.options.namespace,
          taskQueue: { name: this.options.taskQueue },
          taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
        }),
      );
      const recent = Date.now() - 60_000;
      const pollers = (described.pollers ?? []).filter((p) => {
        const seconds = Number(p.lastAccessTime?.seconds ?? 0);
        return seconds * 1000 >= recent;
      }).length;
      return { reachable: true, pollers };
    } catch (error) {
      return {
        reachable: false,
        pollers: 0,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }

  async close(): Promise<void> {
    await this.connection?.close();
    this.connection = undefined;
    this.client = undefined;
  }
}
