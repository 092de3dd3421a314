import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createGovernedMcpServer } from '../../../packages/client/src/mcp/server';
import { API_VERSION } from '../../lib/version';
import { AnswerModeTransport } from './answer-mode';

/** Most MCP sessions one api process keeps open; past it, `initialize` is 503 (retry). */
export const MAX_MCP_SESSIONS = 500;
/** A session nobody has used for this long is closed (its subscriptions stop). */
export const MCP_IDLE_MS = 30 * 60_000;

/** One MCP session: its transport and server, bound to the key that opened it. */
export interface McpSession {
  transport: AnswerModeTransport;
  server: Server;
  keyId: string;
  lastUsed: number;
}

/** What opens a session: the caller's key, and how its requests reach this api. */
export interface SessionOrigin {
  apiKey: string;
  keyId: string;
  /** Into this api's own middleware chain (`inProcessFetch`). */
  fetch: (request: Request) => Promise<Response>;
}

/** The base URL of the in-process requests: never dialled, it only shapes their URLs. */
const IN_PROCESS_URL = 'http://governed-runtime.in-process';

/**
 * The MCP sessions of one api process. A session's tool calls are its key's own requests
 * to this api, dispatched in process through the api's whole middleware chain (the request
 * ledger, families, limits and quotas apply to each as to any request), so a session holds the key it was opened with and is refused to any other key.
 * Sessions live in this process: behind a load balancer, `/mcp` needs affinity on the
 * `Mcp-Session-Id` header, and a client told 404 for its session starts a new one.
 */
export class McpSessions {
  private readonly open = new Map<string, McpSession>();
  private sweeper: NodeJS.Timeout | undefined;

  get size(): number {
    return this.open.size;
  }

  /** The session `id` if the key `keyId` opened it (another key's is as good as unknown). */
  find(id: string, keyId: string): McpSession | undefined {
    const session = this.open.get(id);
    if (!session || session.keyId !== keyId) return undefined;
    session.lastUsed = Date.now();
    return session;
  }

  /** A new session; it is kept once its `initialize` has been answered a session id. */
  async start(origin: SessionOrigin): Promise<McpSession> {
    const server = createGovernedMcpServer({
      baseUrl: IN_PROCESS_URL,
      apiKey: origin.apiKey,
      fetch: origin.fetch,
      version: API_VERSION,
    });
    const session: McpSession = {
      server,
      keyId: origin.keyId,
      lastUsed: Date.now(),
      transport: new AnswerModeTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          this.open.set(id, session);
          this.sweep();
        },
      }),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) this.open.delete(session.transport.sessionId);
    };
    await server.connect(session.transport);
    return session;
  }

  /** Closes idle sessions now and then, while there are any. */
  private sweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const idleSince = Date.now() - MCP_IDLE_MS;
      for (const session of this.open.values()) {
        if (session.lastUsed < idleSince) void session.server.close();
      }
      if (this.open.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, 60_000);
    this.sweeper.unref();
  }
}
