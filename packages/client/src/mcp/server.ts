import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createClient, globalFetch, type ClientOptions, type GovernedClient } from '../client';
import { ACTION_TOOLS } from './action-tools';
import { refusalText, ToolRefusal } from './refusals';
import { NameBook } from './render';
import { serveActionResources } from './resources';
import type { GovernedTool, ToolAnswer, ToolContext } from './tool';
import { WORLD_TOOLS } from './world-tools';

/** Every tool, in the order tools/list gives them. None decides on an action. */
export const GOVERNED_TOOLS: readonly GovernedTool[] = [...ACTION_TOOLS, ...WORLD_TOOLS];

export interface GovernedMcpOptions extends ClientOptions {
  /** Version the server reports in `initialize`. */
  version: string;
  /** First and longest wait between reads of an action that is moving (default 500 / 3000 ms). */
  pollMs?: { first: number; max: number };
  /** Between reads of a subscribed action (default 2000 ms). */
  watchMs?: number;
}

/** What the host is told once, at `initialize`. */
const INSTRUCTIONS =
  'Governed Runtime: consequential actions (world object changes, webhooks, notifications) are proposed here and carried out only after people approve them. Propose with propose_action (it answers the dry-run plan), wait with wait_for_decision, then execute_action once approved. No tool approves or rejects: people decide, in the console or with `gr`.';

/**
 * Paths of the decisions and of approver keys. The MCP server never sends a request to them,
 * whatever its key could do: an agent's approval would be its own (docs/agents.md).
 */
const PEOPLE_ONLY =
  /\/v1\/(external-actions\/[^/?]+\/(approve|reject|challenge)|principals\/me\/keys|admin\/)/;

/** `fetch` that refuses, before anything is sent, the requests only people may make. */
export function refusingDecisions(
  fetch: (request: Request) => Promise<Response> = globalFetch,
): (request: Request) => Promise<Response> {
  return (request) => {
    if (request.method !== 'GET' && PEOPLE_ONLY.test(request.url)) {
      return Promise.reject(
        new ToolRefusal(
          "Decisions on actions, and approver keys, are people's: this server never sends them. A person decides in the console or with `gr actions approve`.",
        ),
      );
    }
    return fetch(request);
  };
}

/**
 * The Model Context Protocol server over the service, as the key in `options` sees it: the
 * tools, the action resources, and nothing that decides. Every tool call is made of the
 * key's own API requests (through `options.fetch`, else the network), so the families,
 * limits, quotas and the request ledger apply to it exactly as to any request of that key.
 * Connect it to a transport (`server.connect(...)`); `close()` ends its subscriptions.
 */
export function createGovernedMcpServer(options: GovernedMcpOptions): Server {
  const client: GovernedClient = createClient({
    // A refusal (a 429 included) goes back to the agent at once, saying when to try again.
    retries: 0,
    ...options,
    fetch: refusingDecisions(options.fetch),
  });
  const names = new NameBook(client);
  let me: Promise<string> | undefined;
  const whoAmI = async (): Promise<string> => {
    const { data } = await client.GET('/v1/principals/me');
    return data!.payload.principal.principal_id;
  };
  const pollMs = options.pollMs ?? { first: 500, max: 3000 };
  const base = (signal: AbortSignal): ToolContext => ({
    client,
    names,
    signal,
    pollMs,
    progress: async () => undefined,
    // Read once per session; a failed read is not kept, so the next call asks again.
    me: () =>
      (me ??= whoAmI().catch((error: unknown) => {
        me = undefined;
        throw error;
      })),
  });

  const server = new Server(
    { name: 'governed-runtime', title: 'Governed Runtime', version: options.version },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: false },
      },
      instructions: INSTRUCTIONS,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: GOVERNED_TOOLS.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations: { title, ...annotations },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = GOVERNED_TOOLS.find((t) => t.name === request.params.name);
    const token = request.params._meta?.progressToken;
    const context: ToolContext = {
      ...base(extra.signal),
      progress: async (progress, total, message) => {
        if (token === undefined) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, total, message },
        });
      },
    };
    let answer: ToolAnswer;
    try {
      if (!tool) throw new ToolRefusal(unknownToolText(request.params.name));
      answer = await tool.run(request.params.arguments ?? {}, context);
    } catch (error) {
      answer = { text: refusalText(error), isError: true };
    }
    return {
      content: [{ type: 'text' as const, text: answer.text }],
      ...(answer.structured ? { structuredContent: answer.structured } : {}),
      ...(answer.isError ? { isError: true } : {}),
    };
  });

  const resources = serveActionResources(
    server,
    () => base(new AbortController().signal),
    options.watchMs ?? 2000,
  );
  const closed = server.onclose;
  server.onclose = () => {
    resources.stop();
    closed?.();
  };
  return server;
}

/** An unknown tool; asking for a decision says whose decisions are. */
function unknownToolText(name: string): string {
  const tools = GOVERNED_TOOLS.map((t) => t.name).join(', ');
  if (/approv|reject|decide|sign/i.test(name)) {
    return `There is no ${name} tool, by design: approving and rejecting are people's decisions, made in the console or with \`gr actions approve\`. Call wait_for_decision to wait for them. The tools: ${tools}.`;
  }
  return `No tool named ${name}. The tools: ${tools}.`;
}
